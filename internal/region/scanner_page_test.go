package region

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
)

// TestPageFilterAsRowLimit: a scan whose filter only counts rows (a
// PageFilter, alone or with empty lists, filter.PageOnly) runs as a row
// limit per region scanner. Call by call it must return what the filter
// returns run over each row, with the same more and FilterEnded: the same
// PageFilter in a one-entry MUST_PASS_ONE list, which is the same filter
// but not taken for a page, is the oracle. The region holds row images
// (compacted), rows written after them, and rows whose every cell is
// deleted, which a PageFilter does not count.
func TestPageFilterAsRowLimit(t *testing.T) {
	r, _ := openTestRegion(t)
	for i := range 24 {
		row := fmt.Sprintf("r%02d", i)
		mustMutate(t, r, put(row, "f1", "a", 1, "v"+row), put(row, "f1", "b", 1, "w"+row), put(row, "f2", "c", 1, "x"+row))
	}
	if err := r.Compact(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	for i := 20; i < 30; i++ { // after the images: keys of their own, and new rows
		mustMutate(t, r, put(fmt.Sprintf("r%02d", i), "f1", "a", 2, "later"))
	}
	for _, row := range []string{"r03", "r04", "r11", "r27"} { // empty rows
		mustMutate(t, r, del(row, "f1", "", 5, cell.TypeDeleteFamily), del(row, "f2", "", 5, cell.TypeDeleteFamily))
	}
	pageOf := func(n int64) *filter.PageFilter { return &filter.PageFilter{PageSize: n} }
	for _, page := range []int64{1, 2, 5, 19, 26, 27, 40} {
		for _, rows := range []int{1, 2, 3, 5, 19, 100} {
			for _, maxBytes := range []int64{0, 40} {
				for _, start := range []string{"", "r10"} {
					for _, limit := range []int{0, 4} {
						for _, reversed := range []bool{false, true} {
							name := fmt.Sprintf("page %d, %d rows a call, %d bytes, from %q, limit %d, reversed %v", page, rows, maxBytes, start, limit, reversed)
							// Each scanner gets a filter of its own: a filter
							// keeps its scan's state.
							scan := func(f func() filter.Filter) func() Scan {
								return func() Scan {
									return Scan{StartRow: []byte(start), Filter: f(), Limit: limit, Reversed: reversed}
								}
							}
							got := pageCalls(t, r, scan(func() filter.Filter { return pageOf(page) }), rows, maxBytes)
							want := pageCalls(t, r, scan(func() filter.Filter {
								return &filter.FilterList{Operator: filter.MustPassOne, Filters: []filter.Filter{pageOf(page)}}
							}), rows, maxBytes)
							if got != want {
								t.Fatalf("%s:\n%s\nwant (the filter run over each row):\n%s", name, got, want)
							}
							andList := pageCalls(t, r, scan(func() filter.Filter {
								return &filter.FilterList{Operator: filter.MustPassAll,
									Filters: []filter.Filter{&filter.FilterList{Operator: filter.MustPassAll}, pageOf(page)}}
							}), rows, maxBytes)
							if andList != want {
								t.Fatalf("%s, in an AND list:\n%s\nwant:\n%s", name, andList, want)
							}
						}
					}
				}
			}
		}
	}
}

// pageCalls runs a scan to its end through both of the region server's
// read paths, the cellblock (NextKV) and cells (NextBatch), and renders
// each call's rows, more and FilterEnded.
func pageCalls(t *testing.T, r *Region, scan func() Scan, rows int, maxBytes int64) string {
	t.Helper()
	var out bytes.Buffer
	for _, kv := range []bool{true, false} {
		sc, err := r.NewScanner(scan())
		if err != nil {
			t.Fatal(err)
		}
		for call := 0; ; call++ {
			if call > 100 {
				t.Fatal("scan does not end")
			}
			var more bool
			if kv {
				var b KVBatch
				more, err = sc.NextKV(context.Background(), rows, maxBytes, &b)
				fmt.Fprintf(&out, "kv %d: %d rows %v %x", call, b.Len(), b.CellsPerResult, b.Block)
			} else {
				var b ScanBatch
				more, err = sc.NextBatch(context.Background(), rows, maxBytes, &b)
				fmt.Fprintf(&out, "cells %d: %d rows\n%s", call, b.Len(), fmtCells(b.Cells))
			}
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&out, " more=%v filterEnded=%v\n", more, sc.FilterEnded())
			if !more {
				break
			}
		}
		sc.Close()
	}
	return out.String()
}
