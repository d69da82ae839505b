package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/quota"
	"github.com/weirdb/weir/internal/regionserver"
)

func TestConfFlag(t *testing.T) {
	c := confFlag{}
	for _, kv := range []string{
		"hbase.quota.default.user.machine.read.num=100",
		"hbase.quota.default.user.machine.write.size = 1048576",
		"hbase.quota.default.user.machine.request.num=-1",
		"hbase.regionserver.handler.count=8",
		"weir.regionserver.high.priority.handler.count=0",
		"weir.regionserver.low.busy.limit=0",
		"weir.storage.block.cache.size=2147483648",
		"hbase.hstore.compactionThreshold=6",
		"hbase.hregion.memstore.flush.size=134217728",
		"hbase.wal.hsync=false",
		"hbase.regionserver.optionallogflushinterval=250",
		"weir.regionserver.row.cache.size=0",
		"weir.regionserver.row.images=false",
		"weir.regionserver.compaction.threads=3",
		"weir.regionserver.gc.check.interval=0",
		"weir.regionserver.gc.write.ratio=0.5",
		"weir.regionserver.gc.min.writes=1000",
		"weir.regionserver.gc.read.garbage=300",
		"weir.regionserver.gc.garbage.ratio=0.2",
		"weir.regionserver.gc.loose.ratio=0.3",
	} {
		if err := c.Set(kv); err != nil {
			t.Fatal(err)
		}
	}
	sc, err := c.parse()
	if err != nil {
		t.Fatal(err)
	}
	want := map[quota.ThrottleType]quota.Limit{
		quota.ReadNumber: {Amount: 100, Unit: quota.UnitRequests, Per: time.Second},
		quota.WriteSize:  {Amount: 1 << 20, Unit: quota.UnitBytes, Per: time.Second},
	}
	if len(sc.defaultUser) != len(want) || sc.defaultUser[quota.ReadNumber] != want[quota.ReadNumber] ||
		sc.defaultUser[quota.WriteSize] != want[quota.WriteSize] {
		t.Fatalf("default user quotas %v, want %v (-1 unset)", sc.defaultUser, want)
	}
	if sc.handlerCount != 8 || sc.highHandlers != -1 || sc.lowBusyLimit != -1 {
		t.Fatalf("handlers %d, high %d, LOW bound %d", sc.handlerCount, sc.highHandlers, sc.lowBusyLimit)
	}
	if so := sc.storage(); so.CacheSize != 2<<30 || so.WALSyncInterval != 250*time.Millisecond || so.L0CompactionThreshold != 6 ||
		so.MemTableSize != 128<<20 {
		t.Fatalf("storage options: block cache %d, WAL sync interval %v, L0 compaction at %d, memtable %d; want 2 GiB, 250ms, 6 and 128 MiB",
			so.CacheSize, so.WALSyncInterval, so.L0CompactionThreshold, so.MemTableSize)
	}
	if !sc.walHflush {
		t.Fatal("hbase.wal.hsync=false not set")
	}
	if sc.rowCacheSize != -1 {
		t.Fatalf("row cache size %d for weir.regionserver.row.cache.size=0, want -1 (none)", sc.rowCacheSize)
	}
	if !sc.noRowImages {
		t.Fatal("weir.regionserver.row.images=false not set")
	}
	if sc.compactionThreads != 3 {
		t.Fatalf("compaction threads %d, want 3", sc.compactionThreads)
	}
	if want := (regionserver.GCConfig{CheckInterval: -1, WriteRatio: 0.5, MinWrites: 1000, ReadGarbage: 300,
		GarbageRatio: 0.2, LooseRatio: 0.3}); sc.gc != want {
		t.Fatalf("gc settings %+v, want %+v (check.interval=0: off)", sc.gc, want)
	}

	for _, tc := range []struct{ kv, want string }{
		{"hbase.quota.default.user.machine.read.number=5", "unknown configuration key"},
		{"hbase.quota.default.user.machine.read.num=0", "read.num=0"},
		{"hbase.quota.default.user.machine.read.num=1.5", "read.num=1.5"},
		{"hbase.regionserver.handler.count=0", "handler.count=0"},
		{"weir.regionserver.low.busy.limit=-1", "low.busy.limit=-1"},
		{"weir.regionserver.low.busy.limit=two", "low.busy.limit=two"},
		{"no.such.key=1", "no.such.key"},
		{"weir.storage.block.cache.size=1000", "block.cache.size=1000"},
		{"weir.storage.block.cache.size=1g", "block.cache.size=1g"},
		{"hbase.hstore.compactionThreshold=0", "compactionThreshold=0"},
		{"hbase.hstore.compactionThreshold=32", "compactionThreshold=32"},
		{"hbase.hregion.memstore.flush.size=1000", "memstore.flush.size=1000"},
		{"hbase.hregion.memstore.flush.size=128m", "memstore.flush.size=128m"},
		{"hbase.hregion.memstore.flush.size=4294967296", "memstore.flush.size=4294967296"},
		{"hbase.wal.hsync=yes", "hbase.wal.hsync=yes"},
		{"weir.regionserver.row.cache.size=-5", "row.cache.size=-5"},
		{"weir.regionserver.row.cache.size=64m", "row.cache.size=64m"},
		{"weir.regionserver.row.images=off", "row.images=off"},
		{"weir.regionserver.compaction.threads=0", "compaction.threads=0"},
		{"weir.regionserver.compaction.threads=two", "compaction.threads=two"},
		{"hbase.regionserver.optionallogflushinterval=0", "optionallogflushinterval=0"},
		{"hbase.regionserver.optionallogflushinterval=1s", "optionallogflushinterval=1s"},
		{"weir.regionserver.gc.check.interval=-1", "gc.check.interval=-1"},
		{"weir.regionserver.gc.check.interval=10s", "gc.check.interval=10s"},
		{"weir.regionserver.gc.write.ratio=0", "gc.write.ratio=0"},
		{"weir.regionserver.gc.write.ratio=+Inf", "gc.write.ratio=+Inf"},
		{"weir.regionserver.gc.garbage.ratio=1.5", "gc.garbage.ratio=1.5"},
		{"weir.regionserver.gc.garbage.ratio=NaN", "gc.garbage.ratio=NaN"},
		{"weir.regionserver.gc.loose.ratio=0", "gc.loose.ratio=0"},
		{"weir.regionserver.gc.min.writes=0", "gc.min.writes=0"},
		{"weir.regionserver.gc.read.garbage=-3", "gc.read.garbage=-3"},
		{"weir.regionserver.gc.ratio=1", "unknown configuration key"},
	} {
		c := confFlag{}
		if err := c.Set(tc.kv); err != nil {
			t.Fatal(err)
		}
		if _, err := c.parse(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("-D %s: %v, want an error naming %q", tc.kv, err, tc.want)
		}
	}
	if err := (confFlag{}).Set("novalue"); err == nil {
		t.Error("-D novalue accepted")
	}
}
