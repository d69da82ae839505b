package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Config is one `weir bench load|run`.
type Config struct {
	// Phase is "load" (insert the records) or "run" (the transactions).
	Phase string
	// Props are the workload properties (files and overrides merged).
	Props Props
	// Master is the bootstrap address; User the tenant.
	Master, User string
	// StatusInterval, when positive, writes a status line to Status at
	// that period (YCSB's -s).
	StatusInterval time.Duration
	Status         io.Writer
	// Progress, when set, receives a live progress line rewritten every
	// second (meant for a terminal).
	Progress io.Writer
	// Binding overrides the database binding chosen by the db property.
	Binding Binding
	// Warmup runs the workload unmeasured for this long first: the report
	// (runtime, operations, latencies) covers what follows, and
	// maxexecutiontime counts from the end of the warm-up. Meant for
	// time-bounded runs: warm-up operations count toward operationcount.
	Warmup time.Duration
}

// Run checks the workload, connects, prepares the table and runs the
// phase. An error before the first operation comes back with a nil
// Report; once operations have started, Run always returns the report of
// what was done, also when ctx is cancelled (Report.Interrupted).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	w, err := NewWorkload(cfg.Props)
	if err != nil {
		return nil, err
	}
	if err := w.checkPhase(cfg.Phase); err != nil {
		return nil, err
	}
	b := cfg.Binding
	if b == nil {
		if w.DB == "null" || w.DB == "site.ycsb.BasicDB" {
			b = nullBinding{}
		} else {
			hb, err := connectHBase(ctx, cfg.Master, cfg.User, w.ClientRetries)
			if err != nil {
				return nil, err
			}
			b = hb
		}
	}
	defer b.Close()
	if err := b.Prepare(ctx, cfg.Phase, w); err != nil {
		return nil, err
	}
	return execute(ctx, cfg, w, b), nil
}

type runState struct {
	w       *Workload
	phase   string
	stop    atomic.Bool
	ins     *AckCounter // load: the key sequence; run: transaction inserts
	seq     *Sequential
	stats   []*threadStats
	started time.Time
	total   int64 // planned operations, 0 if unbounded
}

func execute(ctx context.Context, cfg Config, w *Workload, b Binding) *Report {
	s := &runState{w: w, phase: cfg.Phase}
	if _, ok := cfg.Props["status.interval"]; ok && cfg.StatusInterval > 0 {
		cfg.StatusInterval = w.StatusEvery
	}
	var counts []int64
	if cfg.Phase == "load" {
		s.ins = NewAckCounter(w.InsertStart)
		s.total = w.InsertCount
	} else {
		start := w.InsertStart + w.InsertCount
		if w.RecordCount > start {
			start = w.RecordCount
		}
		s.ins = NewAckCounter(start)
		s.seq = NewSequential(w.InsertStart, w.InsertStart+w.InsertCount-1)
		s.total = w.OperationCount
	}
	for i := 0; i < w.Threads; i++ {
		n := s.total / int64(w.Threads)
		if int64(i) < s.total%int64(w.Threads) {
			n++
		}
		counts = append(counts, n)
		s.stats = append(s.stats, newThreadStats(w.MeasureInterval != "op"))
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var timeUp atomic.Bool
	s.started = time.Now()
	measureStart := s.started // written by the timer goroutine until it is joined
	var timerWG sync.WaitGroup
	timerWG.Add(1)
	go func() {
		defer timerWG.Done()
		var warm, deadline <-chan time.Time
		// The deadline is armed when measuring starts: a warm-up timer
		// that fires late on a busy machine must not shorten the
		// measured run.
		var dt *time.Timer
		arm := func() {
			if w.MaxExecution > 0 {
				dt = time.NewTimer(w.MaxExecution)
				deadline = dt.C
			}
		}
		defer func() {
			if dt != nil {
				dt.Stop()
			}
		}()
		if cfg.Warmup > 0 {
			t := time.NewTimer(cfg.Warmup)
			defer t.Stop()
			warm = t.C
		} else {
			arm()
		}
		for {
			select {
			case <-runCtx.Done():
			case <-warm:
				for _, st := range s.stats {
					st.reset()
				}
				measureStart, warm = time.Now(), nil
				arm()
				continue
			case <-deadline:
				timeUp.Store(true)
			}
			s.stop.Store(true)
			return
		}
	}()
	var wg sync.WaitGroup
	for i := 0; i < w.Threads; i++ {
		if s.total > 0 && counts[i] == 0 {
			continue
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			t := newWorker(s, i, b.NewDB(w), counts[i])
			t.loop(runCtx)
		}(i)
	}
	done := make(chan struct{})
	var repWG sync.WaitGroup
	if cfg.Progress != nil || (cfg.StatusInterval > 0 && cfg.Status != nil) {
		repWG.Add(1)
		go func() { defer repWG.Done(); s.report(cfg, done) }()
	}
	wg.Wait()
	cancel()
	timerWG.Wait()
	elapsed := time.Since(measureStart)
	close(done)
	repWG.Wait()
	rep := s.buildReport(elapsed)
	rep.Interrupted = ctx.Err() != nil && !timeUp.Load()
	return rep
}

type worker struct {
	s       *runState
	w       *Workload
	st      *threadStats
	db      DB
	r       *rand.Rand
	quota   int64
	keys    Generator
	field   *uniformGen
	fieldLn Generator
	scanLn  Generator
	key     []byte
	one     [][]byte // a one-field list, reused
	vals    [][]byte
	// due is when the current operation was due under -target (zero
	// without a target).
	due time.Time
	// Under dataintegrity: the values written (vbuf), and the fields and
	// values a read returned (got, gotBuf) with their check's scratch.
	vbuf   []byte
	got    [][3]int // field and value at gotBuf[got[0]:got[1]], [got[1]:got[2]]
	gotBuf []byte
	want   []byte
}

func newWorker(s *runState, i int, db DB, quota int64) *worker {
	w := s.w
	t := &worker{
		s: s, w: w, st: s.stats[i], db: db, quota: quota,
		r:       rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(i)+1)),
		field:   newUniform(0, int64(w.FieldCount-1)),
		fieldLn: w.lengthGen(w.FieldLengthDist, w.MinFieldLength, w.FieldLength),
		scanLn:  w.lengthGen(w.ScanLengthDist, w.MinScanLength, w.MaxScanLength),
		key:     make([]byte, 0, 64),
		one:     make([][]byte, 1),
		vals:    make([][]byte, w.FieldCount),
	}
	if w.DataIntegrity {
		t.vbuf = make([]byte, 0, w.FieldCount*int(w.FieldLength))
	}
	if s.phase == "run" {
		t.keys = w.newKeyChooser(s.ins, s.seq)
	}
	return t
}

