package regionserver

import (
	"bytes"
	"cmp"
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/storage"
)

// compactor runs the compactions AdminService.CompactRegion asks for in
// the background, in the order asked, up to threads at a time and never
// two of one region. HBase's CompactRegion queues the compaction and
// returns, and its shell's `major_compact` with it: a caller that needs
// to know when it is done polls GetRegionInfo's compaction_state (the
// shell's `compaction_state`). Run in the call instead, a major
// compaction of a large table outlasted the client's operation timeout,
// which cancelled it half done.
//
// A job has two steps: a major compaction's garbage pass
// (region.MajorGarbagePass), then the compaction of the region's key
// range down to the bottom level; a pass that replaced the region's keys
// with one file at the bottom level (a region no one wrote to meanwhile)
// ends the job. The range compactions wait while any
// pass is queued or running, and then the ranges of adjacent regions are
// compacted as one. The regions share one LSM whose files straddle region
// boundaries: compacting each region's range right after its pass also
// rewrote files reaching into the regions whose passes were still to
// come, and a 200,000-row table's major compaction wrote 508-524 MB
// where one compaction after all the passes writes 419 MB
// (docs/performance.md, "A table's major compaction in one range").
type compactor struct {
	log     *slog.Logger
	metrics *compactionMetrics
	threads int
	// pass, span and compactSpan are a job's garbage pass, its region's
	// key span and the compaction of a span; tests replace them.
	pass        func(context.Context, *hosted) (replaced bool, err error)
	span        func(*hosted) (lower, upper []byte)
	compactSpan func(ctx context.Context, lower, upper []byte) error
	// wake tells the workers that there may be work: a job queued, a
	// pass ended (its range compaction may run now), a region's job ended
	// (a job of the same region waiting for it may start).
	wake chan struct{}
	mu   struct {
		sync.Mutex
		// queue holds the regions waiting, oldest first; a region is in it
		// at most once, its request the union of those made while it
		// waited (a major one takes a minor one along).
		queue []*compactJob
		// running holds the jobs whose pass or range compaction is under
		// way.
		running []*compactJob
		// passed holds the jobs whose pass is done (or that have none)
		// and whose range compaction waits for the other passes.
		passed []*compactJob
	}
}

type compactJob struct {
	h     *hosted
	major bool
	// passed: the job's pass is done, or it has none; what is left is
	// the range compaction.
	passed bool
	start  time.Time
	// ctx is what the job runs in; cancel stops it (its region closing).
	ctx    context.Context
	cancel context.CancelFunc
}

// newCompactor makes the compactor; tmpPath names a temporary file for a
// pass that replaces its region's keys with one file.
func newCompactor(log *slog.Logger, m *compactionMetrics, threads int, store *storage.Engine,
	tmpPath func(kind string) (string, error)) *compactor {
	return &compactor{log: log, metrics: m, threads: threads, wake: make(chan struct{}, threads),
		pass: func(ctx context.Context, h *hosted) (bool, error) {
			path, err := tmpPath("major")
			if err != nil {
				return false, err
			}
			return h.r.MajorGarbagePass(ctx, path)
		},
		span:        func(h *hosted) ([]byte, []byte) { return h.r.KeySpan() },
		compactSpan: store.Compact,
	}
}

// signal wakes a waiting worker, if any.
func (c *compactor) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
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
	c.signal()
}

// state is h's compaction state as HBase reports it: what runs and what
// waits. HBase's states are flags (MINOR 1, MAJOR 2, MAJOR_AND_MINOR
// both), so the kinds seen are or-ed together.
func (c *compactor) state(h *hosted) hbasepb.GetRegionInfoResponse_CompactionState {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := hbasepb.GetRegionInfoResponse_NONE
	for _, jobs := range [][]*compactJob{c.mu.running, c.mu.passed, c.mu.queue} {
		for _, j := range jobs {
			switch {
			case j.h != h:
			case j.major:
				st |= hbasepb.GetRegionInfoResponse_MAJOR
			default:
				st |= hbasepb.GetRegionInfoResponse_MINOR
			}
		}
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
	for _, j := range c.mu.running {
		if j.h == h {
			j.cancel()
		}
	}
	c.mu.passed = slices.DeleteFunc(c.mu.passed, func(j *compactJob) bool {
		if j.h != h {
			return false
		}
		j.cancel()
		c.metrics.done.WithLabelValues(j.kind(), "stopped").Inc()
		return true
	})
}

// run starts the workers, which work through the queue until ctx ends.
func (c *compactor) run(ctx context.Context) {
	var wg sync.WaitGroup
	for range c.threads {
		wg.Go(func() { c.work(ctx) })
	}
	wg.Wait()
}

func (c *compactor) work(ctx context.Context) {
	for {
		jobs := c.next(ctx)
		switch {
		case jobs == nil:
			return
		case jobs[0].passed:
			c.compactRanges(ctx, jobs)
		default:
			c.runPass(jobs[0])
		}
	}
}

// next waits for work and marks it running: a queued job whose region
// has none under way (its pass is next), or, once no pass is queued or
// running, every job waiting for its range compaction. It returns nil
// once ctx ends.
func (c *compactor) next(ctx context.Context) []*compactJob {
	for {
		c.mu.Lock()
		if ctx.Err() == nil {
			if jobs := c.takeLocked(ctx); jobs != nil {
				c.mu.Unlock()
				return jobs
			}
		}
		c.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil
		case <-c.wake:
		}
	}
}

