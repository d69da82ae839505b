package bench

import (
	"sync"
	"sync/atomic"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Status is an operation's outcome, as YCSB's Return= codes.
type Status uint8

const (
	StatusOK Status = iota
	StatusNotFound
	StatusError
	// StatusUnexpected is a read whose values are not the ones written
	// (dataintegrity=true's VERIFY).
	StatusUnexpected
	numStatus
)

var statusNames = [numStatus]string{"OK", "NOT_FOUND", "ERROR", "UNEXPECTED_STATE"}

func (s Status) String() string { return statusNames[s] }

// maxLatencyUs is the histograms' ceiling (one hour); slower operations
// are clamped to it.
const maxLatencyUs = 3_600_000_000

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(1, maxLatencyUs, 3) }

// threadStats is one worker's measurements. Only its worker writes it; the
// lock is uncontended except when the status reporter takes a snapshot.
type threadStats struct {
	mu   sync.Mutex
	hist [numOps]*hdrhistogram.Histogram
	// intended holds the latencies from each operation's intended start
	// (measurement.interval=intended or both); nil otherwise.
	intended *[numOps]*hdrhistogram.Histogram
	counts   [numOps][numStatus]int64
	ops      atomic.Int64 // operations done, for progress
	// base is ops when the warm-up ended (guarded by mu): the report
	// counts the operations after it.
	base int64
}

// reset drops what was measured so far (the end of a warm-up).
func (s *threadStats) reset() {
	s.mu.Lock()
	for i := range s.hist {
		s.hist[i].Reset()
		if s.intended != nil {
			s.intended[i].Reset()
		}
	}
	s.counts = [numOps][numStatus]int64{}
	s.base = s.ops.Load()
	s.mu.Unlock()
}

// measuredOps is the operations done since the warm-up.
func (s *threadStats) measuredOps() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ops.Load() - s.base
}

func newThreadStats(intended bool) *threadStats {
	s := &threadStats{}
	for i := range s.hist {
		s.hist[i] = newHist()
	}
	if intended {
		s.intended = new([numOps]*hdrhistogram.Histogram)
		for i := range s.intended {
			s.intended[i] = newHist()
		}
	}
	return s
}

// record counts an operation's outcome and latency, and its latency from
// its intended start (ius; used when s keeps intended latencies).
func (s *threadStats) record(op int, st Status, us, ius int64) {
	us, ius = min(us, maxLatencyUs), min(ius, maxLatencyUs)
	s.mu.Lock()
	_ = s.hist[op].RecordValue(us)
	if s.intended != nil {
		_ = s.intended[op].RecordValue(ius)
	}
	s.counts[op][st]++
	s.mu.Unlock()
}

// merged sums the threads' measurements: latencies from the actual
// start, or from the intended one.
func merged(stats []*threadStats, intended bool) (h [numOps]*hdrhistogram.Histogram, c [numOps][numStatus]int64) {
	for i := range h {
		h[i] = newHist()
	}
	for _, s := range stats {
		s.mu.Lock()
		for op := range h {
			if intended {
				h[op].Merge(s.intended[op])
			} else {
				h[op].Merge(s.hist[op])
			}
			for st := range c[op] {
				c[op][st] += s.counts[op][st]
			}
		}
		s.mu.Unlock()
	}
	return h, c
}