func (t *worker) loop(ctx context.Context) {
	var interval time.Duration
	if t.w.Target > 0 {
		interval = time.Duration(float64(time.Second) * float64(t.w.Threads) / t.w.Target)
	}
	start := time.Now()
	var n int64
	for !t.s.stop.Load() && (t.quota == 0 || n < t.quota) {
		if interval > 0 {
			// When the operation is due under -target: its intended
			// start, from which measurement.interval=intended counts
			// (coordinated omission: a late operation's wait is latency).
			t.due = start.Add(time.Duration(n) * interval)
		}
		if t.s.phase == "load" {
			t.insert(ctx)
		} else {
			t.transaction(ctx)
		}
		n++
		t.st.ops.Store(n)
		if interval > 0 {
			// A cancelled run ends here: its paced workers would otherwise
			// run unpaced until the timer goroutine sets s.stop.
			if d := time.Until(start.Add(time.Duration(n) * interval)); d > 0 && !t.sleep(ctx, d) {
				break
			}
		}
	}
	_ = t.db.Close(context.WithoutCancel(ctx))
}

// sleep waits d; it reports false when ctx ended first.
func (t *worker) sleep(ctx context.Context, d time.Duration) bool {
	tm := time.NewTimer(d)
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		tm.Stop()
		return false
	}
}

// nextKeyNum draws an existing key number: never one whose insert has
// not completed.
func (t *worker) nextKeyNum() int64 {
	for {
		k := t.keys.Next(t.r)
		if k <= t.s.ins.Last() {
			return k
		}
	}
}

// readFields is the fields an operation reads: one at random, or all
// (nil: the whole family). byName: the operation is a read, which YCSB
// makes name every field under dataintegrity or readallfieldsbyname (its
// scans and read-modify-writes read the family).
func (t *worker) readFields(byName bool) [][]byte {
	if t.w.ReadAllFields {
		if byName && (t.w.DataIntegrity || t.w.ReadAllByName) {
			return t.w.fieldNames
		}
		return nil
	}
	t.one[0] = t.w.fieldNames[t.field.Next(t.r)]
	return t.one
}

