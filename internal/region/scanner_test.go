package region

import (
	"context"
	"fmt"
	"testing"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
)

// scanInSteps runs a fresh scan with rows results per Next call and
// renders all its results, each result's cells on a line of their own.
func scanInSteps(t *testing.T, r *Region, s Scan, rows int) string {
	t.Helper()
	return scanInStepsWith(t, r, s, func(sc *Scanner) ([]Result, bool, error) {
		return sc.Next(context.Background(), rows, 0)
	})
}

// scanInStepsWith is scanInSteps with next making each call.
func scanInStepsWith(t *testing.T, r *Region, s Scan, next func(*Scanner) ([]Result, bool, error)) string {
	t.Helper()
	sc, err := r.NewScanner(s)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var got string
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("scanner does not end")
		}
		res, more, err := next(sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range res {
			got += fmt.Sprintf("[partial=%v]\n%s", x.Partial, fmtCells(x.Cells))
		}
		if !more {
			return got
		}
	}
}

// TestScanInStepsMatchesOneCall checks that a scan gives the same results
// however many rows each call asks for: a row read where the previous one
// left the iterator, across calls, with filters that skip, seek and end
// the scan.
func TestScanInStepsMatchesOneCall(t *testing.T) {
	r, _ := openTestRegion(t)
	var muts []Mutation
	for i := range 12 {
		row := fmt.Sprintf("r%02d", i)
		for c := range i%4 + 1 {
			muts = append(muts, put(row, "f1", fmt.Sprintf("c%d", c), 1, fmt.Sprintf("v%d", i)))
		}
		if i%3 == 0 {
			muts = append(muts, put(row, "f2", "x", 1, "y"))
		}
	}
	mustMutate(t, r, muts...)
	must := mustFilter(t)
	for _, tc := range []struct {
		name string
		scan func() Scan
	}{
		{"all", func() Scan { return Scan{} }},
		{"reversed", func() Scan { return Scan{Reversed: true} }},
		{"start and stop", func() Scan { return Scan{StartRow: []byte("r03"), StopRow: []byte("r09")} }},
		{"limit", func() Scan { return Scan{Limit: 5} }},
		{"batch", func() Scan { return Scan{Batch: 2} }},
		{"family", func() Scan { return Scan{Columns: []Columns{{Family: []byte("f2")}}} }},
		{"column", func() Scan {
			return Scan{Columns: []Columns{{Family: []byte("f1"), Qualifiers: [][]byte{[]byte("c2")}}}}
		}},
		{"page", func() Scan { return Scan{Filter: must(filter.NewPageFilter(4))} }},
		{"prefix ends the scan", func() Scan { return Scan{Filter: filter.NewPrefixFilter([]byte("r0"))} }},
		{"column range hints", func() Scan { return Scan{Filter: filter.NewColumnRangeFilter([]byte("c1"), true, []byte("c2"), true)} }},
		{"row filter skips a row", func() Scan {
			return Scan{Filter: must(filter.NewRowFilter(filter.NotEqual, filter.NewBinaryComparator([]byte("r03"))))}
		}},
		{"first key only", func() Scan { return Scan{Filter: filter.NewFirstKeyOnlyFilter()} }},
		{"while match", func() Scan {
			return Scan{Filter: must(filter.NewWhileMatchFilter(must(filter.NewRowFilter(filter.Less, filter.NewBinaryComparator([]byte("r07"))))))}
		}},
		{"value", func() Scan {
			return Scan{Filter: must(filter.NewValueFilter(filter.Equal, filter.NewBinaryComparator([]byte("v5"))))}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := scanInSteps(t, r, tc.scan(), 100)
			if want == "" {
				t.Fatal("the scan returned nothing: the case tests nothing")
			}
			for _, rows := range []int{1, 2, 3} {
				if got := scanInSteps(t, r, tc.scan(), rows); got != want {
					t.Fatalf("%d rows per call:\n%s\none call:\n%s", rows, got, want)
				}
				if got := scanInStepsKV(t, r, tc.scan(), rows, 0); got != want {
					t.Fatalf("NextKV, %d rows per call:\n%s\nNext, one call:\n%s", rows, got, want)
				}
			}
		})
	}
}

