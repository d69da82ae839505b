package regionserver

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/weirdb/weir/internal/hbasepb"
)

// compactor runs the compactions AdminService.CompactRegion asks for in
// the background, one region at a time, in the order asked. HBase's
// CompactRegion queues the compaction and returns, and its shell's
// `major_compact` with it: a caller that needs to know when it is done
// polls GetRegionInfo's compaction_state (the shell's `compaction_state`).
// Run in the call instead, a major compaction of a large table outlasted
// the client's operation timeout, which cancelled it half done.
type compactor struct {
	log     *slog.Logger
	metrics *compactionMetrics
	wake    chan struct{}
	mu      struct {
		sync.Mutex
		// queue holds the regions waiting, oldest first; a region is in it
		// at most once, its request the union of those made while it
		// waited (a major one takes a minor one along).
		queue []*compactJob
		// running is the job under way, nil if none.
		running *compactJob
	}
}

type compactJob struct {
	h     *hosted
	major bool
	// cancel stops the job while it runs (its region closing).
	cancel context.CancelFunc
}

func newCompactor(log *slog.Logger, m *compactionMetrics) *compactor {
	return &compactor{log: log, metrics: m, wake: make(chan struct{}, 1)}
}

// request queues a compaction of h (major: with its garbage pass).
func (c *compactor) request(h *hosted, major bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, j := range c.mu.queue {
		if j.h == h {
			j.major = j.major || major
			return
		}
	}
	c.mu.queue = append(c.mu.queue, &compactJob{h: h, major: major})
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// state is h's compaction state as HBase reports it: what runs and what
// waits. HBase's states are flags (MINOR 1, MAJOR 2, MAJOR_AND_MINOR
// both), so the kinds seen are or-ed together.
func (c *compactor) state(h *hosted) hbasepb.GetRegionInfoResponse_CompactionState {
	c.mu.Lock()
	defer c.mu.Unlock()
	kind := func(j *compactJob) hbasepb.GetRegionInfoResponse_CompactionState {
		switch {
		case j == nil || j.h != h:
			return hbasepb.GetRegionInfoResponse_NONE
		case j.major:
			return hbasepb.GetRegionInfoResponse_MAJOR
		}
		return hbasepb.GetRegionInfoResponse_MINOR
	}
	st := kind(c.mu.running)
	for _, j := range c.mu.queue {
		st |= kind(j)
	}
	return st
}

// forget drops h's waiting compaction and stops its running one, for a
// region about to close: as HBase's close interrupts a compaction, a move
// or a split does not wait for a major compaction of the region.
func (c *compactor) forget(h *hosted) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mu.queue = slices.DeleteFunc(c.mu.queue, func(j *compactJob) bool { return j.h == h })
	if j := c.mu.running; j != nil && j.h == h {
		j.cancel()
	}
}

// run works through the queue until ctx ends.
func (c *compactor) run(ctx context.Context) {
	for {
		j, jctx := c.next(ctx)
		if j == nil {
			return
		}
		c.compact(jctx, j)
		j.cancel()
	}
}

// next waits for a job and marks it running, with the context it runs
// in; nil once ctx ends.
func (c *compactor) next(ctx context.Context) (*compactJob, context.Context) {
	for {
		c.mu.Lock()
		if len(c.mu.queue) > 0 && ctx.Err() == nil {
			j := c.mu.queue[0]
			c.mu.queue = slices.Delete(c.mu.queue, 0, 1)
			var jctx context.Context
			jctx, j.cancel = context.WithCancel(ctx)
			c.mu.running = j
			c.mu.Unlock()
			return j, jctx
		}
		c.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, nil
		case <-c.wake:
		}
	}
}

func (c *compactor) compact(jctx context.Context, j *compactJob) {
	kind := "minor"
	if j.major {
		kind = "major"
	}
	_, enc := j.h.rec.Name()
	start := time.Now()
	err := j.h.r.Compact(jctx, j.major)
	c.mu.Lock()
	c.mu.running = nil
	c.mu.Unlock()
	outcome := "done"
	switch {
	case err == nil:
		c.log.Info("regionserver: compacted region", "region", enc, "kind", kind, "took", time.Since(start))
	case jctx.Err() != nil:
		outcome = "stopped"
		c.log.Info("regionserver: compaction stopped", "region", enc, "kind", kind, "err", err)
	default:
		outcome = "failed"
		c.log.Warn("regionserver: compaction failed", "region", enc, "kind", kind, "err", err)
	}
	c.metrics.done.WithLabelValues(kind, outcome).Inc()
}

// compactionMetrics count the compactions asked for through CompactRegion.
type compactionMetrics struct {
	done *prometheus.CounterVec
}

func newCompactionMetrics(reg prometheus.Registerer) *compactionMetrics {
	m := &compactionMetrics{done: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "weir_compactions_total",
		Help: "Compactions asked for through CompactRegion, by kind (major, minor) and outcome: done, failed, stopped (the region closed or the server stopped)."},
		[]string{"kind", "outcome"})}
	reg.MustRegister(m.done)
	return m
}
