package bench

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// TestPropsDataDriven runs the files in testdata/props: workload property
// files as YCSB writes them, what Weir reads from them and the error a bad
// one gets. Rewrite expectations with -rewrite and review the diff.
//
//	parse       input: a property file; output: its properties, sorted
//	workload    input: "-p key=value" override lines, then a property
//	            file; output: the workload NewWorkload builds from them
//
// Either prints "error: ..." for input it refuses.
func TestPropsDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata/props", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "parse":
				p := Props{}
				if err := ParseProps(strings.NewReader(d.Input), "w", p); err != nil {
					return "error: " + err.Error() + "\n"
				}
				return formatProps(p)
			case "workload":
				var overrides []string
				file := d.Input
				for {
					line, rest, _ := strings.Cut(file, "\n")
					o, ok := strings.CutPrefix(line, "-p ")
					if !ok {
						break
					}
					overrides, file = append(overrides, o), rest
				}
				p := Props{}
				if err := ParseProps(strings.NewReader(file), "w", p); err != nil {
					return "error: " + err.Error() + "\n"
				}
				for _, o := range overrides {
					if err := p.SetOverride(o); err != nil {
						return "error: " + err.Error() + "\n"
					}
				}
				w, err := NewWorkload(p)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return formatWorkload(w)
			default:
				d.Fatalf(t, "unknown command %q", d.Cmd)
				return ""
			}
		})
	})
}

func formatProps(p Props) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%q\n", k, p[k])
	}
	if len(keys) == 0 {
		b.WriteString("(none)\n")
	}
	return b.String()
}

func formatWorkload(w *Workload) string {
	var b strings.Builder
	fmt.Fprintf(&b, "db=%s table=%s family=%s threads=%d target=%g durability=%s buffering=%t\n",
		w.DB, w.Table, w.Family, w.Threads, w.Target, w.Durability, w.ClientBuffering)
	fmt.Fprintf(&b, "records=%d operations=%d insertstart=%d insertcount=%d maxexecution=%s\n",
		w.RecordCount, w.OperationCount, w.InsertStart, w.InsertCount, w.MaxExecution)
	fmt.Fprintf(&b, "fields=%d x %d (%s, min %d) prefix=%s readall=%t writeall=%t\n",
		w.FieldCount, w.FieldLength, w.FieldLengthDist, w.MinFieldLength, w.FieldPrefix, w.ReadAllFields, w.WriteAllFields)
	if w.hist != nil {
		fmt.Fprintf(&b, "histogram: %d buckets of %d bytes, total %d, longest %d\n", len(w.hist.buckets), w.hist.block, w.hist.area, w.hist.Max())
	}
	if w.MeasureInterval != "op" || w.Percentiles != nil || w.StatusEvery != 10*time.Second {
		fmt.Fprintf(&b, "measurement.interval=%s percentiles=%v status every %s\n", w.MeasureInterval, w.Percentiles, w.StatusEvery)
	}
	if w.InsertRetries > 0 {
		fmt.Fprintf(&b, "insertion retries=%d every %s\n", w.InsertRetries, w.InsertRetryWait)
	}
	if w.DataIntegrity || w.ReadAllByName {
		fmt.Fprintf(&b, "dataintegrity=%t readallfieldsbyname=%t\n", w.DataIntegrity, w.ReadAllByName)
	}
	b.WriteString("ops:")
	for op, name := range OpNames {
		if w.Proportions[op] > 0 {
			fmt.Fprintf(&b, " %s=%g", name, w.Proportions[op])
		}
	}
	b.WriteString("\n")
	order := "hashed"
	if w.Ordered {
		order = "ordered"
	}
	fmt.Fprintf(&b, "request=%s order=%s zeropadding=%d", w.RequestDist, order, w.ZeroPadding)
	if w.RequestDist == "hotspot" {
		fmt.Fprintf(&b, " hotdata=%g hotops=%g", w.HotDataFrac, w.HotOpFrac)
	}
	if w.RequestDist == "exponential" {
		fmt.Fprintf(&b, " percentile=%g frac=%g", w.ExpPercentile, w.ExpFrac)
	}
	b.WriteString("\n")
	if w.Proportions[OpScan] > 0 {
		fmt.Fprintf(&b, "scan=%d..%d (%s) pagefilter=%v\n", w.MinScanLength, w.MaxScanLength, w.ScanLengthDist, w.PageFilter)
	}
	return b.String()
}
