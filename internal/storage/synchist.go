package storage

import (
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// fsyncBounds are the WAL fsync histogram's bucket bounds: Pebble's own
// (FsyncLatencyBuckets: 0.1 ms steps to 5 ms, then exponential to 10 s)
// thinned to bounds at least 1.5× apart, which is detail enough for a
// dashboard at a fifth of the series.
var fsyncBounds = func() []time.Duration {
	var out []time.Duration
	var last float64
	for _, ub := range pebble.FsyncLatencyBuckets {
		if ub <= 0 || (last > 0 && ub < 1.5*last) {
			continue
		}
		last = ub
		out = append(out, time.Duration(ub))
	}
	return out
}()

// syncHistogram counts fsync latencies into fsyncBounds, lock-free.
type syncHistogram struct {
	count atomic.Uint64
	sum   atomic.Int64 // nanoseconds
	// le[i] counts the observations in (fsyncBounds[i-1], fsyncBounds[i]];
	// the ones above the last bound count in count alone.
	le []atomic.Uint64
}

func newSyncHistogram() *syncHistogram {
	return &syncHistogram{le: make([]atomic.Uint64, len(fsyncBounds))}
}

func (h *syncHistogram) observe(d time.Duration) {
	for i, ub := range fsyncBounds {
		if d <= ub {
			h.le[i].Add(1)
			break
		}
	}
	h.sum.Add(int64(d))
	h.count.Add(1)
}

// snapshot returns the cumulative histogram. Observations racing with it
// may show in some fields and not others.
func (h *syncHistogram) snapshot() Histogram {
	out := Histogram{Count: h.count.Load(), Sum: time.Duration(h.sum.Load()), Buckets: make([]Bucket, len(fsyncBounds))}
	var cum uint64
	for i, ub := range fsyncBounds {
		cum += h.le[i].Load()
		out.Buckets[i] = Bucket{UpperBound: ub, Count: cum}
	}
	return out
}
