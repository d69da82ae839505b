package region

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/cell"
)

// TestRowAtomicity: writers rewrite every column of a row with one value
// per Mutate; readers, by Get and by Scan, must never see two values in one
// row.
func TestRowAtomicity(t *testing.T) {
	ctx := context.Background()
	r, _ := openTestRegion(t)
	const cols = 8
	mut := func(row string, gen int) Mutation {
		m := Mutation{Type: MutationPut, Row: []byte(row)}
		for c := 0; c < cols; c++ {
			m.Cells = append(m.Cells, cell.Cell{Family: []byte("f2"), Qualifier: []byte{byte('a' + c)},
				Timestamp: cell.LatestTimestamp, Value: []byte(fmt.Sprint(gen))})
		}
		return m
	}
	rows := []string{"r0", "r1", "r2"}
	for _, row := range rows {
		mustMutate(t, r, mut(row, 0))
	}
	check := func(res Result) error {
		if len(res.Cells) != cols {
			return fmt.Errorf("row %q has %d cells", res.Row(), len(res.Cells))
		}
		for _, c := range res.Cells {
			if string(c.Value) != string(res.Cells[0].Value) {
				return fmt.Errorf("torn row %q: %s", res.Row(), fmtCells(res.Cells))
			}
		}
		return nil
	}
	stop := make(chan struct{})
	errc := make(chan error, 4)
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for gen := 1; ; gen++ {
				select {
				case <-stop:
					return
				default:
				}
				if err := r.Mutate(ctx, mut(rows[gen%len(rows)], gen)); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	deadline := time.Now().Add(500 * time.Millisecond)
	for time.Now().Before(deadline) {
		res, err := r.Get(ctx, Get{Row: []byte("r1")})
		if err == nil {
			err = check(res)
		}
		if err != nil {
			close(stop)
			t.Fatal(err)
		}
		s, err := r.NewScanner(Scan{})
		if err != nil {
			t.Fatal(err)
		}
		all, _, err := s.Next(ctx, 10, 0)
		s.Close()
		for _, res := range all {
			if err == nil {
				err = check(res)
			}
		}
		if err != nil {
			close(stop)
			t.Fatal(err)
		}
	}
	stopWriters(t, stop, &wg, errc)
}

// stopWriters stops the writers started with stop and wg, and fails the
// test with the first error one sent to errc.
func stopWriters(t *testing.T, stop chan struct{}, wg *sync.WaitGroup, errc chan error) {
	t.Helper()
	close(stop)
	wg.Wait()
	select {
	case err := <-errc:
		t.Fatal(err)
	default:
	}
}

// TestConcurrentIncrements: increments from many goroutines never lose one.
func TestConcurrentIncrements(t *testing.T) {
	ctx := context.Background()
	r, _ := openTestRegion(t)
	const workers, each = 8, 50
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, err := r.Increment(ctx, ReadModifyWrite{Row: []byte("ctr"),
					Columns: []ColumnDelta{{Family: []byte("f1"), Qualifier: []byte("n"), Delta: 1}}}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	res, err := r.Get(ctx, Get{Row: []byte("ctr")})
	if err != nil {
		t.Fatal(err)
	}
	if got := int64(binary.BigEndian.Uint64(res.Cells[0].Value)); got != workers*each {
		t.Fatalf("counter = %d, want %d", got, workers*each)
	}
}

// TestRowLockTimeout: a read-modify-write waiting on a held row lock gives
// up with ErrRowLockTimeout, and the lock still works afterwards.
func TestRowLockTimeout(t *testing.T) {
	ctx := context.Background()
	r, _ := openTestRegion(t)
	r.opts.RowLockTimeout = 50 * time.Millisecond
	held, err := r.locks.acquire(ctx, []lockRequest{{stripe: stripeOf([]byte("x")), exclusive: true}}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Increment(ctx, ReadModifyWrite{Row: []byte("x"), Columns: []ColumnDelta{{Family: []byte("f1"), Qualifier: []byte("n"), Delta: 1}}})
	if !errors.Is(err, ErrRowLockTimeout) {
		t.Fatalf("err = %v, want ErrRowLockTimeout", err)
	}
	held.release()
	if _, err := r.Increment(ctx, ReadModifyWrite{Row: []byte("x"), Columns: []ColumnDelta{{Family: []byte("f1"), Qualifier: []byte("n"), Delta: 1}}}); err != nil {
		t.Fatal(err)
	}
}

// TestMajorCompactionKeepsConcurrentWrites: puts acknowledged while major
// compactions' passes rewrite the rows as images are all there after:
// a pass that cleans a row without reading it again (writeSeq) must not
// do so when a write began after its view, nor delete a newer key.
func TestMajorCompactionKeepsConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	const rows, writers = 200, 2
	r := looseRowsRegion(t, rows)
	var last [rows]atomic.Int64 // the value last acknowledged in q1, 0: none
	stop := make(chan struct{})
	errc := make(chan error, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(w), 1))
			for gen := int64(1); ; gen++ {
				select {
				case <-stop:
					return
				default:
				}
				i := rnd.IntN(rows/writers)*writers + w // rows are the writer's own
				m := put(fmt.Sprintf("r%02d", i), "f1", "q1", cell.LatestTimestamp, fmt.Sprint(gen))
				if err := r.Mutate(ctx, m); err != nil {
					errc <- err
					return
				}
				last[i].Store(gen)
			}
		})
	}
	for range 3 {
		if err := r.Compact(ctx, true); err != nil {
			close(stop)
			wg.Wait()
			t.Fatal(err)
		}
	}
	stopWriters(t, stop, &wg, errc)
	for i := range rows {
		row := fmt.Sprintf("r%02d", i)
		res, err := r.Get(ctx, Get{Row: []byte(row)})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"q0": "v", "q1": "v", "q2": "v", "q3": "v"}
		if g := last[i].Load(); g > 0 {
			want["q1"] = fmt.Sprint(g)
		}
		got := map[string]string{}
		for _, c := range res.Cells {
			got[string(c.Qualifier)] = string(c.Value)
		}
		if !maps.Equal(got, want) {
			t.Fatalf("row %s: %s, want %v", row, fmtCells(res.Cells), want)
		}
	}
}

// TestMajorCompactionRereadsRowsWrittenAfterItsView: a put made after a
// pass read a row over its view and before it cleans the row, to the
// very key the view holds (an explicit timestamp), survives the pass: the
// pass reads the row again under its lock rather than write an image of
// the view's cells and delete the key it saw, now the new put's.
func TestMajorCompactionRereadsRowsWrittenAfterItsView(t *testing.T) {
	ctx := context.Background()
	r := looseRowsRegion(t, 20)
	r.beforeCleanRow = func(row []byte) {
		if string(row) == "r07" {
			mustMutate(t, r, put("r07", "f1", "q1", 11, "w"))
		}
	}
	if err := r.Compact(ctx, true); err != nil {
		t.Fatal(err)
	}
	res, err := r.Get(ctx, Get{Row: []byte("r07")})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cells {
		if string(c.Qualifier) == "q1" && string(c.Value) != "w" {
			t.Fatalf("r07 after the pass: %s, want q1 = w", fmtCells(res.Cells))
		}
	}
	if n, imgs := keysAndImages(t, r); n != 20 || imgs != 20 {
		t.Fatalf("after the pass the store holds %d keys, %d of them images, want 20 images", n, imgs)
	}
}
