package webui

import "time"

// Rates are request rates per second over the last interval, from the
// ClientService call counters: Get is a read, Mutate a write, Scan a scan
// (each scanner call, open and next), Multi a batch of any mix.
type Rates struct {
	Total float64 `json:"total"`
	Read  float64 `json:"read"`
	Write float64 `json:"write"`
	Scan  float64 `json:"scan"`
	Multi float64 `json:"multi"`
}

// Figures are a server's cumulative counters and current gauges, read from
// its Prometheus registry (see FiguresFrom): the UI and /metrics agree.
type Figures struct {
	// Calls are ClientService calls by method since start.
	Calls       map[string]float64 `json:"calls"`
	Conns       float64            `json:"conns"`
	InFlight    float64            `json:"in_flight"`
	Outstanding float64            `json:"outstanding"`
	WriteQueue  float64            `json:"write_queue"`
	RSSBytes    float64            `json:"rss_bytes"`
	HeapBytes   float64            `json:"heap_bytes"`
	CPUSeconds  float64            `json:"cpu_seconds"`
	Goroutines  float64            `json:"goroutines"`
	Store       StoreFigures       `json:"-"` // in ServerStatus.Store
}

// StoreFigures are the Pebble store's figures (weir_storage_*).
type StoreFigures struct {
	MemtableBytes         float64 `json:"memtable_bytes"`
	Memtables             float64 `json:"memtables"`
	ReadAmp               float64 `json:"read_amp"`
	L0Files               float64 `json:"l0_files"`
	SSTables              float64 `json:"sstables"`
	DiskBytes             float64 `json:"disk_bytes"`
	Flushes               float64 `json:"flushes"`
	Compactions           float64 `json:"compactions"`
	CompactionsInProgress float64 `json:"compactions_in_progress"`
	CompactionDebtBytes   float64 `json:"compaction_debt_bytes"`
	BlockCacheBytes       float64 `json:"block_cache_bytes"`
	BlockCacheHits        float64 `json:"block_cache_hits"`
	BlockCacheMisses      float64 `json:"block_cache_misses"`
	WALFsyncs             float64 `json:"wal_fsyncs"`
	WALFsyncSeconds       float64 `json:"wal_fsync_seconds"`
}

// QuotaRow is one throttle of one subject as the UI shows it: the limit as
// set and, when a usage source is wired in (Live), what the subject
// consumes against it.
type QuotaRow struct {
	Subject string `json:"subject"` // "user alice", "table ns:t", "namespace ns", "region server"
	Type    string `json:"type"`    // HBase's ThrottleType name, e.g. REQUEST_NUMBER
	Limit   string `json:"limit"`   // as set, e.g. "100req/sec"
	Scope   string `json:"scope"`   // MACHINE or CLUSTER
	// LimitPerSec is the limit in Unit per second on this server (on the
	// master: summed over the servers); 0 when not known.
	LimitPerSec float64 `json:"limit_per_sec"`
	Unit        string  `json:"unit"` // req, B, CU or ms
	// Live is false when only the settings are known: the fields below
	// are then zero.
	Live        bool    `json:"live"`
	Rate        float64 `json:"rate"`     // Unit per second consumed recently
	Queued      int64   `json:"queued"`   // requests held now waiting for tokens
	Rejected    uint64  `json:"rejected"` // requests refused since the limiter was made
	WaitSeconds float64 `json:"wait_seconds"`
}

// Key names the row's subject and type, the identity of a chart series.
func (q *QuotaRow) Key() string { return q.Subject + " " + q.Type }

// QuotaSource lists a server's quota rows. QuotaRows runs on the UI's
// sampling goroutine once per interval; it must read snapshots and return
// quickly (never wait for a request).
type QuotaSource interface {
	QuotaRows(now time.Time) []QuotaRow
}

// QuotaFunc adapts a function to QuotaSource.
type QuotaFunc func(now time.Time) []QuotaRow

// QuotaRows calls f(now).
func (f QuotaFunc) QuotaRows(now time.Time) []QuotaRow { return f(now) }

// RegionSample is one open region as its server reports it.
type RegionSample struct {
	Name     string `json:"name"`    // HBase region name
	Encoded  string `json:"encoded"` // HBase encoded region name
	Table    string `json:"table"`
	StartKey string `json:"start_key"` // printable (HBase's Bytes.toStringBinary)
	EndKey   string `json:"end_key"`
	// SizeBytes is Pebble's on-disk estimate of the region's range.
	SizeBytes uint64 `json:"size_bytes"`
	// Calls counts ClientService calls that named the region since it
	// opened here.
	Calls uint64 `json:"calls"`
}

// ServerSample is what a region server hands its UI each interval.
type ServerSample struct {
	Addr      string
	HostID    string
	Instance  int
	StartTime time.Time
	QuotaMode string // "queue", "reject" or "disabled"
	Figures   Figures
	Regions   []RegionSample
	Quotas    []QuotaRow
}

// Point is one sample of a rate chart: unix ms and request rates.
type Point struct {
	T int64 `json:"t"`
	Rates
}

// QuotaPoint is one sample of the quota chart: each row's rate by Key.
type QuotaPoint struct {
	T     int64              `json:"t"`
	Rates map[string]float64 `json:"rates"`
}

// RegionStatus is a RegionSample with its call rate.
type RegionStatus struct {
	RegionSample
	Rate float64 `json:"rate"` // calls per second over the last interval
}

// StoreStatus is the store's figures with rates over the last interval.
type StoreStatus struct {
	StoreFigures
	// BlockCacheHitRatio is hits / lookups over the last interval (since
	// open when the interval saw no lookup).
	BlockCacheHitRatio float64 `json:"block_cache_hit_ratio"`
	// WALFsyncMeanMs is the mean fsync latency over the last interval.
	WALFsyncMeanMs float64 `json:"wal_fsync_mean_ms"`
	WALFsyncRate   float64 `json:"wal_fsync_rate"`
}

// ServerStatus is a region server's /api/status.
type ServerStatus struct {
	Seq       uint64         `json:"seq"`
	Time      time.Time      `json:"time"`
	Version   string         `json:"version"`
	Addr      string         `json:"addr"`
	HostID    string         `json:"host_id"`
	Instance  int            `json:"instance"`
	StartTime time.Time      `json:"start_time"`
	Uptime    string         `json:"uptime"`
	QuotaMode string         `json:"quota_mode"`
	Rates     Rates          `json:"rates"`
	CPU       float64        `json:"cpu"` // cores used over the last interval
	Figures   Figures        `json:"figures"`
	Store     StoreStatus    `json:"store"`
	Regions   []RegionStatus `json:"regions"`
	Quotas    []QuotaRow     `json:"quotas"`
	History   []Point        `json:"history"`
	QuotaHist []QuotaPoint   `json:"quota_history"`
}
