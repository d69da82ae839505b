package regionserver

import (
	"context"
	"slices"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/region"
)

// rateSmoothing is the weight of the newest interval in a region's
// reported rates (an exponential moving average). At a quarter, a rate
// holds about seven intervals' worth of requests (HBase's balancer
// averages the last 15 reports): at half it held three, and on a slow
// machine a 30-region zipfian table's per-region rates were noisy enough
// that the plan balanced the noise of writes against reads and left a
// host's reads 12% from the mean. A shift in load still shows within a
// few reports.
const rateSmoothing = 0.25

// loadSample is what the reporter remembers of a region between reports.
type loadSample struct {
	r             *region.Region // the open instance the counts belong to
	taken         time.Time      // when reads and writes were read
	reads, writes uint64
	readsPerSec   float64
	writesPerSec  float64
	primed        bool // the rates hold a measurement
}

func (s *loadSample) at() time.Time {
	if s == nil {
		return time.Time{}
	}
	return s.taken
}

// kickLoad asks for a load report now (coalescing): the master counts a
// region as in transition until a report lists it open, so a report right
// after each open and close keeps that window to milliseconds.
func (rs *RegionServer) kickLoad() {
	select {
	case rs.loadKick <- struct{}{}:
	default:
	}
}

// loadReporter measures the open regions' request rates and sizes and
// writes them to etcd for the master's balancer. Only its goroutine uses
// it.
type loadReporter struct {
	rs      *RegionServer
	lease   clientv3.LeaseID
	samples map[string]*loadSample // by encoded region name
	// written is the last report written to etcd, at writtenAt.
	written   meta.LoadReport
	writtenAt time.Time
}

// reportLoad writes a load report every LoadReportInterval until ctx ends,
// under a lease of its own that lapses after three missed reports, so a
// dead server's load disappears with it; Close revokes it.
func (rs *RegionServer) reportLoad(ctx context.Context) {
	lr := &loadReporter{rs: rs, samples: map[string]*loadSample{}}
	tick := time.NewTicker(rs.cfg.LoadReportInterval)
	defer tick.Stop()
	defer func() {
		if lr.lease != 0 {
			rctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_, _ = rs.cfg.Etcd.Revoke(rctx, lr.lease)
			cancel()
		}
	}()
	for {
		if err := lr.report(ctx, time.Now()); err != nil && ctx.Err() == nil {
			rs.log.Warn("regionserver: load report failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-rs.loadKick:
		}
	}
}

// report measures and writes one report.
func (lr *loadReporter) report(ctx context.Context, now time.Time) error {
	rs := lr.rs
	rep := lr.measure(now)
	if lr.lease != 0 {
		if _, err := rs.cfg.Etcd.KeepAliveOnce(ctx, lr.lease); err != nil {
			lr.lease = 0 // expired (etcd unreachable too long): take a new one
		}
	}
	if lr.lease != 0 && !lr.news(rep, now) {
		return nil
	}
	if lr.lease == 0 {
		ttl := max(3*rs.cfg.LoadReportInterval, rs.cfg.LeaseTTL)
		g, err := rs.cfg.Etcd.Grant(ctx, int64(max(ttl/time.Second, 1)))
		if err != nil {
			return err
		}
		lr.lease = g.ID
	}
	if err := rs.catalog.PutLoad(ctx, rep, lr.lease); err != nil {
		return err
	}
	lr.written, lr.writtenAt = rep, now
	return nil
}

// Thresholds below which a report repeats the last one written: every
// write is an etcd revision kept for the compaction retention (1 h), so a
// steady server writes only every reportRefresh intervals.
const (
	reportRefresh  = 10
	rateChange     = 0.1     // relative
	rateChangeAbs  = 1.0     // per second
	bytesChangeAbs = 1 << 20 // bytes, with rateChange relative
)

// news reports whether rep differs enough from the last report written
// (regions opened or closed, a rate or size changed by more than 10%) or
// that one is reportRefresh intervals old.
func (lr *loadReporter) news(rep meta.LoadReport, now time.Time) bool {
	old := lr.written
	if now.Sub(lr.writtenAt) >= reportRefresh*lr.rs.cfg.LoadReportInterval || len(old.Regions) != len(rep.Regions) {
		return true
	}
	moved := func(a, b, abs float64) bool {
		d := a - b
		return max(d, -d) > max(rateChange*max(a, b), abs)
	}
	for i, r := range rep.Regions {
		o := old.Regions[i]
		if o.Name != r.Name || moved(o.ReadsPerSec, r.ReadsPerSec, rateChangeAbs) ||
			moved(o.WritesPerSec, r.WritesPerSec, rateChangeAbs) || moved(float64(o.Bytes), float64(r.Bytes), bytesChangeAbs) {
			return true
		}
	}
	return false
}

// measure takes the counts and sizes of the open regions and turns the
// counts into smoothed rates.
func (lr *loadReporter) measure(now time.Time) meta.LoadReport {
	rs := lr.rs
	rep := meta.LoadReport{Addr: rs.addr, StoreID: rs.storeID, HostID: rs.cfg.HostID, TimeMs: now.UnixMilli(),
		IntervalMs: rs.cfg.LoadReportInterval.Milliseconds(), Regions: []meta.RegionLoad{}}
	seen := map[string]bool{}
	for _, h := range rs.regions.all() {
		_, enc := h.rec.Name()
		seen[enc] = true
		reads, writes := h.r.RequestCounts()
		rl := meta.RegionLoad{Name: enc, Table: h.rec.Table.Full(), ReadRequests: reads, WriteRequests: writes}
		if size, err := h.r.Size(); err == nil {
			rl.Bytes = size
		}
		s := lr.samples[enc]
		// Rates are measured over at least half an interval: a report
		// kicked by an open or close keeps the rates of the last full one.
		switch elapsed := now.Sub(s.at()); {
		case s == nil || s.r != h.r:
			// Newly opened (or reopened): its counts start now.
			s = &loadSample{r: h.r, taken: now, reads: reads, writes: writes}
			lr.samples[enc] = s
		case elapsed >= rs.cfg.LoadReportInterval/2:
			rr := float64(reads-s.reads) / elapsed.Seconds()
			wr := float64(writes-s.writes) / elapsed.Seconds()
			if s.primed {
				rr = rateSmoothing*rr + (1-rateSmoothing)*s.readsPerSec
				wr = rateSmoothing*wr + (1-rateSmoothing)*s.writesPerSec
			}
			s.readsPerSec, s.writesPerSec, s.primed = rr, wr, true
			s.taken, s.reads, s.writes = now, reads, writes
		}
		rl.ReadsPerSec, rl.WritesPerSec = s.readsPerSec, s.writesPerSec
		rep.Regions = append(rep.Regions, rl)
	}
	for enc := range lr.samples {
		if !seen[enc] {
			delete(lr.samples, enc)
		}
	}
	slices.SortFunc(rep.Regions, func(a, b meta.RegionLoad) int { return strings.Compare(a.Name, b.Name) })
	return rep
}