func (c *compactor) takeLocked(ctx context.Context) []*compactJob {
	busy := func(j *compactJob) bool {
		same := func(o *compactJob) bool { return o.h == j.h }
		return slices.ContainsFunc(c.mu.running, same) || slices.ContainsFunc(c.mu.passed, same)
	}
	for i, j := range c.mu.queue {
		if busy(j) {
			continue
		}
		c.mu.queue = slices.Delete(c.mu.queue, i, i+1)
		j.start = time.Now()
		j.ctx, j.cancel = context.WithCancel(ctx)
		c.mu.running = append(c.mu.running, j)
		return []*compactJob{j}
	}
	// No queued job can start: the range compactions may run unless a
	// pass still does.
	if len(c.mu.passed) == 0 || slices.ContainsFunc(c.mu.running, func(j *compactJob) bool { return !j.passed }) {
		return nil
	}
	jobs := c.mu.passed
	c.mu.passed = nil
	c.mu.running = append(c.mu.running, jobs...)
	return jobs
}

// runPass runs j's garbage pass (none for a minor compaction), after
// which j waits for its range compaction.
func (c *compactor) runPass(j *compactJob) {
	if j.major {
		replaced, err := c.pass(j.ctx, j.h)
		if err != nil || replaced {
			// A replaced region's keys are one file at the bottom already.
			c.done(j, err)
			return
		}
	}
	c.mu.Lock()
	j.passed = true
	c.dropRunningLocked(j)
	c.mu.passed = append(c.mu.passed, j)
	c.mu.Unlock()
	c.signal()
}

func (c *compactor) dropRunningLocked(j *compactJob) {
	c.mu.running = slices.DeleteFunc(c.mu.running, func(r *compactJob) bool { return r == j })
}

// compactRanges compacts the key spans of jobs, those of adjacent regions
// as one span, and finishes the jobs. A job whose region closes meanwhile
// ends stopped; its span is compacted anyway, which changes no result.
func (c *compactor) compactRanges(ctx context.Context, jobs []*compactJob) {
	type group struct {
		lower, upper []byte
		jobs         []*compactJob
	}
	var groups []*group
	slices.SortFunc(jobs, func(a, b *compactJob) int {
		la, _ := c.span(a.h)
		lb, _ := c.span(b.h)
		return bytes.Compare(la, lb)
	})
	for _, j := range jobs {
		lo, hi := c.span(j.h)
		if n := len(groups); n > 0 && bytes.Equal(groups[n-1].upper, lo) {
			groups[n-1].upper = hi
			groups[n-1].jobs = append(groups[n-1].jobs, j)
			continue
		}
		groups = append(groups, &group{lower: lo, upper: hi, jobs: []*compactJob{j}})
	}
	for _, g := range groups {
		err := c.compactSpan(ctx, g.lower, g.upper)
		for _, j := range g.jobs {
			c.done(j, err)
		}
	}
}

// done ends j, which was running: the signal lets a job of j's region
// that waited for it start.
func (c *compactor) done(j *compactJob, err error) {
	c.mu.Lock()
	c.dropRunningLocked(j)
	c.mu.Unlock()
	c.signal()
	c.finish(j, err)
}

func (j *compactJob) kind() string {
	if j.major {
		return "major"
	}
	return "minor"
}

func (c *compactor) finish(j *compactJob, err error) {
	kind := j.kind()
	_, enc := j.h.rec.Name()
	outcome := "done"
	switch {
	case j.ctx.Err() != nil:
		outcome = "stopped"
		c.log.Info("regionserver: compaction stopped", "region", enc, "kind", kind, "err", cmp.Or(err, j.ctx.Err()))
	case err == nil:
		c.log.Info("regionserver: compacted region", "region", enc, "kind", kind, "took", time.Since(j.start))
	default:
		outcome = "failed"
		c.log.Warn("regionserver: compaction failed", "region", enc, "kind", kind, "err", err)
	}
	j.cancel()
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
