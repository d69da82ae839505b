package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/weirdb/weir/client"
)

// lendValue is a row's value in the lending tests: large enough that
// responses are read into pooled frames, distinct per row and column so
// that a frame reused while still lent shows as a wrong value.
func lendValue(row string, q int) []byte {
	return bytes.Repeat(fmt.Appendf(nil, "%s/%d;", row, q), 60)
}

func lendTable(t *testing.T, name string) (*client.Table, []string) {
	t.Helper()
	tbl := createTable(t, name, "r10", "r20", "r30")
	var rows []string
	var puts []client.Action
	for i := range 40 {
		row := fmt.Sprintf("r%02d", i)
		rows = append(rows, row)
		p := client.NewPut(b(row))
		for q := range 3 {
			p.AddColumn(fam, fmt.Appendf(nil, "q%d", q), lendValue(row, q))
		}
		puts = append(puts, p)
	}
	if _, err := tbl.Batch(context.Background(), puts); err != nil {
		t.Fatal(err)
	}
	return tbl, rows
}

// checkLent checks a lent Result's cells against what lendTable wrote.
func checkLent(r *client.Result) error {
	if len(r.Cells) != 3 {
		return fmt.Errorf("row %q: %d cells, want 3", r.Row, len(r.Cells))
	}
	for q, c := range r.Cells {
		if !bytes.Equal(c.Row, r.Row) || !bytes.Equal(c.Value, lendValue(string(r.Row), q)) {
			return fmt.Errorf("row %q cell %d: row %q, value %.20q...", r.Row, q, c.Row, c.Value)
		}
	}
	return nil
}

func TestScanFunc(t *testing.T) {
	ctx := context.Background()
	tbl, rows := lendTable(t, "lendscan")
	rev := slices.Clone(rows)
	slices.Reverse(rev)
	for _, tc := range []struct {
		name string
		s    *client.Scan
		want []string
	}{
		{"all", client.NewScan(), rows},
		{"caching 3", client.NewScan().SetCaching(3), rows},
		{"limit across regions", client.NewScan().WithStartRow(b("r08"), true).SetLimit(5).SetCaching(2), rows[8:13]},
		{"reversed", client.NewScan().SetReversed(true).SetCaching(7), rev},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			err := tbl.ScanFunc(ctx, tc.s, func(r *client.Result) error {
				got = append(got, string(r.Row)) // a copy: r is lent
				return checkLent(r)
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("rows %q, want %q", got, tc.want)
			}
			if want := scanRows(t, tbl, tc.s); !slices.Equal(got, want) {
				t.Errorf("ScanFunc rows %q, Scan rows %q", got, want)
			}
		})
	}
	t.Run("stop", func(t *testing.T) {
		n := 0
		err := tbl.ScanFunc(ctx, client.NewScan().SetCaching(4), func(*client.Result) error {
			if n++; n == 6 {
				return client.ErrStopScan
			}
			return nil
		})
		if err != nil || n != 6 {
			t.Errorf("stopped after %d results with %v, want 6 and nil", n, err)
		}
	})
	t.Run("callback error", func(t *testing.T) {
		boom := errors.New("boom")
		if err := tbl.ScanFunc(ctx, client.NewScan(), func(*client.Result) error { return boom }); err != boom {
			t.Errorf("ScanFunc = %v, want the callback's error as is", err)
		}
	})
	t.Run("missing table", func(t *testing.T) {
		err := testConn.Table("lendnosuch").ScanFunc(ctx, client.NewScan(), func(*client.Result) error { return nil })
		if !errors.Is(err, client.ErrTableNotFound) {
			t.Errorf("ScanFunc on a missing table = %v", err)
		}
	})
}

// TestLentConcurrent runs lending Gets and scans from many goroutines
// at once, so that a buffer handed back while still lent, or lent to two
// callers, shows as a wrong cell (and as a race under -race).
func TestLentConcurrent(t *testing.T) {
	ctx := context.Background()
	tbl, rows := lendTable(t, "lendconc")
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Go(func() {
			for i := range 30 {
				row := rows[(g*7+i)%len(rows)]
				var err error
				if i%3 == 0 {
					n := 0
					err = tbl.ScanFunc(ctx, client.NewScan().WithStartRow(b(row), true).SetLimit(5).SetCaching(5), func(r *client.Result) error {
						n++
						return checkLent(r)
					})
					if err == nil && n == 0 {
						err = fmt.Errorf("scan from %s: no rows", row)
					}
				} else {
					err = tbl.GetFunc(ctx, client.NewGet(b(row)), func(r *client.Result) error {
						if string(r.Row) != row {
							return fmt.Errorf("GetFunc(%s) lent row %q", row, r.Row)
						}
						return checkLent(r)
					})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestGetFunc(t *testing.T) {
	ctx := context.Background()
	tbl, _ := lendTable(t, "lendget")
	var cells int
	err := tbl.GetFunc(ctx, client.NewGet(b("r17")).AddColumn(fam, b("q1")), func(r *client.Result) error {
		cells = len(r.Cells)
		if !r.Exists || !bytes.Equal(r.Value(fam, b("q1")), lendValue("r17", 1)) {
			return fmt.Errorf("r17/q1: %v", r.Cells)
		}
		return nil
	})
	if err != nil || cells != 1 {
		t.Fatalf("GetFunc of one column: %d cells, %v", cells, err)
	}
	err = tbl.GetFunc(ctx, client.NewGet(b("nosuchrow")), func(r *client.Result) error {
		if r.Exists || len(r.Cells) != 0 {
			return fmt.Errorf("missing row: %v", r.Cells)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := tbl.GetFunc(ctx, client.NewGet(b("r01")), func(*client.Result) error { return boom }); err != boom {
		t.Errorf("GetFunc = %v, want the callback's error as is", err)
	}
	if err := tbl.GetFunc(ctx, client.NewGet(nil), func(*client.Result) error { return nil }); err == nil {
		t.Error("GetFunc of an empty row: no error")
	}
}

// BenchmarkScanFunc runs YCSB workload E's scan as the bench binding does
// (limit = caching = rows, one RPC) against the in-process cluster, rows
// of 10 cells × 100 B: client and server CPU together, and the client's
// allocations with the server's.
func BenchmarkScanFunc(b *testing.B) {
	ctx := context.Background()
	tbl := createTable(b, "benchscanfunc")
	var puts []client.Action
	value := bytes.Repeat([]byte{0xAB}, 100)
	for i := range 200 {
		p := client.NewPut(fmt.Appendf(nil, "user%019d", i))
		for f := range 10 {
			p.AddColumn(fam, fmt.Appendf(nil, "field%d", f), value)
		}
		puts = append(puts, p)
	}
	if _, err := tbl.Batch(ctx, puts); err != nil {
		b.Fatal(err)
	}
	for _, rows := range []int{1, 50, 100} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s := client.NewScan().WithStartRow([]byte("user0000000000000000050"), true).
					SetLimit(rows).SetCaching(rows).AddFamily(fam)
				n := 0
				err := tbl.ScanFunc(ctx, s, func(*client.Result) error {
					if n++; n >= rows {
						return client.ErrStopScan
					}
					return nil
				})
				if err != nil || n != rows {
					b.Fatalf("%d rows, %v", n, err)
				}
			}
		})
	}
}
