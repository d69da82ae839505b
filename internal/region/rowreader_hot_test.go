package region

import (
	"bytes"
	"context"
	"fmt"
	"testing"
)

// TestScanHotRows checks that a scan that takes rows with runs of versions
// from the row cache (rowreader_hot.go) returns the cellblock a region
// without images or cache returns, for rows cached and not, after the
// cached rows were patched by more updates, and with the scan's columns
// narrowed.
func TestScanHotRows(t *testing.T) {
	ctx := context.Background()
	fams := []FamilyDescriptor{{Name: []byte("f1")}, {Name: []byte("f2")}}
	cache := NewRowCache(1 << 20)
	hot, _ := openTestRegionOpts(t, Options{RowCache: cache}, fams...)
	ref, _ := openTestRegionOpts(t, Options{NoRowImages: true}, fams...)
	both := func(m Mutation) { mustMutate(t, hot, m); mustMutate(t, ref, m) }
	const rows = 12
	ts := int64(1)
	for i := range rows {
		for _, f := range []string{"f1", "f2"} {
			for q := range 3 {
				both(put(fmt.Sprintf("r%02d", i), f, fmt.Sprintf("q%d", q), ts, "v0"))
			}
		}
	}
	if err := hot.Compact(ctx, true); err != nil {
		t.Fatal(err)
	}
	// Rows 2, 5 and 9 get runs of versions in every column of f1, row 7
	// one update; 2 and 5 are read (cached) halfway, 9 never is.
	update := func(rounds int) {
		for range rounds {
			for _, i := range []int{2, 5, 9} {
				for q := range 3 {
					// A cached row is patched with puts newer than it.
					ts++
					both(put(fmt.Sprintf("r%02d", i), "f1", fmt.Sprintf("q%d", q), ts, fmt.Sprintf("v%d", ts)))
				}
			}
		}
	}
	update(20)
	for _, row := range []string{"r02", "r05"} {
		if _, err := hot.Get(ctx, Get{Row: []byte(row)}); err != nil {
			t.Fatal(err)
		}
	}
	update(20)
	ts++
	both(put("r07", "f2", "q1", ts, "late"))
	before := cache.Stats().Hits
	for si, s := range []Scan{{}, {Columns: []Columns{{Family: []byte("f1")}}},
		{Columns: []Columns{{Family: []byte("f2")}, {Family: []byte("f1"), Qualifiers: [][]byte{[]byte("q1")}}}},
		{StartRow: []byte("r05"), StopRow: []byte("r10")}} {
		if a, b := scanKV(t, hot, s), scanKV(t, ref, s); !bytes.Equal(a, b) {
			t.Fatalf("scan %d: the cellblocks differ:\nhot rows:\n%s\nreference:\n%s", si, scanInSteps(t, hot, s, 2), scanInSteps(t, ref, s, 2))
		}
	}
	// The whole-row scans take rows 2 and 5 from the cache, and the
	// bounded one row 5; the others read the rows from the store (their
	// columns leave the merge of image and keys).
	if hits := cache.Stats().Hits - before; hits != 3 {
		t.Fatalf("the scans took %d rows from the row cache, want 3", hits)
	}
}
