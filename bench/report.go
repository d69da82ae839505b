package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Report is the outcome of a phase.
type Report struct {
	Phase string `json:"phase"`
	// RunTimeMs is the wall time of the phase in milliseconds.
	RunTimeMs int64 `json:"runtime_ms"`
	// Operations counts the workload's operations (a read-modify-write
	// counts once).
	Operations int64 `json:"operations"`
	// Throughput is Operations per second of RunTime.
	Throughput float64 `json:"throughput_ops_sec"`
	// Interrupted is set when the phase was cancelled before its end.
	Interrupted bool       `json:"interrupted,omitempty"`
	Ops         []OpReport `json:"ops"`
}

// OpReport summarises one operation type; latencies are in microseconds.
type OpReport struct {
	Name       string  `json:"name"`
	Operations int64   `json:"operations"`
	AverageUs  float64 `json:"average_us"`
	MinUs      int64   `json:"min_us"`
	MaxUs      int64   `json:"max_us"`
	P50Us      int64   `json:"p50_us"`
	P95Us      int64   `json:"p95_us"`
	P99Us      int64   `json:"p99_us"`
	P999Us     int64   `json:"p999_us"`
	// Returns counts outcomes by YCSB status name (OK, NOT_FOUND, ERROR).
	Returns map[string]int64 `json:"returns"`
}

func (s *runState) buildReport(elapsed time.Duration) *Report {
	h, c := merged(s.stats)
	rep := &Report{Phase: s.phase, RunTimeMs: elapsed.Milliseconds()}
	for _, st := range s.stats {
		rep.Operations += st.measuredOps()
	}
	if elapsed > 0 {
		rep.Throughput = float64(rep.Operations) / elapsed.Seconds()
	}
	for op := range h {
		o := OpReport{Name: OpNames[op], Returns: map[string]int64{}}
		for st, n := range c[op] {
			o.Operations += n
			if n > 0 {
				o.Returns[statusNames[st]] = n
			}
		}
		if o.Operations == 0 {
			continue
		}
		x := h[op]
		o.AverageUs, o.MinUs, o.MaxUs = x.Mean(), x.Min(), x.Max()
		o.P50Us, o.P95Us = x.ValueAtQuantile(50), x.ValueAtQuantile(95)
		o.P99Us, o.P999Us = x.ValueAtQuantile(99), x.ValueAtQuantile(99.9)
		rep.Ops = append(rep.Ops, o)
	}
	return rep
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// WriteText writes the report in YCSB's output format.
func (r *Report) WriteText(w io.Writer) error {
	var b []byte
	line := func(sect, metric, val string) {
		b = append(b, '[')
		b = append(b, sect...)
		b = append(b, "], "...)
		b = append(b, metric...)
		b = append(b, ", "...)
		b = append(b, val...)
		b = append(b, '\n')
	}
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
	line("OVERALL", "RunTime(ms)", itoa(r.RunTimeMs))
	line("OVERALL", "Throughput(ops/sec)", ftoa(r.Throughput))
	for _, o := range r.Ops {
		line(o.Name, "Operations", itoa(o.Operations))
		line(o.Name, "AverageLatency(us)", ftoa(o.AverageUs))
		line(o.Name, "MinLatency(us)", itoa(o.MinUs))
		line(o.Name, "MaxLatency(us)", itoa(o.MaxUs))
		line(o.Name, "50thPercentileLatency(us)", itoa(o.P50Us))
		line(o.Name, "95thPercentileLatency(us)", itoa(o.P95Us))
		line(o.Name, "99thPercentileLatency(us)", itoa(o.P99Us))
		line(o.Name, "99.9thPercentileLatency(us)", itoa(o.P999Us))
		for _, st := range statusNames {
			if n, ok := o.Returns[st]; ok {
				line(o.Name, "Return="+st, itoa(n))
			}
		}
	}
	_, err := w.Write(b)
	return err
}

// WriteJSON writes the report as one JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
