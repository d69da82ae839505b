package region

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbaserpc"
)

// nextViaKV is Scanner.Next through NextKV: the cellblock decoded as a
// client would. b is reused across calls (Reset), as a region server
// reuses its buffers.
func nextViaKV(ctx context.Context, sc *Scanner, b *KVBatch, rows int, maxBytes int64) ([]Result, bool, error) {
	b.Reset()
	more, err := sc.NextKV(ctx, rows, maxBytes, b)
	if err != nil {
		return nil, more, err
	}
	// The cells alias what they are decoded from, and b is reused.
	cells, err := hbaserpc.DecodeCellBlock(bytes.Clone(b.Block), 0)
	if err != nil {
		return nil, more, err
	}
	if len(b.Partial) != b.Len() {
		return nil, more, fmt.Errorf("%d partial flags for %d results", len(b.Partial), b.Len())
	}
	out := make([]Result, 0, b.Len())
	for i, n := range b.CellsPerResult {
		if int(n) > len(cells) {
			return nil, more, fmt.Errorf("result %d claims %d cells, %d left", i, n, len(cells))
		}
		out = append(out, Result{Cells: cells[:n:n], Exists: true, Partial: b.Partial[i]})
		cells = cells[n:]
	}
	if len(cells) != 0 {
		return nil, more, fmt.Errorf("%d cells left over", len(cells))
	}
	return out, more, nil
}

// scanInStepsKV is scanInSteps through NextKV.
func scanInStepsKV(t *testing.T, r *Region, s Scan, rows int, maxBytes int64) string {
	t.Helper()
	var b KVBatch
	return scanInStepsWith(t, r, s, func(sc *Scanner) ([]Result, bool, error) {
		return nextViaKV(context.Background(), sc, &b, rows, maxBytes)
	})
}

// TestScanKVMatchesCells checks NextKV against Next over rows with
// deletes, several versions and two families: what the encoding path
// skips must be what the cell path skips, with byte limits that end a
// call after one or a few rows.
func TestScanKVMatchesCells(t *testing.T) {
	r, _ := openTestRegion(t, FamilyDescriptor{Name: []byte("f1"), MaxVersions: 3}, FamilyDescriptor{Name: []byte("f2"), MaxVersions: 1})
	for i := range 20 {
		row := fmt.Sprintf("r%02d", i)
		for c := range i%5 + 1 {
			for ts := int64(1); ts <= int64(i%3+1); ts++ {
				mustMutate(t, r, put(row, "f1", fmt.Sprintf("c%d", c), ts, fmt.Sprintf("v%d.%d", i, ts)))
			}
		}
		mustMutate(t, r, put(row, "f2", "x", 1, "y"), put(row, "f2", "x", 2, "z"))
		switch i % 4 {
		case 1:
			mustMutate(t, r, del(row, "f1", "c0", 2, cell.TypeDeleteColumn))
		case 2:
			mustMutate(t, r, del(row, "f1", "", 5, cell.TypeDeleteFamily))
		case 3:
			mustMutate(t, r, del(row, "f1", "c1", 1, cell.TypeDelete))
		}
	}
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	mustMutate(t, r, put("r05", "f1", "c9", 7, "late"), del("r06", "f2", "x", 9, cell.TypeDeleteColumn))
	for _, tc := range []struct {
		name string
		scan Scan
	}{
		{"all", Scan{}},
		{"versions", Scan{MaxVersions: 3}},
		{"raw", Scan{Raw: true, MaxVersions: 10}},
		{"reversed", Scan{Reversed: true}},
		{"limit", Scan{Limit: 7, StartRow: []byte("r04")}},
		{"time range", Scan{TimeRange: cell.TimeRange{Min: 2, Max: 3}, MaxVersions: 2}},
		{"column", Scan{Columns: []Columns{{Family: []byte("f1"), Qualifiers: [][]byte{[]byte("c1"), []byte("c3")}}}}},
		{"store limit", Scan{StoreLimit: 2, StoreOffset: 1}},
		{"batch", Scan{Batch: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := scanInSteps(t, r, tc.scan, 100)
			if want == "" {
				t.Fatal("the scan returned nothing: the case tests nothing")
			}
			for _, rows := range []int{1, 3, 100} {
				if got := scanInStepsKV(t, r, tc.scan, rows, 0); got != want {
					t.Fatalf("NextKV, %d rows per call:\n%s\nNext:\n%s", rows, got, want)
				}
			}
			// Byte limits: both paths must stop at the same rows.
			for _, maxBytes := range []int64{1, 40, 300} {
				sc, err := r.NewScanner(tc.scan)
				if err != nil {
					t.Fatal(err)
				}
				kv, err := r.NewScanner(tc.scan)
				if err != nil {
					t.Fatal(err)
				}
				var b KVBatch
				for call := 0; ; call++ {
					w, wmore, werr := sc.Next(context.Background(), 100, maxBytes)
					g, gmore, gerr := nextViaKV(context.Background(), kv, &b, 100, maxBytes)
					if werr != nil || gerr != nil {
						t.Fatal(werr, gerr)
					}
					if fmt.Sprint(w) != fmt.Sprint(g) || wmore != gmore {
						t.Fatalf("maxBytes %d, call %d: NextKV %v (more %v), Next %v (more %v)", maxBytes, call, g, gmore, w, wmore)
					}
					if !wmore {
						break
					}
				}
				sc.Close()
				kv.Close()
			}
		})
	}
}

// TestScanKVClosed checks that NextKV on a closed scanner fails.
func TestScanKVClosed(t *testing.T) {
	r, _ := openTestRegion(t)
	sc, err := r.NewScanner(Scan{})
	if err != nil {
		t.Fatal(err)
	}
	sc.Close()
	var b KVBatch
	if _, err := sc.NextKV(context.Background(), 1, 0, &b); err != ErrScannerClosed {
		t.Fatalf("NextKV after Close: %v, want ErrScannerClosed", err)
	}
}
