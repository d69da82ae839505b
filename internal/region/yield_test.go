package region

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/cell"
)

// countingYielder yields its processor, and sleeps now and then, at every
// safe point it is given.
type countingYielder struct{ n int }

func (y *countingYielder) Yield(context.Context) {
	y.n++
	runtime.Gosched()
	if y.n%7 == 0 {
		time.Sleep(50 * time.Microsecond)
	}
}

// TestScanYieldSameRows: a scan whose context carries a Yielder (the
// region server's LOW-priority safe point) returns exactly the rows and
// row parts of the same scan without one, and the Yielder is called.
func TestScanYieldSameRows(t *testing.T) {
	r, _ := openTestRegion(t)
	var muts []Mutation
	for i := range 200 {
		row := fmt.Sprintf("row%03d", i)
		for q := range i % 5 {
			muts = append(muts, put(row, "f1", fmt.Sprintf("q%d", q), int64(10+q), fmt.Sprintf("v%d.%d", i, q)))
		}
		if i%3 == 0 {
			muts = append(muts, put(row, "f2", "x", 7, "x"))
		}
	}
	mustMutate(t, r, muts...)
	mustMutate(t, r, del("row010", "f1", "q1", 11, cell.TypeDelete), del("row050", "f2", "x", 7, cell.TypeDeleteColumn))
	for _, tc := range []struct {
		name string
		scan Scan
		page int
	}{
		{"all", Scan{}, 1000},
		{"pages of 7", Scan{}, 7},
		{"reversed", Scan{Reversed: true}, 13},
		{"batch", Scan{Batch: 2}, 5},
		{"limit", Scan{Limit: 33}, 10},
		{"range", Scan{StartRow: []byte("row020"), StopRow: []byte("row120")}, 9},
		{"one family", Scan{Columns: []Columns{{Family: []byte("f2")}}}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			paged := func(ctx context.Context) string {
				return scanInStepsWith(t, r, tc.scan, func(sc *Scanner) ([]Result, bool, error) {
					return sc.Next(ctx, tc.page, 0)
				})
			}
			want := paged(context.Background())
			y := &countingYielder{}
			got := paged(WithYielder(context.Background(), y))
			if got != want {
				t.Fatalf("with a yielder:\n%s\nwithout:\n%s", got, want)
			}
			if want == "" || y.n == 0 {
				t.Fatalf("scan returned %d bytes, yielder called %d times; want both non-zero", len(want), y.n)
			}
		})
	}
}
