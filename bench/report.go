package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
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
	// Returns counts outcomes by YCSB status name (OK, NOT_FOUND, ERROR,
	// UNEXPECTED_STATE); an Intended- section has none unless it is the
	// only one.
	Returns map[string]int64 `json:"returns,omitempty"`
	// Percentiles are hdrhistogram.percentiles' latencies when it is set;
	// the text report then prints these instead of the fixed ones.
	Percentiles []Percentile `json:"percentiles,omitempty"`
}

// Percentile is one requested percentile's latency.
type Percentile struct {
	Name string `json:"name"` // as YCSB names it: "95th", "99.9"
	Us   int64  `json:"us"`
}

func (s *runState) buildReport(elapsed time.Duration) *Report {
	rep := &Report{Phase: s.phase, RunTimeMs: elapsed.Milliseconds()}
	for _, st := range s.stats {
		rep.Operations += st.measuredOps()
	}
	if elapsed > 0 {
		rep.Throughput = float64(rep.Operations) / elapsed.Seconds()
	}
	// YCSB's sections: op, the operations timed from their start;
	// intended, the same names timed from when each was due; both, the
	// first set and an Intended- copy of it without the outcomes.
	switch s.w.MeasureInterval {
	case "op":
		rep.Ops = s.opReports(false, "", true)
	case "intended":
		rep.Ops = s.opReports(true, "", true)
	default:
		rep.Ops = append(s.opReports(false, "", true), s.opReports(true, "Intended-", false)...)
	}
	return rep
}

// opReports summarises each operation that was done, its latencies from
// the actual or the intended start.
func (s *runState) opReports(intended bool, prefix string, returns bool) []OpReport {
	h, c := merged(s.stats, intended)
	var out []OpReport
	for op := range h {
		// VERIFY is timed from its own start only (measure records it so
		// in both histograms): under both it has no Intended- copy.
		if intended && op == OpVerify && prefix != "" {
			continue
		}
		o := OpReport{Name: prefix + OpNames[op]}
		for st, n := range c[op] {
			o.Operations += n
			if n > 0 && returns {
				if o.Returns == nil {
					o.Returns = map[string]int64{}
				}
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
		for _, p := range s.w.Percentiles {
			o.Percentiles = append(o.Percentiles, Percentile{Name: percentileName(p), Us: x.ValueAtQuantile(p)})
		}
		out = append(out, o)
	}
	return out
}

// percentileName names percentile p as YCSB's HdrHistogram measurement
// does in its report: an ordinal for a whole number ("1st", "22nd",
// "95th", "11th"), the number itself otherwise ("99.9").
func percentileName(p float64) string {
	if p != math.Trunc(p) {
		return strconv.FormatFloat(p, 'f', -1, 64)
	}
	n := int64(p)
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.FormatInt(n, 10) + suffix
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
		if o.Percentiles == nil {
			line(o.Name, "50thPercentileLatency(us)", itoa(o.P50Us))
			line(o.Name, "95thPercentileLatency(us)", itoa(o.P95Us))
			line(o.Name, "99thPercentileLatency(us)", itoa(o.P99Us))
			line(o.Name, "99.9PercentileLatency(us)", itoa(o.P999Us)) // YCSB's name for it
		}
		for _, p := range o.Percentiles {
			line(o.Name, p.Name+"PercentileLatency(us)", itoa(p.Us))
		}
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
