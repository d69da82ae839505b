package region

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
	"github.com/weirdb/weir/internal/storage"
)

// getValue returns the newest value of row/f1:q, or "" if there is none.
func getValue(t testing.TB, r *Region, row string) string {
	t.Helper()
	res, err := r.Get(context.Background(), Get{Row: []byte(row)})
	if err != nil {
		t.Fatalf("Get(%s): %v", row, err)
	}
	for _, c := range res.Cells {
		if string(c.Family) == "f1" && string(c.Qualifier) == "q" {
			return string(c.Value)
		}
	}
	return ""
}

// TestGetAfterEveryKindOfWrite: Gets reuse pooled store iterators, so each
// kind of write must be visible to the Get that follows it, on the region
// and on regions that take its rows over (split daughters, a move's
// target), and Gets end with the region.
func TestGetAfterEveryKindOfWrite(t *testing.T) {
	ctx := context.Background()
	fs := vfs.NewMem()
	open := func(dir string) *storage.Engine {
		e, err := storage.Open(storage.Options{Dir: dir, FS: fs})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	src, dst := open("src"), open("dst")
	desc := TableDescriptor{Name: "t", Families: []FamilyDescriptor{{Name: []byte("f1"), MaxVersions: 3}}}
	r, err := Open(src, Info{TableID: 1}, desc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name  string
		write func()
		want  string
	}{
		{"put", func() { mustMutate(t, r, put("a", "f1", "q", cell.LatestTimestamp, "1")) }, "1"},
		{"put again", func() { mustMutate(t, r, put("a", "f1", "q", cell.LatestTimestamp, "2")) }, "2"},
		{"delete", func() { mustMutate(t, r, del("a", "f1", "q", cell.LatestTimestamp, cell.TypeDeleteColumn)) }, ""},
		{"append", func() {
			if _, err := r.Append(ctx, ReadModifyWrite{Row: []byte("a"), Columns: []ColumnDelta{{Family: []byte("f1"), Qualifier: []byte("q"), Value: []byte("x")}}}); err != nil {
				t.Fatal(err)
			}
		}, "x"},
		{"check and mutate", func() {
			ok, err := r.CheckAndMutate(ctx, []byte("a"), Condition{Family: []byte("f1"), Qualifier: []byte("q"), Op: filter.Equal, Comparator: filter.NewBinaryComparator([]byte("x"))},
				put("a", "f1", "q", cell.LatestTimestamp, "y"))
			if err != nil || !ok {
				t.Fatalf("CheckAndMutate = %v, %v", ok, err)
			}
		}, "y"},
		{"replace", func() {
			if err := r.Replace(ctx, []Mutation{put("a", "f1", "q", 5, "replaced")}); err != nil {
				t.Fatal(err)
			}
		}, "replaced"},
	}
	for _, s := range steps {
		getValue(t, r, "a") // leaves a pooled iterator behind
		s.write()
		if got := getValue(t, r, "a"); got != s.want {
			t.Fatalf("after %s: Get = %q, want %q", s.name, got, s.want)
		}
	}

	// Split: the daughters serve the same store, and see a write made just
	// before the split.
	getValue(t, r, "m")
	mustMutate(t, r, put("m", "f1", "q", cell.LatestTimestamp, "before split"))
	ia, ib, err := r.Split([]byte("k"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get(ctx, Get{Row: []byte("a")}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Get on the split parent = %v, want ErrClosed", err)
	}
	da, err := Open(src, ia, desc, Options{ClockFloor: r.ClockHigh()})
	if err != nil {
		t.Fatal(err)
	}
	db, err := Open(src, ib, desc, Options{ClockFloor: r.ClockHigh()})
	if err != nil {
		t.Fatal(err)
	}
	if got := getValue(t, db, "m"); got != "before split" {
		t.Fatalf("daughter Get = %q, want the write made before the split", got)
	}
	mustMutate(t, da, put("a", "f1", "q", cell.LatestTimestamp, "daughter"))
	if got := getValue(t, da, "a"); got != "daughter" {
		t.Fatalf("daughter Get after its put = %q", got)
	}

	// Move: the target store had a stale copy and a pooled iterator over
	// it; after the ingest, Gets there see the moved rows only.
	tb, err := Open(dst, ib, desc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustMutate(t, tb, put("m", "f1", "q", 1, "stale"), put("z", "f1", "q", 1, "stale"))
	if got := getValue(t, tb, "z"); got != "stale" {
		t.Fatalf("target Get before the move = %q", got)
	}
	if _, err := db.Export(ctx, "move.sst"); err != nil {
		t.Fatal(err)
	}
	if err := tb.Ingest(ctx, []string{"move.sst"}); err != nil {
		t.Fatal(err)
	}
	if got := getValue(t, tb, "m"); got != "before split" {
		t.Fatalf("target Get after the move = %q, want the moved value", got)
	}
	if got := getValue(t, tb, "z"); got != "" {
		t.Fatalf("target Get of a stale row after the move = %q", got)
	}

	// Closing regions and stores: pooled iterators are the store's, and
	// closing it closes them (Pebble reports leaked iterators otherwise).
	for _, reg := range []*Region{da, db, tb} {
		if err := reg.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range []*storage.Engine{src, dst} {
		if err := e.Close(); err != nil {
			t.Fatalf("closing a store after pooled Gets: %v", err)
		}
	}
}

// TestConcurrentGetsAndPuts: writers Get their row right after each Put
// and must see it; readers must never see a row's value go back; flushes
// reshape the store meanwhile.
func TestConcurrentGetsAndPuts(t *testing.T) {
	r, _ := openTestRegion(t)
	concurrentGetsAndPuts(t, r, 3, 200)
}

// concurrentGetsAndPuts runs TestConcurrentGetsAndPuts's writers and
// readers on r: readers alternate Gets of the whole row with GetIntos of
// family f1, and every row ends at its last value.
func concurrentGetsAndPuts(t *testing.T, r *Region, readers, rounds int) {
	ctx := context.Background()
	const writers = 3
	val := func(i int) string { return fmt.Sprintf("%05d", i) }
	errc := make(chan error, writers+readers+1)
	var wg, rg sync.WaitGroup
	done := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			row := fmt.Sprintf("w%d", w)
			for i := 1; i <= rounds; i++ {
				if err := r.Mutate(ctx, put(row, "f1", "q", cell.LatestTimestamp, val(i))); err != nil {
					errc <- err
					return
				}
				res, err := r.Get(ctx, Get{Row: []byte(row)})
				if err != nil || len(res.Cells) != 1 || string(res.Cells[0].Value) != val(i) {
					errc <- fmt.Errorf("writer %d: Get after putting %s = %s, %v", w, val(i), fmtCells(res.Cells), err)
					return
				}
				if i%50 == 0 {
					if err := r.Flush(ctx); err != nil {
						errc <- err
						return
					}
				}
			}
		}()
	}
	for rd := range readers {
		rg.Add(1)
		go func() {
			defer rg.Done()
			last := make([]string, writers)
			var buf GetBuffer
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				w := (i + rd) % writers
				g := Get{Row: []byte(fmt.Sprintf("w%d", w))}
				var res Result
				var err error
				if i%2 == 0 {
					res, err = r.Get(ctx, g)
				} else {
					g.Columns = []Columns{{Family: []byte("f1")}}
					res, err = r.GetInto(ctx, g, &buf)
				}
				if err != nil {
					errc <- err
					return
				}
				got := ""
				if len(res.Cells) > 0 {
					got = string(res.Cells[0].Value)
				}
				if got < last[w] {
					errc <- fmt.Errorf("reader %d: row w%d went back from %s to %s", rd, w, last[w], got)
					return
				}
				last[w] = got
			}
		}()
	}
	wg.Wait()
	close(done)
	rg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	for w := range writers {
		if got := getValue(t, r, fmt.Sprintf("w%d", w)); got != val(rounds) {
			t.Errorf("row w%d ends as %q, want %s", w, got, val(rounds))
		}
	}
}

// TestGetIntoMatchesGet reads rows of varied shapes through one reused
// GetBuffer and checks each result against Get's, and that results Get
// returned are untouched by later GetIntos.
func TestGetIntoMatchesGet(t *testing.T) {
	ctx := context.Background()
	r, _ := openTestRegion(t)
	const rows = 40
	for i := range rows {
		row := fmt.Sprintf("r%02d", i)
		for c := range i%7 + 1 {
			v := make([]byte, (i*13+c*31)%300)
			for j := range v {
				v[j] = byte(i + c + j)
			}
			mustMutate(t, r, put(row, []string{"f1", "f2"}[c%2], fmt.Sprintf("q%d", c), int64(10+c), string(v)))
		}
		if i%5 == 0 {
			mustMutate(t, r, del(row, "f1", "q0", cell.LatestTimestamp, cell.TypeDeleteColumn))
		}
	}
	var buf GetBuffer
	var kept []Result
	var want []string
	for i := range rows + 2 { // and two absent rows
		for _, g := range []Get{
			{Row: []byte(fmt.Sprintf("r%02d", i))},
			{Row: []byte(fmt.Sprintf("r%02d", i)), Columns: []Columns{{Family: []byte("f2")}}},
			{Row: []byte(fmt.Sprintf("r%02d", i)), MaxVersions: 3, StoreLimit: 2},
		} {
			owned, err := r.Get(ctx, g)
			if err != nil {
				t.Fatal(err)
			}
			into, err := r.GetInto(ctx, g, &buf)
			if err != nil {
				t.Fatal(err)
			}
			if got, exp := fmtCells(into.Cells), fmtCells(owned.Cells); got != exp || into.Exists != owned.Exists {
				t.Fatalf("GetInto(%s) =\n%s(exists %v), Get =\n%s(exists %v)", g.Row, got, into.Exists, exp, owned.Exists)
			}
			kept, want = append(kept, owned), append(want, fmtCells(owned.Cells))
		}
	}
	for i := range kept {
		if got := fmtCells(kept[i].Cells); got != want[i] {
			t.Fatalf("a Get result changed after later GetIntos:\n%s\nwas\n%s", got, want[i])
		}
	}
}
