package cli

import (
	"flag"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/weirdb/weir/internal/quota"
	"github.com/weirdb/weir/internal/regionserver"
	"github.com/weirdb/weir/internal/storage"
)

// confFlag collects repeatable -D key=value (or --conf key=value)
// settings, HBase's configuration keys, for the server commands, which
// read no configuration file.
type confFlag map[string]string

func (c confFlag) String() string { return strings.Join(c.pairs(), ",") }

// pairs returns the settings as key=value, sorted by key (nil for none).
func (c confFlag) pairs() []string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(c)) {
		parts = append(parts, k+"="+c[k])
	}
	return parts
}

func (c confFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return fmt.Errorf("want key=value, got %q", v)
	}
	c[k] = strings.TrimSpace(val)
	return nil
}

const confUsage = "configuration key=value, repeatable: hbase.regionserver.handler.count, hbase.wal.hsync, hbase.regionserver.optionallogflushinterval, weir.regionserver.row.cache.size, weir.regionserver.row.images, weir.regionserver.compaction.threads, weir.regionserver.gc.{check.interval,write.ratio,min.writes,read.garbage,garbage.ratio,loose.ratio}, weir.storage.block.cache.size, hbase.hstore.compactionThreshold, hbase.hregion.memstore.flush.size, weir.regionserver.high.priority.handler.count, weir.regionserver.low.busy.limit, hbase.quota.default.user.machine.{read,write,request}.{num,size}, hbase.quota.default.user.machine.request.handler.usage.ms"

// registerConf adds -D and its long form --conf to fs.
func registerConf(fs *flag.FlagSet) confFlag {
	c := confFlag{}
	fs.Var(c, "D", confUsage)
	fs.Var(c, "conf", "same as -D")
	return c
}

// defaultUserKeys maps hbase.quota.default.user.machine.* (HBase 2.6's
// QuotaUtil.QUOTA_DEFAULT_USER_MACHINE_*) to throttle types. The values
// are per-second limits in requests, bytes or milliseconds; -1 (HBase's
// "unset") sets nothing.
var defaultUserKeys = map[string]quota.ThrottleType{
	"read.num":                 quota.ReadNumber,
	"read.size":                quota.ReadSize,
	"write.num":                quota.WriteNumber,
	"write.size":               quota.WriteSize,
	"request.num":              quota.RequestNumber,
	"request.size":             quota.RequestSize,
	"request.handler.usage.ms": quota.RequestHandlerUsageMs,
}

const defaultUserPrefix = "hbase.quota.default.user.machine."

// serverConf is what -D settings configure on region servers.
type serverConf struct {
	// defaultUser are the default user quotas (nil: none).
	defaultUser map[quota.ThrottleType]quota.Limit
	// handlerCount is hbase.regionserver.handler.count (0: default).
	handlerCount int
	// highHandlers is weir.regionserver.high.priority.handler.count (0:
	// default, -1: none).
	highHandlers int
	// lowBusyLimit is weir.regionserver.low.busy.limit (0: default, -1:
	// none).
	lowBusyLimit int
	// blockCacheSize is weir.storage.block.cache.size, the region server
	// store's block cache in bytes (0: the region server's default,
	// regionserver.DefaultBlockCache).
	blockCacheSize int64
	// compactionThreshold is hbase.hstore.compactionThreshold, the L0
	// sublevels that start a compaction of the store (0: storage's
	// default).
	compactionThreshold int
	// memstoreFlushSize is hbase.hregion.memstore.flush.size, the size of
	// the store's memtable in bytes (0: the region server's default,
	// regionserver.DefaultMemstoreFlushSize).
	memstoreFlushSize uint64
	// walHflush is hbase.wal.hsync=false (Weir's default is true, HBase's
	// false).
	walHflush bool
	// rowCacheSize is weir.regionserver.row.cache.size in bytes (0: the
	// region server's default; -1: no cache).
	rowCacheSize int64
	// noRowImages is weir.regionserver.row.images=false.
	noRowImages bool
	// compactionThreads is weir.regionserver.compaction.threads (0: the
	// region server's default).
	compactionThreads int
	// walSyncInterval is hbase.regionserver.optionallogflushinterval, how
	// often the WAL is fdatasynced in the background (0: storage's
	// default, 1 s).
	walSyncInterval time.Duration
	// gc is weir.regionserver.gc.* (zero fields: the defaults).
	gc regionserver.GCConfig
}

// parseGCKey sets the weir.regionserver.gc.* key k in gc; it reports
// false for any other key.
func parseGCKey(gc *regionserver.GCConfig, k, v string) (bool, error) {
	name, ok := strings.CutPrefix(k, "weir.regionserver.gc.")
	if !ok {
		return false, nil
	}
	bad := func(want string) error { return fmt.Errorf("-D %s=%s: want %s", k, v, want) }
	switch name {
	case "check.interval":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 || n > 86_400_000 {
			return true, bad("milliseconds between checks for due garbage passes, 0 (off) to 86400000")
		}
		gc.CheckInterval = time.Duration(n) * time.Millisecond
		if n == 0 {
			gc.CheckInterval = -1 // off; 0 in GCConfig means the default
		}
	case "write.ratio":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0) || math.IsInf(f, 1) {
			return true, bad("a positive multiple of the region's cells")
		}
		gc.WriteRatio = f
	case "garbage.ratio":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0 && f <= 1) {
			return true, bad("a fraction of the cells above 0, at most 1")
		}
		gc.GarbageRatio = f
	case "loose.ratio":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0 && f <= 1) {
			return true, bad("a fraction of the cells above 0, at most 1")
		}
		gc.LooseRatio = f
	case "min.writes":
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n == 0 {
			return true, bad("a positive count")
		}
		gc.MinWrites = n
	case "read.garbage":
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return true, bad("a count of columns, 0 for off")
		}
		gc.ReadGarbage = n
	default:
		return false, nil
	}
	return true, nil
}