// writeValues fills the values of the fields to write: all of them, or
// one random field unless all is set.
func (t *worker) writeValues(all bool) (fields, values [][]byte) {
	if all {
		fields = t.w.fieldNames
	} else {
		t.one[0] = t.w.fieldNames[t.field.Next(t.r)]
		fields = t.one
	}
	values = t.vals[:len(fields)]
	if t.w.DataIntegrity {
		t.vbuf = t.vbuf[:0]
		for i, f := range fields {
			n := len(t.vbuf)
			t.vbuf = appendDeterministicValue(t.vbuf, t.key, f, int(t.w.FieldLength))
			values[i] = t.vbuf[n:len(t.vbuf):len(t.vbuf)]
		}
		return fields, values
	}
	for i := range values {
		n := t.fieldLn.Next(t.r)
		off := t.r.Int64N(int64(len(t.w.values)) - n + 1)
		values[i] = t.w.values[off : off+n]
	}
	return fields, values
}

func (t *worker) measure(op int, st Status, start time.Time) time.Time {
	now := time.Now()
	us := now.Sub(start).Microseconds()
	ius := us
	if !t.due.IsZero() && op != OpVerify {
		ius = now.Sub(t.due).Microseconds()
	}
	t.st.record(op, st, us, ius)
	return now
}

func (t *worker) insert(ctx context.Context) {
	k := t.s.ins.Next()
	t.key = t.w.AppendKey(t.key[:0], k)
	f, v := t.writeValues(true)
	// As YCSB: every attempt is an INSERT of its own, a failed one
	// (any outcome but OK) is retried up to the retry limit after 0.8 to
	// 1.2 times the retry interval, and the waits are nobody's latency.
	for try := 0; ; try++ {
		start := time.Now()
		st := t.db.Insert(ctx, t.key, f, v)
		t.measure(OpInsert, st, start)
		if st == StatusOK || try >= t.w.InsertRetries || t.s.stop.Load() {
			break
		}
		wait := time.Duration(float64(t.w.InsertRetryWait) * (0.8 + 0.4*t.r.Float64()))
		if !t.sleep(ctx, wait) {
			break
		}
	}
	t.s.ins.Ack(k)
}

func (t *worker) transaction(ctx context.Context) {
	switch op := t.w.chooseOp(t.r); op {
	case OpRead:
		t.key = t.w.AppendKey(t.key[:0], t.nextKeyNum())
		start := time.Now()
		t.measure(OpRead, t.read(ctx, t.readFields(true)), start)
		t.verify()
	case OpUpdate:
		t.key = t.w.AppendKey(t.key[:0], t.nextKeyNum())
		f, v := t.writeValues(t.w.WriteAllFields)
		start := time.Now()
		t.measure(OpUpdate, t.db.Update(ctx, t.key, f, v), start)
	case OpInsert:
		t.insert(ctx)
	case OpScan:
		t.key = t.w.AppendKey(t.key[:0], t.nextKeyNum())
		n := int(t.scanLn.Next(t.r))
		start := time.Now()
		t.measure(OpScan, t.db.Scan(ctx, t.key, n, t.readFields(false)), start)
	case OpRMW:
		t.key = t.w.AppendKey(t.key[:0], t.nextKeyNum())
		start := time.Now()
		st := t.read(ctx, t.readFields(false))
		t.measure(OpRead, st, start)
		f, v := t.writeValues(t.w.WriteAllFields)
		mid := time.Now()
		ust := t.db.Update(ctx, t.key, f, v)
		t.measure(OpUpdate, ust, mid)
		if ust != StatusOK {
			st = ust
		}
		t.measure(OpRMW, st, start)
		t.verify()
	}
}

// read reads t.key; under dataintegrity it keeps what came back for
// verify.
func (t *worker) read(ctx context.Context, fields [][]byte) Status {
	if !t.w.DataIntegrity {
		return t.db.Read(ctx, t.key, fields, nil)
	}
	t.got, t.gotBuf = t.got[:0], t.gotBuf[:0]
	return t.db.Read(ctx, t.key, fields, t.keep)
}

func (t *worker) keep(field, value []byte) {
	// Offsets, not slices: gotBuf may move as it grows.
	n := len(t.gotBuf)
	t.gotBuf = append(append(t.gotBuf, field...), value...)
	t.got = append(t.got, [3]int{n, n + len(field), len(t.gotBuf)})
}

