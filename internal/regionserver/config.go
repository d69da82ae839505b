package regionserver

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/weirdb/weir/internal/quota"
	"github.com/weirdb/weir/internal/storage"
	"github.com/weirdb/weir/internal/sysmem"
)

// DefaultRowCacheSize is the row cache's default size: 256 MiB holds some
// 190,000 rows of 1 KB (64 MiB served half of YCSB F's Gets after A on a
// 200,000-row table, 256 MiB nine in ten: docs/performance.md).
const DefaultRowCacheSize = 256 << 20

// DefaultCompactionThreads is Config.CompactionThreads' default: HBase's
// one large and one small compaction thread.
const DefaultCompactionThreads = 2

// Config configures one region server instance. Zero fields take the
// documented defaults (EnsureDefaults).
type Config struct {
	// DataDir holds the instance's Pebble store. Required.
	DataDir string
	// Bind is the address the RPC port listens on. Default 127.0.0.1.
	Bind string
	// Port is the RPC port; 0 picks a free one (tests). Default 16020.
	Port int
	// InfoPort serves HTTP /metrics and the web UI; 0 picks a free port, a
	// negative value turns it off. Default 0 (standalone uses 16030+i, as
	// HBase).
	InfoPort int
	// Advertise is the host name other processes use to reach this server.
	// Default: Bind.
	Advertise string
	// HostID names the machine the instance runs on; co-located instances
	// share it. Default: the OS host name.
	HostID string
	// Instance is the instance's index on its host. Default 0.
	Instance int
	// Etcd is the coordination client. Required; the caller owns it.
	Etcd *clientv3.Client
	// CatalogPrefix is the catalog's etcd prefix. Default "/weir".
	CatalogPrefix string
	// LeaseTTL is how long the server's registration outlives its last
	// heartbeat: the time to detect a dead server. Default 10 s.
	LeaseTTL time.Duration
	// LoadReportInterval is how often the server reports its regions' load
	// (request rates, sizes) to the master's balancer, HBase's
	// hbase.regionserver.msginterval. Default 3 s.
	LoadReportInterval time.Duration
	// ScannerLease is how long an idle scanner lives, HBase's
	// hbase.client.scanner.timeout.period. Default 60 s.
	ScannerLease time.Duration
	// MaxRequestSize bounds one RPC frame, hbase.ipc.max.request.size.
	// Default 256 MiB.
	MaxRequestSize int
	// Storage tunes the Pebble store; Dir and FS are taken from DataDir.
	// Its CacheSize defaults to DefaultBlockCache(MemoryShare) here, its
	// MemTableSize to DefaultMemstoreFlushSize.
	Storage storage.Options
	// MemoryShare is the memory, in bytes, the default block cache size is
	// figured from (DefaultBlockCache): the machine's (or its cgroup's)
	// divided among the region servers that share it. A process running
	// several passes each its part; separate processes on one host each
	// assume the whole, as separate HBase JVMs each take their configured
	// heap. Default sysmem.Total().
	MemoryShare uint64
	// RowCacheSize is weir.regionserver.row.cache.size: the bytes of the
	// cache of hot rows that whole-row Gets are served from
	// (region.RowCache). Default DefaultRowCacheSize; negative: no cache.
	RowCacheSize int64
	// CompactionThreads is weir.regionserver.compaction.threads: how many
	// regions the compactions asked for (CompactRegion: `compact`,
	// `major_compact`) run in at once, never two in one region. Default
	// DefaultCompactionThreads; HBase's region server likewise runs a
	// large and a small compaction thread.
	CompactionThreads int
	// NoRowImages is weir.regionserver.row.images=false: garbage passes
	// and major compactions keep every cell in a key of its own instead of
	// storing each row as one image (region.Options.NoRowImages).
	NoRowImages bool
	// WALHflush is hbase.wal.hsync=false: SYNC_WAL writes (the default
	// durability) wait only for their WAL record's write to the OS (HBase's
	// hflush) instead of the WAL's fdatasync (region.Options.WALHflush).
	// Default false: Weir's hbase.wal.hsync defaults to true, HBase's to
	// false. Either way the WAL is fdatasynced in the background every
	// Storage.WALSyncInterval.
	WALHflush bool
	// QuotaDisabled turns RPC quotas off entirely (HBase's
	// hbase.quota.enabled=false): no settings are loaded, no call is
	// checked.
	QuotaDisabled bool
	// QuotaMode is weir.quota.throttle.mode: an over-limit request waits
	// in its tenant's queue (quota.ModeQueue, the default) or is rejected at
	// once with RpcThrottlingException (quota.ModeReject).
	QuotaMode quota.Mode
	// QuotaMaxWait bounds a queued request's wait before it is rejected.
	// Default 5 s.
	QuotaMaxWait time.Duration
	// Split sets automatic splitting by size (autosplit.go).
	Split SplitConfig
	// GC sets the automatic garbage passes (autogc.go).
	GC GCConfig
	// QuotaMachinePerInstance makes MACHINE-scope limits apply to each
	// region server instance, as HBase does, instead of to each host
	// (weir.quota.machine.per.host=false). By default the instances on one
	// host (one HostID) share a MACHINE limit, so k instances do not get k
	// times it.
	QuotaMachinePerInstance bool
	// QuotaDefaultUser are the throttles of every user with no quota
	// settings (hbase.quota.default.user.machine.*: per second, MACHINE
	// scope). Default none.
	QuotaDefaultUser map[quota.ThrottleType]quota.Limit
	// HandlerCount is hbase.regionserver.handler.count: how many data
	// calls (get, mutate, multi, scan on user tables) execute at once.
	// When all are busy, queued calls are admitted by their user's
	// PRIORITY, then by WEIGHT (work-conserving: with a free slot nobody
	// waits). Needs quotas enabled. Default DefaultHandlerCount (30); a
	// negative value means no bound (and no priorities).
	HandlerCount int
	// HighPriorityHandlers is weir.regionserver.high.priority.handler.count:
	// slots beyond HandlerCount that only PRIORITY HIGH calls may take.
	// Default DefaultHighPriorityHandlers (4); negative: none.
	HighPriorityHandlers int
	// LowBusyLimit is weir.regionserver.low.busy.limit: how many execution
	// slots PRIORITY LOW calls may hold while HIGH or MEDIUM work is
	// active (or was within the last 50 ms). Default: one fewer than the
	// processors Go runs on, at least one, which keeps the server
	// work-conserving. Negative: none; LOW work then waits while higher
	// work is active (strict priority: a HIGH tenant's latency is as if
	// LOW were absent, but LOW gets nothing while HIGH stays busy, even
	// with processors idle).
	LowBusyLimit int
	// SpaceReportPeriod is weir.quota.space.report.period: how often the
	// server reports its regions' sizes for space quotas (HBase's
	// hbase.regionserver.quotas.region.size.reporting.chore.period).
	// Default 5 s.
	SpaceReportPeriod time.Duration
	// Logger receives the server's logs. Default: discard.
	Logger *slog.Logger
}

