package region

import (
	"context"
	"testing"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
)

func TestRequestCounts(t *testing.T) {
	ctx := context.Background()
	r, _ := openTestRegion(t)
	type counts struct{ reads, writes uint64 }
	check := func(step string, want counts) {
		t.Helper()
		if rd, wr := r.RequestCounts(); (counts{rd, wr}) != want {
			t.Fatalf("after %s: reads %d writes %d, want %+v", step, rd, wr, want)
		}
	}
	check("open", counts{})
	mustMutate(t, r, put("a", "f1", "q", 1, "v"), put("b", "f1", "q", 1, "v"), put("c", "f1", "q", 1, "v"))
	check("a 3-mutation batch", counts{0, 3})
	if _, err := r.Get(ctx, Get{Row: []byte("a")}); err != nil {
		t.Fatal(err)
	}
	check("get", counts{1, 3})
	s, err := r.NewScanner(Scan{})
	if err != nil {
		t.Fatal(err)
	}
	if rows, _, err := s.Next(ctx, 2, 0); err != nil || len(rows) != 2 {
		t.Fatalf("scan: %d rows, %v", len(rows), err)
	}
	_ = s.Close()
	check("a scan of two rows", counts{3, 3})
	if _, err := r.Increment(ctx, ReadModifyWrite{Row: []byte("n"), Columns: []ColumnDelta{{Family: []byte("f1"), Qualifier: []byte("c"), Delta: 1}}}); err != nil {
		t.Fatal(err)
	}
	check("increment", counts{3, 4})
	ok, err := r.CheckAndMutate(ctx, []byte("a"), Condition{Family: []byte("f1"), Qualifier: []byte("q"), Op: filter.Equal, Comparator: filter.NewBinaryComparator([]byte("v"))},
		del("a", "f1", "q", cell.LatestTimestamp, cell.TypeDelete))
	if err != nil || !ok {
		t.Fatalf("check-and-mutate: %v %v", ok, err)
	}
	check("check-and-mutate", counts{3, 5})
	// A refused write counts nothing.
	if err := r.Mutate(ctx, put("", "f1", "q", 1, "v")); err == nil {
		t.Fatal("empty row accepted")
	}
	check("a refused mutation", counts{3, 5})
}
