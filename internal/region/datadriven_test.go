package region

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/weirdb/weir/internal/cell"
)

// TestDataDriven runs the files in testdata/: HBase semantics written down
// as commands and the exact cells they must return. Rewrite expectations
// with -rewrite and review the diff.
//
//	open                      (input: one family per line: NAME [versions=N]
//	                           [minversions=N] [ttl=SECONDS] [kdc=false|true|ttl])
//	clock set=MS | advance=MS
//	mutate                    (input: one per line, all in one atomic Mutate:
//	                           put ROW FAM:QUAL TS|now VALUE
//	                           delete|deletecolumn ROW FAM:QUAL [TS]
//	                           deletefamily ROW FAM [TS]
//	                           deletefamilyversion ROW FAM TS
//	                           deleterow ROW [TS])
//	get row=R [versions=N] [tr=(MIN,MAX)] [cols=F:Q,F]
//	scan [start=R] [stop=R] [reversed] [raw] [versions=N] [tr=(MIN,MAX)] [limit=N] [batch=N]
//	incr row=R col=F:Q by=N   append row=R col=F:Q value=V
//	flush | compact [major]
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var r *Region
		var clk *testClock
		ctx := context.Background()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "open":
				var fams []FamilyDescriptor
				for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
					fams = append(fams, parseFamily(t, line))
				}
				r, clk = openTestRegion(t, fams...)
				return ""
			case "clock":
				if d.HasArg("set") {
					d.ScanArgs(t, "set", &clk.now)
				}
				if d.HasArg("advance") {
					var n int64
					d.ScanArgs(t, "advance", &n)
					clk.now += n
				}
				return fmt.Sprintf("now=%d", clk.now)
			case "mutate":
				var muts []Mutation
				for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
					muts = append(muts, parseMutation(t, line))
				}
				if err := r.Mutate(ctx, muts...); err != nil {
					return "error: " + err.Error()
				}
				return ""
			case "get":
				g := Get{Row: []byte(strArg(d, "row")), MaxVersions: intArg(t, d, "versions"), TimeRange: trArg(t, d),
					Columns: colsArg(d)}
				res, err := r.Get(ctx, g)
				if err != nil {
					return "error: " + err.Error()
				}
				return fmtCells(res.Cells)
			case "scan":
				s := Scan{StartRow: bytesArg(d, "start"), StopRow: bytesArg(d, "stop"), Reversed: d.HasArg("reversed"),
					Raw: d.HasArg("raw"), MaxVersions: intArg(t, d, "versions"), TimeRange: trArg(t, d),
					Limit: intArg(t, d, "limit"), Batch: intArg(t, d, "batch"), Columns: colsArg(d)}
				sc, err := r.NewScanner(s)
				if err != nil {
					return "error: " + err.Error()
				}
				defer sc.Close()
				var out strings.Builder
				for {
					res, more, err := sc.Next(ctx, 2, 0)
					if err != nil {
						return "error: " + err.Error()
					}
					for _, rr := range res {
						if rr.Partial {
							out.WriteString("(partial)\n")
						}
						out.WriteString(fmtCells(rr.Cells))
					}
					if !more {
						return out.String()
					}
				}
			case "incr", "append":
				fam, qual, _ := strings.Cut(strArg(d, "col"), ":")
				op := ReadModifyWrite{Row: []byte(strArg(d, "row")), Columns: []ColumnDelta{{
					Family: []byte(fam), Qualifier: []byte(qual), Delta: int64(intArg(t, d, "by")), Value: []byte(strArg(d, "value"))}}}
				var res Result
				var err error
				if d.Cmd == "incr" {
					res, err = r.Increment(ctx, op)
				} else {
					res, err = r.Append(ctx, op)
				}
				if err != nil {
					return "error: " + err.Error()
				}
				if d.Cmd == "incr" {
					c := res.Cells[0]
					return fmt.Sprintf("%s/%s:%s/%d=%d\n", c.Row, c.Family, c.Qualifier, c.Timestamp, int64(binary.BigEndian.Uint64(c.Value)))
				}
				return fmtCells(res.Cells)
			case "flush":
				if err := r.Flush(ctx); err != nil {
					return "error: " + err.Error()
				}
				return ""
			case "compact":
				if err := r.Compact(ctx, d.HasArg("major")); err != nil {
					return "error: " + err.Error()
				}
				return ""
			}
			d.Fatalf(t, "unknown command %q", d.Cmd)
			return ""
		})
	})
}

