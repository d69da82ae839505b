package region

import (
	"context"
	"testing"

	"github.com/weirdb/weir/internal/filter"
)

// TestFiltersThroughRegion runs filters through real reads: the region's
// call order, per-family NEXT_ROW, seek hints and row-level filtering.
func TestFiltersThroughRegion(t *testing.T) {
	ctx := context.Background()
	r, _ := openTestRegion(t)
	mustMutate(t, r,
		put("a1", "f1", "c1", 1, "x"), put("a1", "f1", "c2", 1, "y"), put("a1", "f2", "c1", 1, "z"),
		put("a2", "f1", "c1", 1, "x"), put("a2", "f1", "c3", 1, "w"),
		put("b1", "f1", "c1", 1, "q"), put("b1", "f2", "c2", 1, "x"),
		put("b2", "f1", "c1", 2, "new"), put("b2", "f1", "c1", 1, "old"),
	)
	must := mustFilter(t)
	for _, tc := range []struct {
		name     string
		f        filter.Filter
		versions int
		want     string
	}{
		{"prefix", filter.NewPrefixFilter([]byte("b")), 1,
			"b1/f1:c1/1/Put=q\nb1/f2:c2/1/Put=x\nb2/f1:c1/2/Put=new\n"},
		{"family NEXT_ROW skips only that family", must(filter.NewFamilyFilter(filter.Equal, filter.NewBinaryComparator([]byte("f2")))), 1,
			"a1/f2:c1/1/Put=z\nb1/f2:c2/1/Put=x\n"},
		{"value", must(filter.NewValueFilter(filter.Equal, filter.NewBinaryComparator([]byte("x")))), 1,
			"a1/f1:c1/1/Put=x\na2/f1:c1/1/Put=x\nb1/f2:c2/1/Put=x\n"},
		// Versions are counted before the filter: with one version wanted,
		// b2's older "old" is never offered to the filter.
		{"version before filter", must(filter.NewValueFilter(filter.Equal, filter.NewBinaryComparator([]byte("old")))), 1, ""},
		{"version before filter, 2 versions", must(filter.NewValueFilter(filter.Equal, filter.NewBinaryComparator([]byte("old")))), 2,
			"b2/f1:c1/1/Put=old\n"},
		{"single column value", must(filter.NewSingleColumnValueFilter([]byte("f1"), []byte("c2"), filter.Equal, filter.NewBinaryComparator([]byte("y")))), 1,
			"a1/f1:c1/1/Put=x\na1/f1:c2/1/Put=y\na1/f2:c1/1/Put=z\n" +
				"a2/f1:c1/1/Put=x\na2/f1:c3/1/Put=w\nb1/f1:c1/1/Put=q\nb1/f2:c2/1/Put=x\nb2/f1:c1/2/Put=new\n"},
		{"page of 2 rows", must(filter.NewPageFilter(2)), 1,
			"a1/f1:c1/1/Put=x\na1/f1:c2/1/Put=y\na1/f2:c1/1/Put=z\na2/f1:c1/1/Put=x\na2/f1:c3/1/Put=w\n"},
		{"column range with hints", filter.NewColumnRangeFilter([]byte("c2"), true, []byte("c3"), true), 1,
			"a1/f1:c2/1/Put=y\na2/f1:c3/1/Put=w\nb1/f2:c2/1/Put=x\n"},
		{"key only", filter.NewKeyOnlyFilter(false), 1,
			"a1/f1:c1/1/Put=\na1/f1:c2/1/Put=\na1/f2:c1/1/Put=\na2/f1:c1/1/Put=\na2/f1:c3/1/Put=\nb1/f1:c1/1/Put=\nb1/f2:c2/1/Put=\nb2/f1:c1/2/Put=\n"},
		{"first key only", filter.NewFirstKeyOnlyFilter(), 1,
			"a1/f1:c1/1/Put=x\na2/f1:c1/1/Put=x\nb1/f1:c1/1/Put=q\nb2/f1:c1/2/Put=new\n"},
		{"while match stops the scan", must(filter.NewWhileMatchFilter(must(filter.NewRowFilter(filter.NotEqual, filter.NewBinaryComparator([]byte("a2")))))), 1,
			"a1/f1:c1/1/Put=x\na1/f1:c2/1/Put=y\na1/f2:c1/1/Put=z\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := r.NewScanner(Scan{Filter: tc.f, MaxVersions: tc.versions})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			res, _, err := s.Next(ctx, 100, 0)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			for _, rr := range res {
				got += fmtCells(rr.Cells)
			}
			if got != tc.want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
