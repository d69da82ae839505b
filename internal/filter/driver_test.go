package filter

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/cell"
)

// kv builds a put cell; "r/f:q@ts=v" is how rendered results read.
func kv(row, fam, qual string, ts int64, val string) cell.Cell {
	return cell.Cell{Row: []byte(row), Family: []byte(fam), Qualifier: []byte(qual), Timestamp: ts, Type: cell.TypePut, Value: []byte(val)}
}

// store is one family's sorted cells and read position, as a StoreScanner:
// NextRow and seeks move only this family's cursor.
type store struct {
	cells []cell.Cell
	pos   int
}

func (s *store) peek() *cell.Cell {
	if s.pos < len(s.cells) {
		return &s.cells[s.pos]
	}
	return nil
}

func (s *store) skipWhile(keep func(*cell.Cell) bool) {
	for c := s.peek(); c != nil && keep(c); c = s.peek() {
		s.pos++
	}
}

// scan feeds cells through f in the order the Filter contract documents
// (HBase 2.6's RegionScannerImpl over one StoreScanner per family) and
// returns the rows the client would get. Every cell given counts as having
// survived time range, delete and version checks.
func scan(t testing.TB, f Filter, cells []cell.Cell) [][]cell.Cell {
	t.Helper()
	byFam := map[string][]cell.Cell{}
	for _, c := range cells {
		byFam[string(c.Family)] = append(byFam[string(c.Family)], c.Clone())
	}
	fams := make([]string, 0, len(byFam))
	for fam := range byFam {
		fams = append(fams, fam)
	}
	slices.Sort(fams)
	stores := make([]*store, len(fams))
	for i, fam := range fams {
		cs := byFam[fam]
		slices.SortFunc(cs, func(a, b cell.Cell) int { return cell.Compare(&a, &b) })
		stores[i] = &store{cells: cs}
	}

	var out [][]cell.Cell
	for steps := 0; ; steps++ {
		if steps > 10000 {
			t.Fatal("scan does not progress")
		}
		if f.FilterAllRemaining() {
			break
		}
		var first *cell.Cell
		for _, s := range stores {
			if c := s.peek(); c != nil && (first == nil || cell.Compare(c, first) < 0) {
				first = c
			}
		}
		if first == nil {
			break
		}
		row := bytes.Clone(first.Row)
		inRow := func(c *cell.Cell) bool { return bytes.Equal(c.Row, row) }
		endRow := func() {
			for _, s := range stores {
				s.skipWhile(inRow)
			}
		}
		if f.FilterRowKey(first) {
			endRow()
			f.Reset()
			continue
		}
		var results []cell.Cell
		done := false
		for _, s := range stores {
			for c := s.peek(); !done && c != nil && inRow(c); c = s.peek() {
				if f.FilterAllRemaining() {
					done = true
					break
				}
				cur := *c
				switch rc := f.FilterCell(&cur); rc {
				case Include:
					results = append(results, f.TransformCell(cur))
					s.pos++
				case IncludeAndNextCol:
					results = append(results, f.TransformCell(cur))
					s.skipWhile(func(n *cell.Cell) bool { return inRow(n) && cell.SameColumn(n, &cur) })
				case Skip:
					s.pos++
				case NextCol:
					s.skipWhile(func(n *cell.Cell) bool { return inRow(n) && cell.SameColumn(n, &cur) })
				case NextRow:
					s.skipWhile(inRow)
				case IncludeAndSeekNextRow:
					results = append(results, f.TransformCell(cur))
					s.skipWhile(inRow)
				case SeekNextUsingHint:
					hint, ok := f.NextCellHint(&cur)
					if ok && cell.Compare(&hint, &cur) > 0 {
						s.skipWhile(func(n *cell.Cell) bool { return cell.Compare(n, &hint) < 0 })
					} else {
						s.pos++
					}
				default:
					t.Fatalf("unknown return code %v", rc)
				}
			}
		}
		isEmpty := len(results) == 0
		excluded := false
		if f.HasFilterRow() {
			results = f.FilterRowCells(results)
			if len(results) > 0 && f.FilterRow() {
				excluded = true
			}
		} else if !isEmpty && f.FilterRow() {
			excluded = true
		}
		if !isEmpty && !excluded && len(results) > 0 {
			out = append(out, results)
		}
		endRow()
		f.Reset()
		if done {
			break
		}
	}
	return out
}

// render prints rows as "row: fam:qual@ts=value ..." for comparisons.
func render(rows [][]cell.Cell) []string {
	out := []string{}
	for _, r := range rows {
		parts := []string{string(r[0].Row) + ":"}
		for _, c := range r {
			parts = append(parts, fmt.Sprintf("%s:%s@%d=%s", c.Family, c.Qualifier, c.Timestamp, c.Value))
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

// scanCase is one whole-scan expectation.
type scanCase struct {
	name   string
	filter Filter
	cells  []cell.Cell
	want   []string
}

func runScanCases(t *testing.T, cases []scanCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := render(scan(t, tc.filter, tc.cells))
			if !slices.Equal(got, tc.want) {
				t.Errorf("got rows\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// table is shared data: three rows, two families.
var table = []cell.Cell{
	kv("r1", "f", "a", 1, "1"), kv("r1", "f", "b", 1, "2"), kv("r1", "g", "a", 1, "3"),
	kv("r2", "f", "a", 1, "4"), kv("r2", "f", "c", 1, "5"),
	kv("r3", "f", "b", 1, "6"),
}

var (
	r1All = "r1: f:a@1=1 f:b@1=2 g:a@1=3"
	r2All = "r2: f:a@1=4 f:c@1=5"
	r3All = "r3: f:b@1=6"
)

func bin(s string) BinaryComparator { return NewBinaryComparator([]byte(s)) }

func TestScanDriverNoFilter(t *testing.T) {
	runScanCases(t, []scanCase{
		{"empty list", must(NewFilterList(MustPassAll)), table, []string{r1All, r2All, r3All}},
		{"empty OR list", must(NewFilterList(MustPassOne)), table, []string{r1All, r2All, r3All}},
	})
}