// verify checks what the last read returned under dataintegrity, as
// YCSB's verifyRow does: every value the one its key and field make, and
// no row at all an error. It is measured as its own operation, VERIFY.
func (t *worker) verify() {
	if !t.w.DataIntegrity {
		return
	}
	start := time.Now()
	st := StatusOK
	if len(t.got) == 0 {
		st = StatusError
	}
	for _, o := range t.got {
		t.want = appendDeterministicValue(t.want[:0], t.key, t.gotBuf[o[0]:o[1]], int(t.w.FieldLength))
		if !bytes.Equal(t.gotBuf[o[1]:o[2]], t.want) {
			st = StatusUnexpected
			break
		}
	}
	t.measure(OpVerify, st, start)
}

// report writes the progress line and status lines until done closes.
func (s *runState) report(cfg Config, done <-chan struct{}) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	lastOps, lastT := int64(0), s.started
	nextStatus := s.started.Add(cfg.StatusInterval)
	var all *hdrhistogram.Histogram // reused: the driver's own CPU is measured too
	var prev [numOps]*hdrhistogram.Snapshot
	for {
		select {
		case <-done:
			if cfg.Progress != nil {
				fmt.Fprint(cfg.Progress, "\r\033[K")
			}
			return
		case now := <-tick.C:
			var ops int64
			for _, st := range s.stats {
				ops += st.ops.Load()
			}
			rate := float64(ops-lastOps) / now.Sub(lastT).Seconds()
			lastOps, lastT = ops, now
			elapsed := now.Sub(s.started)
			if cfg.Progress != nil {
				if all == nil {
					all = newHist()
				}
				all.Reset()
				for _, st := range s.stats {
					st.mu.Lock()
					for _, x := range st.hist {
						all.Merge(x)
					}
					st.mu.Unlock()
				}
				fmt.Fprintf(cfg.Progress, "\r\033[K[%s] %s elapsed, %s left: %d ops, %.0f ops/s, p99 %d us",
					s.phase, elapsed.Truncate(time.Second), s.remaining(ops, elapsed), ops, rate, all.ValueAtQuantile(99))
			}
			if cfg.StatusInterval > 0 && cfg.Status != nil && !now.Before(nextStatus) {
				nextStatus = nextStatus.Add(cfg.StatusInterval)
				s.statusLine(cfg.Status, now, ops, rate, &prev)
			}
		}
	}
}

func (s *runState) remaining(ops int64, elapsed time.Duration) string {
	left := time.Duration(-1)
	if s.w.MaxExecution > 0 {
		left = max(s.w.MaxExecution-elapsed, 0)
	}
	if s.total > 0 && ops > 0 {
		est := time.Duration(float64(elapsed) * float64(s.total-ops) / float64(ops))
		if left < 0 || est < left {
			left = est
		}
	}
	if left < 0 {
		return "?"
	}
	return left.Truncate(time.Second).String()
}

// statusLine writes a YCSB status line: time, operations so far, current
// rate and each operation's latency summary over the interval since the
// last status line, as YCSB's HdrHistogram measurement reports it, so that
// a slow stretch of a run shows where it happened. prev holds the
// histograms as the last line saw them.
func (s *runState) statusLine(out io.Writer, now time.Time, ops int64, rate float64, prev *[numOps]*hdrhistogram.Snapshot) {
	h, _ := merged(s.stats, false)
	line := fmt.Sprintf("%s %d sec: %d operations; %.1f current ops/sec;", now.Format("2006-01-02 15:04:05:000"),
		int64(now.Sub(s.started).Seconds()), ops, rate)
	for op := range h {
		cur := h[op].Export()
		iv := intervalHist(cur, prev[op])
		prev[op] = cur
		if iv.TotalCount() == 0 {
			continue
		}
		line += fmt.Sprintf(" [%s: Count=%d, Max=%d, Min=%d, Avg=%.2f, 90=%d, 99=%d, 99.9=%d, 99.99=%d]", OpNames[op], iv.TotalCount(),
			iv.Max(), iv.Min(), iv.Mean(), iv.ValueAtQuantile(90), iv.ValueAtQuantile(99),
			iv.ValueAtQuantile(99.9), iv.ValueAtQuantile(99.99))
	}
	fmt.Fprintln(out, line)
}

// intervalHist returns the histogram of the values recorded between
// snapshots prev (nil: none before) and cur of one histogram.
func intervalHist(cur, prev *hdrhistogram.Snapshot) *hdrhistogram.Histogram {
	d := *cur
	d.Counts = slices.Clone(cur.Counts)
	if prev != nil {
		for i := range min(len(d.Counts), len(prev.Counts)) {
			d.Counts[i] -= prev.Counts[i]
		}
	}
	return hdrhistogram.Import(&d)
}
