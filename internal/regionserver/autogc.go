package regionserver

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/region"
)

// GCConfig sets the automatic garbage pass (region.CollectGarbageAuto):
// Weir's stand-in for what HBase's flushes and minor compactions drop
// (versions beyond VERSIONS, expired and deleted cells), which Pebble's
// own compactions cannot.
type GCConfig struct {
	// CheckInterval is weir.regionserver.gc.check.interval: how often the
	// regions are checked for a due pass. Default 10 s; negative turns
	// automatic passes off (a major compaction still runs one).
	CheckInterval time.Duration
	// WriteRatio is weir.regionserver.gc.write.ratio: a pass is due once a
	// region has taken this multiple of its cells in writes since its last
	// pass, so a pass (a read of the region, and when it cleans a rewrite)
	// costs a bounded share of the write work: at 2, a few per cent of a
	// load of new rows, where a pass finds nothing. A region whose last
	// survey found its writes were new cells waits for twice as many,
	// up to eight times (region's gcState.surveyed). Default 2.
	WriteRatio float64
	// MinWrites is weir.regionserver.gc.min.writes: the least number of
	// written cells that make a pass due. Default 100,000.
	MinWrites uint64
	// ReadGarbage is weir.regionserver.gc.read.garbage: a pass is due once
	// the region's reads have stepped over dead versions in this many
	// columns while it read four rows for every key written since the
	// last pass (region.GCPolicy.ReadGarbage): a table read after an
	// update-heavy phase gets its rows cleaned and stored as images again.
	// Default 0: off. At 20,000, without the read-mostly condition, passes
	// ran all through YCSB's A and F; with it, they ran through E and the
	// F after it, and in 25 s phases they cost more than the reads saved
	// (docs/performance.md, "Row images").
	ReadGarbage uint64
	// GarbageRatio is weir.regionserver.gc.garbage.ratio: a due pass
	// deletes and compacts only when at least this fraction of the cells
	// it saw is garbage. Default 0.05.
	GarbageRatio float64
	// LooseRatio is weir.regionserver.gc.loose.ratio: a due pass also
	// cleans when the rows kept in a key per cell hold at least this
	// fraction of the cells it saw, so that a table loaded since and never
	// major-compacted gets its rows stored as images, once the region's
	// writes have stopped (region.GCPolicy.LooseRatio). Default 0.5.
	LooseRatio float64
}

// EnsureDefaults fills zero fields in.
func (c *GCConfig) EnsureDefaults() {
	if c.CheckInterval == 0 {
		c.CheckInterval = 10 * time.Second
	}
	if c.WriteRatio == 0 {
		c.WriteRatio = 2
	}
	if c.MinWrites == 0 {
		c.MinWrites = 100_000
	}
	if c.GarbageRatio == 0 {
		c.GarbageRatio = 0.05
	}
	if c.LooseRatio == 0 {
		c.LooseRatio = 0.5
	}
}

// Validate reports impossible settings.
func (c *GCConfig) Validate() error {
	if !(c.WriteRatio > 0) {
		return fmt.Errorf("regionserver: gc WriteRatio %v must be positive", c.WriteRatio)
	}
	if !(c.GarbageRatio > 0 && c.GarbageRatio <= 1) {
		return fmt.Errorf("regionserver: gc GarbageRatio %v outside (0, 1]", c.GarbageRatio)
	}
	if !(c.LooseRatio > 0 && c.LooseRatio <= 1) {
		return fmt.Errorf("regionserver: gc LooseRatio %v outside (0, 1]", c.LooseRatio)
	}
	return nil
}

func (c *GCConfig) policy() region.GCPolicy {
	return region.GCPolicy{WriteRatio: c.WriteRatio, MinWrites: c.MinWrites, ReadGarbage: c.ReadGarbage,
		GarbageRatio: c.GarbageRatio, LooseRatio: c.LooseRatio}
}

// gcMetrics count the automatic passes.
type gcMetrics struct {
	passes  *prometheus.CounterVec
	scanned prometheus.Counter
	dropped prometheus.Counter
}

