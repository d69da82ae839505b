package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestReportFormat(t *testing.T) {
	s := &runState{phase: "run", w: &Workload{MeasureInterval: "op"}, stats: []*threadStats{newThreadStats(false), newThreadStats(false)}}
	for i, us := range []int64{100, 200, 300, 400} {
		s.stats[i%2].record(OpRead, StatusOK, us, us)
		s.stats[i%2].ops.Add(1)
	}
	s.stats[0].record(OpUpdate, StatusOK, 50, 50)
	s.stats[1].record(OpUpdate, StatusError, 70, 70)
	s.stats[0].ops.Add(2)
	rep := s.buildReport(2_000_000_000) // 2 s
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `[OVERALL], RunTime(ms), 2000
[OVERALL], Throughput(ops/sec), 3
[READ], Operations, 4
[READ], AverageLatency(us), 250
[READ], MinLatency(us), 100
[READ], MaxLatency(us), 400
[READ], 50thPercentileLatency(us), 200
[READ], 95thPercentileLatency(us), 400
[READ], 99thPercentileLatency(us), 400
[READ], 99.9PercentileLatency(us), 400
[READ], Return=OK, 4
[UPDATE], Operations, 2
[UPDATE], AverageLatency(us), 60
[UPDATE], MinLatency(us), 50
[UPDATE], MaxLatency(us), 70
[UPDATE], 50thPercentileLatency(us), 50
[UPDATE], 95thPercentileLatency(us), 70
[UPDATE], 99thPercentileLatency(us), 70
[UPDATE], 99.9PercentileLatency(us), 70
[UPDATE], Return=OK, 1
[UPDATE], Return=ERROR, 1
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Operations != 6 || len(back.Ops) != 2 || back.Ops[1].Returns["ERROR"] != 1 || back.Ops[0].P50Us != 200 {
		t.Errorf("JSON round trip: %+v", back)
	}
}

// TestReportIntendedAndPercentiles: measurement.interval=both adds
// Intended- sections, timed from when each operation was due; intended
// alone times the usual sections so, as YCSB does; hdrhistogram.percentiles
// replaces the fixed percentile lines with YCSB's names for the ones asked
// for.
func TestReportIntendedAndPercentiles(t *testing.T) {
	for _, tc := range []struct {
		mode string
		want string
	}{
		{"both", `[OVERALL], RunTime(ms), 1000
[OVERALL], Throughput(ops/sec), 2
[READ], Operations, 2
[READ], AverageLatency(us), 150
[READ], MinLatency(us), 100
[READ], MaxLatency(us), 200
[READ], 1stPercentileLatency(us), 100
[READ], 22ndPercentileLatency(us), 100
[READ], 99.9PercentileLatency(us), 200
[READ], Return=OK, 1
[READ], Return=NOT_FOUND, 1
[Intended-READ], Operations, 2
[Intended-READ], AverageLatency(us), 1000
[Intended-READ], MinLatency(us), 100
[Intended-READ], MaxLatency(us), 1900
[Intended-READ], 1stPercentileLatency(us), 100
[Intended-READ], 22ndPercentileLatency(us), 100
[Intended-READ], 99.9PercentileLatency(us), 1900
`},
		// intended alone: YCSB's plain names, timed from when each was
		// due; VERIFY from its own start.
		{"intended", `[OVERALL], RunTime(ms), 1000
[OVERALL], Throughput(ops/sec), 2
[READ], Operations, 2
[READ], AverageLatency(us), 1000
[READ], MinLatency(us), 100
[READ], MaxLatency(us), 1900
[READ], 1stPercentileLatency(us), 100
[READ], 22ndPercentileLatency(us), 100
[READ], 99.9PercentileLatency(us), 1900
[READ], Return=OK, 1
[READ], Return=NOT_FOUND, 1
[VERIFY], Operations, 1
[VERIFY], AverageLatency(us), 7
[VERIFY], MinLatency(us), 7
[VERIFY], MaxLatency(us), 7
[VERIFY], 1stPercentileLatency(us), 7
[VERIFY], 22ndPercentileLatency(us), 7
[VERIFY], 99.9PercentileLatency(us), 7
[VERIFY], Return=UNEXPECTED_STATE, 1
`},
	} {
		w := &Workload{MeasureInterval: tc.mode, Percentiles: []float64{1, 22, 99.9}}
		s := &runState{phase: "run", w: w, stats: []*threadStats{newThreadStats(true)}}
		s.stats[0].record(OpRead, StatusOK, 100, 100)
		s.stats[0].record(OpRead, StatusNotFound, 200, 1900) // due 1.7 ms before it started
		s.stats[0].ops.Add(2)
		if tc.mode == "intended" {
			s.stats[0].record(OpVerify, StatusUnexpected, 7, 7)
		}
		var b bytes.Buffer
		if err := s.buildReport(time.Second).WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("measurement.interval=%s: got\n%s\nwant\n%s", tc.mode, b.String(), tc.want)
		}
	}
	for p, want := range map[float64]string{1: "1st", 2: "2nd", 3: "3rd", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 95: "95th", 100: "100th", 99.99: "99.99", 50.5: "50.5"} {
		if got := percentileName(p); got != want {
			t.Errorf("percentileName(%v) = %q, want %q", p, got, want)
		}
	}
}

// TestNullRun runs every workload file against the null binding.
func TestNullRun(t *testing.T) {
	for _, f := range []string{"a", "b", "c", "d", "e", "f"} {
		p := Props{}
		if err := p.LoadFile("../workloads/workload" + f); err != nil {
			t.Fatal(err)
		}
		p["db"], p["threadcount"], p["operationcount"] = "null", "3", "3000"
		rep, err := Run(context.Background(), Config{Phase: "run", Props: p})
		if err != nil {
			t.Fatalf("workload%s: %v", f, err)
		}
		if rep.Operations != 3000 {
			t.Errorf("workload%s: %d operations", f, rep.Operations)
		}
		var n int64
		for _, o := range rep.Ops {
			if o.Returns["ERROR"] != 0 {
				t.Errorf("workload%s: %s errors", f, o.Name)
			}
			if f != "f" || o.Name == "READ-MODIFY-WRITE" || o.Name == "READ" {
				n += o.Returns["OK"]
			}
		}
		if f == "f" {
			n -= rep.Ops[len(rep.Ops)-1].Operations // RMW's reads are also READs
		}
		if n != 3000 {
			t.Errorf("workload%s: %d OK operations, want 3000: %+v", f, n, rep.Ops)
		}
	}
}

// cancellingBinding cancels the run at its after-th read: a cancellation
// in the middle of the run however slowly the machine sets it up.
type cancellingBinding struct {
	nullBinding
	after  int64
	n      atomic.Int64
	cancel context.CancelFunc
}

type cancellingDB struct {
	nullDB
	b *cancellingBinding
}

func (b *cancellingBinding) NewDB(*Workload) DB { return cancellingDB{b: b} }

func (d cancellingDB) Read(context.Context, []byte, [][]byte, func(_, _ []byte)) Status {
	if d.b.n.Add(1) == d.b.after {
		d.b.cancel()
	}
	return StatusOK
}

func TestCancelledRunReports(t *testing.T) {
	p := Props{"workload": "core", "recordcount": "100", "maxexecutiontime": "60", "target": "1000"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cb := &cancellingBinding{after: 50, cancel: cancel}
	rep, err := Run(ctx, Config{Phase: "run", Props: p, Binding: cb})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Interrupted || rep.Operations < 50 || rep.Operations > 1000 {
		t.Fatalf("report %+v", rep)
	}
	var b bytes.Buffer
	_ = rep.WriteText(&b)
	if !strings.Contains(b.String(), "[READ], Return=OK") {
		t.Errorf("summary of the interrupted run:\n%s", b.String())
	}
}

func TestStatusLines(t *testing.T) {
	p := Props{"workload": "core", "db": "null", "recordcount": "100", "maxexecutiontime": "2", "target": "500"}
	var status, progress syncBuffer
	rep, err := Run(context.Background(), Config{Phase: "run", Props: p, StatusInterval: time.Second, Status: &status, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Interrupted {
		t.Error("maxexecutiontime counted as an interruption")
	}
	if s := status.String(); !strings.Contains(s, " sec: ") || !strings.Contains(s, "current ops/sec; [READ: Count=") {
		t.Errorf("status lines:\n%s", s)
	}
	if s := progress.String(); !strings.Contains(s, "ops/s, p99") || !strings.Contains(s, "left") {
		t.Errorf("progress:\n%q", s)
	}
}

func TestTargetThrottles(t *testing.T) {
	p := Props{"workload": "core", "db": "null", "recordcount": "100", "operationcount": "200", "target": "1000", "threadcount": "2"}
	rep, err := Run(context.Background(), Config{Phase: "run", Props: p})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RunTimeMs < 150 || rep.RunTimeMs > 2000 {
		t.Errorf("200 ops at 1000 ops/s took %d ms", rep.RunTimeMs)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A warm-up's operations are done but left out of the report, and
// maxexecutiontime counts after it.
func TestWarmupNotMeasured(t *testing.T) {
	p := Props{"workload": "core", "db": "null", "recordcount": "100", "maxexecutiontime": "1", "target": "500"}
	start := time.Now()
	rep, err := Run(context.Background(), Config{Phase: "run", Props: p, Warmup: 600 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	// 500 ops/s for 1 s measured after 0.6 s unmeasured.
	if took < 1500*time.Millisecond || rep.RunTimeMs < 900 || rep.RunTimeMs > 1300 {
		t.Errorf("took %v, report runtime %d ms; want about 1.6 s and 1000 ms", took, rep.RunTimeMs)
	}
	var reads int64
	for _, o := range rep.Ops {
		reads += o.Operations
	}
	if rep.Operations < 400 || rep.Operations > 620 || reads < rep.Operations-1 || reads > rep.Operations+1 {
		t.Errorf("%d operations (%d in the histograms), want about 500", rep.Operations, reads)
	}
}

// failingBinding fails each key's first fails inserts.
type failingBinding struct {
	nullBinding
	fails int
	mu    sync.Mutex
	seen  map[string]int
}

type failingDB struct {
	nullDB
	b *failingBinding
}

func (b *failingBinding) NewDB(*Workload) DB { return failingDB{b: b} }

func (d failingDB) Insert(_ context.Context, key []byte, _, _ [][]byte) Status {
	d.b.mu.Lock()
	defer d.b.mu.Unlock()
	if d.b.seen[string(key)]++; d.b.seen[string(key)] <= d.b.fails {
		return StatusNotFound // any outcome but OK is retried
	}
	return StatusOK
}

// TestInsertRetries: as YCSB, every attempt is an INSERT of its own and a
// failed insert is retried core_workload_insertion_retry_limit times.
func TestInsertRetries(t *testing.T) {
	for _, tc := range []struct {
		fails, limit int
		ok, notFound int64
	}{{fails: 2, limit: 3, ok: 20, notFound: 40}, {fails: 2, limit: 1, ok: 0, notFound: 40}} {
		p := Props{"workload": "core", "recordcount": "20", "core_workload_insertion_retry_limit": strconv.Itoa(tc.limit),
			"core_workload_insertion_retry_interval": "0"}
		rep, err := Run(context.Background(), Config{Phase: "load", Props: p, Binding: &failingBinding{fails: tc.fails, seen: map[string]int{}}})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Operations != 20 || len(rep.Ops) != 1 || rep.Ops[0].Returns["OK"] != tc.ok || rep.Ops[0].Returns["NOT_FOUND"] != tc.notFound {
			t.Errorf("%d failures, limit %d: %+v", tc.fails, tc.limit, rep)
		}
	}
}

// TestIntervalHist: a status line's summary is of the values recorded
// since the line before, not of the whole run so far.
func TestIntervalHist(t *testing.T) {
	h := newHist()
	for v := int64(1); v <= 100; v++ {
		_ = h.RecordValue(v)
	}
	first := intervalHist(h.Export(), nil)
	prev := h.Export()
	for range 1000 {
		_ = h.RecordValue(5000)
	}
	iv := intervalHist(h.Export(), prev)
	if first.TotalCount() != 100 || first.Max() != 100 {
		t.Fatalf("first interval: %d values, max %d; want 100 and 100", first.TotalCount(), first.Max())
	}
	if iv.TotalCount() != 1000 || iv.Min() < 4990 || iv.ValueAtQuantile(50) < 4990 {
		t.Fatalf("second interval: %d values, min %d, p50 %d; want the 1000 values of 5000", iv.TotalCount(), iv.Min(), iv.ValueAtQuantile(50))
	}
}