// mustFilter returns a helper that unwraps a filter constructor's result,
// failing t on an error.
func mustFilter(t *testing.T) func(filter.Filter, error) filter.Filter {
	return func(f filter.Filter, err error) filter.Filter {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
}

// TestScanPageEndsAtBatchBoundary checks that a scanner whose filter is
// done right after a full batch says so at once (so the region server can
// answer more_results=false instead of waiting for an empty next call),
// and that a filter done inside a batch ends only this region's scan.
func TestScanPageEndsAtBatchBoundary(t *testing.T) {
	ctx := context.Background()
	r, _ := openTestRegion(t)
	for i := range 10 {
		mustMutate(t, r, put(fmt.Sprintf("r%d", i), "f1", "c", 1, "v"))
	}
	for _, tc := range []struct {
		page, rows        int
		wantRows          []int // rows returned by each call
		wantFilterEndedAt int   // the call after which FilterEnded, -1 never
	}{
		{page: 3, rows: 3, wantRows: []int{3}, wantFilterEndedAt: 0},
		{page: 6, rows: 3, wantRows: []int{3, 3}, wantFilterEndedAt: 1},
		{page: 5, rows: 3, wantRows: []int{3, 2}, wantFilterEndedAt: -1},
		{page: 20, rows: 4, wantRows: []int{4, 4, 2}, wantFilterEndedAt: -1},
	} {
		t.Run(fmt.Sprintf("page %d, %d rows a call", tc.page, tc.rows), func(t *testing.T) {
			f, err := filter.NewPageFilter(int64(tc.page))
			if err != nil {
				t.Fatal(err)
			}
			sc, err := r.NewScanner(Scan{Filter: f})
			if err != nil {
				t.Fatal(err)
			}
			defer sc.Close()
			for call, want := range tc.wantRows {
				res, more, err := sc.Next(ctx, tc.rows, 0)
				if err != nil {
					t.Fatal(err)
				}
				last := call == len(tc.wantRows)-1
				if len(res) != want || more == last {
					t.Fatalf("call %d: %d rows, more %v; want %d rows, more %v", call, len(res), more, want, !last)
				}
				if ended := sc.FilterEnded(); ended != (call == tc.wantFilterEndedAt) {
					t.Fatalf("call %d: FilterEnded %v", call, ended)
				}
			}
		})
	}
}

// TestScanBatchLayout checks NextBatch's flat layout against the Results
// of the same scan: cells in order, a count and a partial flag per result.
func TestScanBatchLayout(t *testing.T) {
	ctx := context.Background()
	r, _ := openTestRegion(t)
	for i := range 6 {
		for c := range 2 * i {
			mustMutate(t, r, put(fmt.Sprintf("r%d", i), "f1", fmt.Sprintf("c%02d", c), 1, "v"))
		}
	}
	want := scanInSteps(t, r, Scan{Batch: 3}, 100)
	sc, err := r.NewScanner(Scan{Batch: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var b ScanBatch
	for more := true; more; {
		if more, err = sc.NextBatch(ctx, 2, 0, &b); err != nil {
			t.Fatal(err)
		}
	}
	total := 0
	for _, n := range b.CellsPerResult {
		total += int(n)
	}
	if total != len(b.Cells) || len(b.Partial) != b.Len() {
		t.Fatalf("%d cells, counts sum to %d; %d partial flags for %d results", len(b.Cells), total, len(b.Partial), b.Len())
	}
	var got string
	for _, x := range b.Results() {
		got += fmt.Sprintf("[partial=%v]\n%s", x.Partial, fmtCells(x.Cells))
	}
	if got != want {
		t.Fatalf("batch:\n%s\nresults:\n%s", got, want)
	}
}

// Naming every family of the table, each whole, reads what naming none
// does, and the query says so (no columns to check family by family); a
// qualifier or a missing family keeps the columns.
// TestQueryEmptyFilterListIsNone: an empty filter list (YCSB's HBase
// binding sends one with every scan) reads as no filter, so the scan keeps
// the one-copy path for row images; a list with a filter in it is kept.
func TestQueryEmptyFilterListIsNone(t *testing.T) {
	r, _ := openTestRegion(t)
	page, err := filter.NewPageFilter(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    filter.Filter
		none bool
	}{
		{"empty AND list", &filter.FilterList{Operator: filter.MustPassAll}, true},
		{"empty OR list in an AND list", &filter.FilterList{Operator: filter.MustPassAll,
			Filters: []filter.Filter{&filter.FilterList{Operator: filter.MustPassOne}}}, true},
		{"a list with a PageFilter", &filter.FilterList{Operator: filter.MustPassAll, Filters: []filter.Filter{page}}, false},
	} {
		q, err := r.newQuery(nil, cell.AllTime, 1, tc.f, false, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if none := q.filter == nil; none != tc.none {
			t.Errorf("%s: query filter %v; want none: %v", tc.name, q.filter, tc.none)
		}
	}
	// Read back through a major compaction's row images: the same cells
	// with the empty list as without a filter.
	for _, row := range []string{"a", "b", "c"} {
		mustMutate(t, r, put(row, "f1", "q1", 1, "x"+row), put(row, "f1", "q2", 1, "y"+row), put(row, "f2", "q", 1, "z"+row))
	}
	if err := r.Compact(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	want := fmtCells(scanAll(t, r, Scan{}))
	if got := fmtCells(scanAll(t, r, Scan{Filter: &filter.FilterList{Operator: filter.MustPassAll}})); got != want || want == "" {
		t.Errorf("scan with an empty filter list:\n%s\nwant:\n%s", got, want)
	}
}

func TestQueryAllFamiliesIsAll(t *testing.T) {
	r, _ := openTestRegion(t) // families f1 and f2
	for _, tc := range []struct {
		name string
		cols []Columns
		all  bool
	}{
		{"both", []Columns{{Family: []byte("f2")}, {Family: []byte("f1")}}, true},
		{"both, one twice", []Columns{{Family: []byte("f1")}, {Family: []byte("f2")}, {Family: []byte("f1"), Qualifiers: [][]byte{[]byte("q")}}}, true},
		{"one", []Columns{{Family: []byte("f1")}}, false},
		{"a qualifier", []Columns{{Family: []byte("f1")}, {Family: []byte("f2"), Qualifiers: [][]byte{[]byte("q")}}}, false},
	} {
		q, err := r.newQuery(tc.cols, cell.AllTime, 1, nil, false, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if all := q.columns == nil; all != tc.all {
			t.Errorf("%s: columns %v; want all: %v", tc.name, q.columns, tc.all)
		}
	}
	mustMutate(t, r, put("r", "f1", "a", 1, "x"), put("r", "f2", "b", 1, "y"))
	for _, cols := range [][]Columns{nil, {{Family: []byte("f1")}, {Family: []byte("f2")}}} {
		res, err := r.Get(context.Background(), Get{Row: []byte("r"), Columns: cols})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmtCells(res.Cells); got != "r/f1:a/1/Put=x\nr/f2:b/1/Put=y\n" {
			t.Errorf("Get of %v:\n%s", cols, got)
		}
	}
}