// storage returns the store options the settings choose.
func (sc serverConf) storage() storage.Options {
	return storage.Options{CacheSize: sc.blockCacheSize, WALSyncInterval: sc.walSyncInterval,
		L0CompactionThreshold: sc.compactionThreshold, MemTableSize: sc.memstoreFlushSize}
}

// slotCount parses a count of slots that may be zero, which
// regionserver.Config spells -1 (its 0 means the default).
func slotCount(k, v, what string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("-D %s=%s: want a number of %s, 0 or more", k, v, what)
	}
	if n == 0 {
		return -1, nil
	}
	return n, nil
}

// parse checks every key and value; an unknown key or a bad value is an
// error naming it.
func (c confFlag) parse() (serverConf, error) {
	var sc serverConf
	for _, k := range slices.Sorted(maps.Keys(c)) {
		v := c[k]
		if k == "weir.regionserver.low.busy.limit" {
			n, err := slotCount(k, v, "execution slots")
			if err != nil {
				return sc, err
			}
			sc.lowBusyLimit = n
			continue
		}
		if k == "weir.regionserver.high.priority.handler.count" {
			n, err := slotCount(k, v, "handlers")
			if err != nil {
				return sc, err
			}
			sc.highHandlers = n
			continue
		}
		if k == "weir.storage.block.cache.size" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1<<20 {
				return sc, fmt.Errorf("-D %s=%s: want a block cache size in bytes, at least 1048576", k, v)
			}
			sc.blockCacheSize = n
			continue
		}
		if k == "hbase.hstore.compactionThreshold" {
			// HBase's store files eligible before a minor compaction: in
			// Pebble, the L0 sublevels (about one per flush) that start one.
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n >= storage.DefaultL0StopWrites {
				return sc, fmt.Errorf("-D %s=%s: want the L0 sublevels that start a compaction, 1 to %d (writes stop at %d)",
					k, v, storage.DefaultL0StopWrites-1, storage.DefaultL0StopWrites)
			}
			sc.compactionThreshold = n
			continue
		}
		if k == "hbase.hregion.memstore.flush.size" {
			// HBase flushes a region's memstore at this size; a Weir region
			// server's regions share one memtable, flushed when full.
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil || n < 1<<20 || n > storage.MaxMemTableSize {
				return sc, fmt.Errorf("-D %s=%s: want the memtable size in bytes, 1048576 to %d", k, v, storage.MaxMemTableSize)
			}
			sc.memstoreFlushSize = n
			continue
		}
		if k == "weir.regionserver.row.images" {
			on, err := strconv.ParseBool(v)
			if err != nil {
				return sc, fmt.Errorf("-D %s=%s: want true or false", k, v)
			}
			sc.noRowImages = !on
			continue
		}
		if k == "weir.regionserver.compaction.threads" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 64 {
				return sc, fmt.Errorf("-D %s=%s: want how many regions compact at once, 1 to 64", k, v)
			}
			sc.compactionThreads = n
			continue
		}
		if k == "weir.regionserver.row.cache.size" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return sc, fmt.Errorf("-D %s=%s: want a row cache size in bytes, 0 for none", k, v)
			}
			sc.rowCacheSize = n
			if n == 0 {
				sc.rowCacheSize = -1 // none; 0 in regionserver.Config means the default
			}
			continue
		}
		if k == "hbase.wal.hsync" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return sc, fmt.Errorf("-D %s=%s: want true or false", k, v)
			}
			sc.walHflush = !b
			continue
		}
		if k == "hbase.regionserver.optionallogflushinterval" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 || n > 3_600_000 {
				return sc, fmt.Errorf("-D %s=%s: want milliseconds between background WAL syncs, 1 to 3600000", k, v)
			}
			sc.walSyncInterval = time.Duration(n) * time.Millisecond
			continue
		}
		if known, err := parseGCKey(&sc.gc, k, v); known || err != nil {
			if err != nil {
				return sc, err
			}
			continue
		}
		if k == "hbase.regionserver.handler.count" {
			n, err := strconv.Atoi(v)
			if err != nil || n == 0 || n < -1 {
				return sc, fmt.Errorf("-D %s=%s: want a positive number of handlers (or -1: no bound)", k, v)
			}
			sc.handlerCount = n
			continue
		}
		t, ok := defaultUserKeys[strings.TrimPrefix(k, defaultUserPrefix)]
		if !ok || !strings.HasPrefix(k, defaultUserPrefix) {
			return sc, fmt.Errorf("-D %s: unknown configuration key (known: %s)", k, confUsage[len("configuration key=value, repeatable: "):])
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n == 0 || n < -1 {
			return sc, fmt.Errorf("-D %s=%s: want a positive per-second limit (or -1: unset)", k, v)
		}
		if n == -1 {
			continue
		}
		if sc.defaultUser == nil {
			sc.defaultUser = make(map[quota.ThrottleType]quota.Limit)
		}
		sc.defaultUser[t] = quota.Limit{Amount: n, Unit: t.Unit(), Per: time.Second}
	}
	return sc, nil
}
