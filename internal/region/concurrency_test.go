package region

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
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