// DefaultMemstoreFlushSize is the region server store's memtable size
// unless hbase.hregion.memstore.flush.size says otherwise: HBase's default
// flush size of a region's memstore. The store's regions share the
// memtable, so it fills and flushes as one; a 200,000-row YCSB load cost
// 4–14% less server CPU per insert than with 64 MiB (fewer flushes and
// compactions within the load) and its p99 fell by a fifth to a quarter
// (docs/performance.md, "The memtable at HBase's flush size"). Up to
// storage.Options.MemTableStopWritesThreshold of them may wait for a flush.
// A memtable sized to the machine, like the block cache, was tried and
// not kept (docs/performance.md, "Caches and memtable sized to the
// machine").
const DefaultMemstoreFlushSize = 128 << 20

// DefaultBlockCacheSize is the store's block cache where the memory this
// server may use is unknown.
const DefaultBlockCacheSize = 1 << 30

// DefaultBlockCache returns the block cache size a region server with
// share bytes of memory takes by default, sized the way HBase sizes its
// block cache out of the box: the JVM's default heap is a quarter of the
// memory and hfile.block.cache.size 0.4 of it, so a tenth of the memory
// (at least 64 MiB). On a 24 GiB machine that is 2.4 GiB, which holds a
// 1,000,000-row YCSB table; the former fixed 1 GiB missed about a tenth of
// its block lookups (docs/performance.md, "Caches and memtable sized to
// the machine"). share 0: DefaultBlockCacheSize.
func DefaultBlockCache(share uint64) int64 {
	if share == 0 {
		return DefaultBlockCacheSize
	}
	return int64(max(share/10, 64<<20))
}