func newGCMetrics(reg prometheus.Registerer) *gcMetrics {
	m := &gcMetrics{
		passes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "weir_gc_passes_total",
			Help: "Automatic garbage passes, by outcome: cleaned (garbage deleted, region compacted), surveyed (too little garbage to clean), probed (a sample of the rows written since the last pass read and found new, the region not read), stopped (a compaction of the region was asked for), failed."},
			[]string{"outcome"}),
		scanned: prometheus.NewCounter(prometheus.CounterOpts{Name: "weir_gc_cells_scanned_total",
			Help: "Cells the automatic garbage passes read."}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "weir_gc_cells_dropped_total",
			Help: "Dead cells the automatic garbage passes deleted."}),
	}
	reg.MustRegister(m.passes, m.scanned, m.dropped)
	return m
}

// autoPass is the automatic garbage pass under way, if any, so that a
// compaction asked for its region stops it: the compaction's own pass
// would clean the same rows side by side with it, each re-reading every
// row the other rewrote.
type autoPass struct {
	mu     sync.Mutex
	h      *hosted
	cancel context.CancelFunc
}

// start records a pass of h and returns the context it runs in.
func (a *autoPass) start(ctx context.Context, h *hosted) context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	ctx, a.cancel = context.WithCancel(ctx)
	a.h = h
	return ctx
}

// end records the pass's end.
func (a *autoPass) end() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cancel()
	a.h, a.cancel = nil, nil
}

// stop stops the pass if it is h's.
func (a *autoPass) stop(h *hosted) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.h == h {
		a.cancel()
	}
}

// gcLoop runs the due garbage passes, one region at a time, every
// CheckInterval until ctx ends.
func (rs *RegionServer) gcLoop(ctx context.Context) {
	t := time.NewTicker(rs.cfg.GC.CheckInterval)
	defer t.Stop()
	p := rs.cfg.GC.policy()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, h := range rs.regions.all() {
			if ctx.Err() != nil {
				return
			}
			// A compaction asked for runs a pass of its own (a major one)
			// or is about to rewrite the range (a minor one): the two
			// would clean the same rows side by side.
			if rs.compactor.state(h) != hbasepb.GetRegionInfoResponse_NONE || !h.r.GCDue(p) {
				continue
			}
			_, enc := h.rec.Name()
			start := time.Now()
			pctx := rs.gcPass.start(ctx, h)
			p.ReplacePath = ""
			if path, err := rs.tmpPath("gc"); err == nil {
				p.ReplacePath = path
			} else {
				rs.log.Warn("regionserver: garbage pass goes row by row: no temporary file", "err", err)
			}
			st, cleaned, err := h.r.CollectGarbageAuto(pctx, p)
			stopped := pctx.Err() != nil && ctx.Err() == nil
			rs.gcPass.end()
			rs.metrics.gc.scanned.Add(float64(st.CellsScanned))
			rs.metrics.gc.dropped.Add(float64(st.CellsDropped))
			switch {
			case stopped:
				rs.metrics.gc.passes.WithLabelValues("stopped").Inc()
				rs.log.Info("regionserver: garbage pass stopped for a compaction asked for", "region", enc)
			case err != nil:
				rs.metrics.gc.passes.WithLabelValues("failed").Inc()
				if ctx.Err() == nil {
					rs.log.Warn("regionserver: garbage pass failed", "region", enc, "err", err)
				}
			case st.Probed:
				rs.metrics.gc.passes.WithLabelValues("probed").Inc()
			case cleaned:
				rs.metrics.gc.passes.WithLabelValues("cleaned").Inc()
				rs.log.Info("regionserver: garbage pass cleaned a region", "region", enc,
					"cells", st.CellsScanned, "dropped", st.CellsDropped, "took", time.Since(start))
			default:
				rs.metrics.gc.passes.WithLabelValues("surveyed").Inc()
			}
		}
	}
}