func parseFamily(t *testing.T, line string) FamilyDescriptor {
	f := strings.Fields(line)
	fd := FamilyDescriptor{Name: []byte(f[0])}
	for _, kv := range f[1:] {
		k, v, _ := strings.Cut(kv, "=")
		n, _ := strconv.Atoi(v)
		switch k {
		case "versions":
			fd.MaxVersions = n
		case "minversions":
			fd.MinVersions = n
		case "ttl":
			fd.TTL = int32(n)
		case "kdc":
			fd.KeepDeletedCells = map[string]KeepDeletedCells{"false": KeepDeletedFalse, "true": KeepDeletedTrue, "ttl": KeepDeletedTTL}[v]
		default:
			t.Fatalf("unknown family attribute %q", k)
		}
	}
	return fd
}

func parseTS(t *testing.T, s string) int64 {
	if s == "now" {
		return cell.LatestTimestamp
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("bad timestamp %q", s)
	}
	return n
}

func parseMutation(t *testing.T, line string) Mutation {
	f := strings.Fields(line)
	optTS := func(i int) int64 {
		if len(f) > i {
			return parseTS(t, f[i])
		}
		return cell.LatestTimestamp
	}
	col := func() (string, string) { fam, qual, _ := strings.Cut(f[2], ":"); return fam, qual }
	switch f[0] {
	case "put":
		fam, qual := col()
		return put(f[1], fam, qual, parseTS(t, f[3]), strings.Join(f[4:], " "))
	case "delete":
		fam, qual := col()
		return del(f[1], fam, qual, optTS(3), cell.TypeDelete)
	case "deletecolumn":
		fam, qual := col()
		return del(f[1], fam, qual, optTS(3), cell.TypeDeleteColumn)
	case "deletefamily":
		return del(f[1], f[2], "", optTS(3), cell.TypeDeleteFamily)
	case "deletefamilyversion":
		return del(f[1], f[2], "", optTS(3), cell.TypeDeleteFamilyVersion)
	case "deleterow":
		return Mutation{Type: MutationDelete, Row: []byte(f[1]), Timestamp: optTS(2)}
	}
	t.Fatalf("unknown mutation %q", line)
	return Mutation{}
}

func strArg(d *datadriven.TestData, key string) string {
	if a, ok := d.Arg(key); ok && len(a.Vals) > 0 {
		return a.Vals[0]
	}
	return ""
}

func bytesArg(d *datadriven.TestData, key string) []byte {
	if s := strArg(d, key); s != "" {
		return []byte(s)
	}
	return nil
}

func intArg(t *testing.T, d *datadriven.TestData, key string) int {
	var n int
	if d.HasArg(key) {
		d.ScanArgs(t, key, &n)
	}
	return n
}

func trArg(t *testing.T, d *datadriven.TestData) cell.TimeRange {
	a, ok := d.Arg("tr")
	if !ok {
		return cell.TimeRange{}
	}
	if len(a.Vals) != 2 {
		t.Fatalf("tr wants MIN,MAX")
	}
	return cell.TimeRange{Min: parseTS(t, a.Vals[0]), Max: parseTS(t, a.Vals[1])}
}

func colsArg(d *datadriven.TestData) []Columns {
	a, ok := d.Arg("cols")
	if !ok {
		return nil
	}
	var cols []Columns
	for _, v := range a.Vals {
		fam, qual, hasQual := strings.Cut(v, ":")
		c := Columns{Family: []byte(fam)}
		if hasQual {
			c.Qualifiers = [][]byte{[]byte(qual)}
		}
		cols = append(cols, c)
	}
	return cols
}