// EnsureDefaults fills zero fields in.
func (c *Config) EnsureDefaults() {
	if c.Bind == "" {
		c.Bind = "127.0.0.1"
	}
	if c.Advertise == "" {
		c.Advertise = c.Bind
	}
	if c.HostID == "" {
		c.HostID, _ = os.Hostname()
	}
	if c.CatalogPrefix == "" {
		c.CatalogPrefix = "/weir"
	}
	if c.LeaseTTL == 0 {
		c.LeaseTTL = 10 * time.Second
	}
	if c.RowCacheSize == 0 {
		c.RowCacheSize = DefaultRowCacheSize
	}
	if c.CompactionThreads == 0 {
		c.CompactionThreads = DefaultCompactionThreads
	}
	if c.MemoryShare == 0 {
		c.MemoryShare = sysmem.Total()
	}
	if c.Storage.CacheSize == 0 {
		c.Storage.CacheSize = DefaultBlockCache(c.MemoryShare)
	}
	if c.Storage.MemTableSize == 0 {
		c.Storage.MemTableSize = DefaultMemstoreFlushSize
	}
	if c.ScannerLease == 0 {
		c.ScannerLease = 60 * time.Second
	}
	if c.LoadReportInterval == 0 {
		c.LoadReportInterval = 3 * time.Second
	}
	if c.MaxRequestSize == 0 {
		c.MaxRequestSize = 256 << 20
	}
	if c.SpaceReportPeriod == 0 {
		c.SpaceReportPeriod = 5 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	c.Split.EnsureDefaults()
	c.GC.EnsureDefaults()
	if c.HandlerCount == 0 {
		c.HandlerCount = DefaultHandlerCount
	}
	if c.HighPriorityHandlers == 0 {
		c.HighPriorityHandlers = DefaultHighPriorityHandlers
	}
}

// Validate reports every impossible setting.
func (c *Config) Validate() error {
	var errs []error
	if c.DataDir == "" {
		errs = append(errs, errors.New("regionserver: DataDir is empty"))
	}
	if c.Etcd == nil {
		errs = append(errs, errors.New("regionserver: no etcd client"))
	}
	if net.ParseIP(c.Bind) == nil {
		errs = append(errs, fmt.Errorf("regionserver: bind address %q is not an IP address", c.Bind))
	}
	if c.InfoPort > 65535 {
		errs = append(errs, fmt.Errorf("regionserver: info port %d out of range", c.InfoPort))
	}
	if c.Port < 0 || c.Port > 65535 {
		errs = append(errs, fmt.Errorf("regionserver: port %d out of range", c.Port))
	}
	if c.LeaseTTL < time.Second {
		errs = append(errs, fmt.Errorf("regionserver: LeaseTTL %v is below 1s", c.LeaseTTL))
	}
	if c.LoadReportInterval < 10*time.Millisecond {
		errs = append(errs, fmt.Errorf("regionserver: LoadReportInterval %v is below 10ms", c.LoadReportInterval))
	}
	if c.ScannerLease < time.Second {
		errs = append(errs, fmt.Errorf("regionserver: ScannerLease %v is below 1s", c.ScannerLease))
	}
	if c.QuotaMode != quota.ModeQueue && c.QuotaMode != quota.ModeReject {
		errs = append(errs, fmt.Errorf("regionserver: unknown QuotaMode %d", c.QuotaMode))
	}
	if c.CompactionThreads < 1 {
		errs = append(errs, fmt.Errorf("regionserver: CompactionThreads %d is below 1", c.CompactionThreads))
	}
	if c.QuotaMaxWait < 0 {
		errs = append(errs, fmt.Errorf("regionserver: QuotaMaxWait %v is negative", c.QuotaMaxWait))
	}
	if c.QuotaDefaultUser != nil {
		qc := quota.Config{DefaultUserThrottles: c.QuotaDefaultUser}
		qc.EnsureDefaults()
		if err := qc.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("regionserver: default user quota: %w", err))
		}
	}
	if c.SpaceReportPeriod < 10*time.Millisecond {
		errs = append(errs, fmt.Errorf("regionserver: SpaceReportPeriod %v is below 10ms", c.SpaceReportPeriod))
	}
	if c.MaxRequestSize < 1<<10 {
		errs = append(errs, fmt.Errorf("regionserver: MaxRequestSize %d is below 1 KiB", c.MaxRequestSize))
	}
	errs = append(errs, c.Split.Validate(), c.GC.Validate())
	return errors.Join(errs...)
}
