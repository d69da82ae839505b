package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// pooledGet reads key's value through a pooled iterator: ok is false if
// the key is absent. It returns the iterator it used (closed, i.e. back in
// the pool or released) so tests can tell reuse apart.
func pooledGet(t testing.TB, e *Engine, key string) (val string, ok bool, used *Iterator) {
	t.Helper()
	k := []byte(key)
	it, err := e.NewPooledIter(IterOptions{Lower: k, Upper: append(k[:len(k):len(k)], 0)})
	if err != nil {
		t.Fatalf("NewPooledIter: %v", err)
	}
	if it.SeekPrefixGE(k) {
		v, err := it.Value()
		if err != nil {
			t.Fatalf("Value: %v", err)
		}
		val, ok = string(v), true
	}
	if err := it.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return val, ok, it
}

// pooled counts the iterators in the pool.
func (e *Engine) pooled() int {
	n := 0
	for i := range e.iters.slots {
		if e.iters.slots[i].Load() != nil {
			n++
		}
	}
	return n
}

func TestPooledIterReuse(t *testing.T) {
	e := openEngine(t, testOptions(vfs.NewMem(), "/db"))
	a := cellKV("a", "q", 1, "1")
	commit(t, e, SyncWAL, a)
	_, _, first := pooledGet(t, e, a.k)
	if e.pooled() != 1 {
		t.Fatalf("%d iterators pooled after one read, want 1", e.pooled())
	}
	// No write since: the next read reuses the iterator, bounds reset.
	b := cellKV("b", "q", 1, "2")
	if _, ok, it := pooledGet(t, e, b.k); ok || it != first {
		t.Fatalf("second read: found=%v, reused=%v; want absent through the pooled iterator", ok, it == first)
	}
	if v, ok, it := pooledGet(t, e, a.k); v != "1" || !ok || it != first {
		t.Fatalf("third read = %q %v, reused=%v", v, ok, it == first)
	}
	// A write makes it stale: the next read builds a new one and sees it.
	commit(t, e, AsyncWAL, b)
	v, ok, second := pooledGet(t, e, b.k)
	if v != "2" || !ok || second == first {
		t.Fatalf("read after a write = %q %v, reused stale iterator=%v", v, ok, second == first)
	}
	if e.pooled() != 1 {
		t.Fatalf("%d iterators pooled, want 1 (the stale one closed)", e.pooled())
	}
	// A flush releases the pooled iterators (they pin the old memtable).
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); e.pooled() != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the pooled iterator outlived a flush")
		}
	}
	// Iterators still pooled at Close are closed by it: Pebble would
	// report them leaked (openEngine's cleanup checks Close's error).
	pooledGet(t, e, a.k)
	if e.pooled() != 1 {
		t.Fatalf("%d iterators pooled, want 1", e.pooled())
	}
}

// TestPooledIterSeesEveryWritePath checks that each way of changing the
// store makes pooled iterators stale, so a read after it sees the change.
func TestPooledIterSeesEveryWritePath(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e := openEngine(t, testOptions(vfs.Default, filepath.Join(dir, "db")))
	src := openEngine(t, testOptions(vfs.Default, filepath.Join(dir, "src")))
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	key := cellKV("row", "q", 1, "").k
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, v string)
	}{
		{"commit", func(t *testing.T, v string) { commit(t, e, SyncWAL, kv{key, v}) }},
		{"commit async", func(t *testing.T, v string) { commit(t, e, AsyncWAL, kv{key, v}) }},
		{"ingest", func(t *testing.T, v string) {
			commit(t, src, SyncWAL, kv{key, v})
			p := filepath.Join(tmp, "ingest-"+v+".sst")
			if _, err := src.Export(ctx, RegionLowerBound(1, nil), RegionUpperBound(1, nil), p); err != nil {
				t.Fatal(err)
			}
			if err := e.Ingest(ctx, []string{p}); err != nil {
				t.Fatal(err)
			}
		}},
		{"apply repr", func(t *testing.T, v string) {
			b := src.NewBatch()
			defer b.Close()
			_ = b.Set([]byte(key), []byte(v))
			if err := e.ApplyRepr(b.b.Repr(), RegionLowerBound(1, nil), RegionUpperBound(1, nil)); err != nil {
				t.Fatal(err)
			}
		}},
		{"copy table", func(t *testing.T, v string) {
			// Table 2 of src, copied into table 1 of e.
			commit(t, src, SyncWAL, kv{string(AppendCellKey(nil, 2, []byte("row"), []byte("f"), []byte("q"), 1, typePut)), v})
			cp := filepath.Join(dir, "cp-"+v)
			if err := src.Checkpoint(cp, []Span{TableSpan(2)}); err != nil {
				t.Fatal(err)
			}
			img, err := src.OpenCheckpoint(cp)
			if err != nil {
				t.Fatal(err)
			}
			defer img.Close()
			if _, err := e.CopyTable(ctx, img, 2, 1, []RowRange{{}}, tmp); err != nil {
				t.Fatal(err)
			}
		}},
		{"clear range", func(t *testing.T, v string) {
			if err := e.ClearRange(RegionLowerBound(1, nil), RegionUpperBound(1, nil)); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The previous case's write may have flushed the memtable
			// (an ingest does): that flush, finishing in the background,
			// keeps new iterators out of the pool until it is done.
			before, _, _ := pooledGet(t, e, key)
			for deadline := time.Now().Add(10 * time.Second); e.pooled() == 0; before, _, _ = pooledGet(t, e, key) {
				if time.Now().After(deadline) {
					t.Fatal("no iterator pooled before the write")
				}
				time.Sleep(time.Millisecond)
			}
			want := tc.name
			tc.write(t, want)
			got, ok, _ := pooledGet(t, e, key)
			if tc.name == "clear range" {
				if ok {
					t.Fatalf("read after ClearRange found %q", got)
				}
				return
			}
			if got != want {
				t.Fatalf("read after the write = %q (found %v), want %q (was %q)", got, ok, want, before)
			}
		})
	}
}

// TestPooledIterConcurrentReadYourWrites runs writers that each read their
// own key right after writing it, and readers that check no key's value
// ever goes back, while flushes reshape the store: pooled iterators must
// never serve a view older than an acknowledged write, or than a view
// already read.
func TestPooledIterConcurrentReadYourWrites(t *testing.T) {
	opts := testOptions(vfs.NewMem(), "/db")
	opts.MemTableSize = 64 << 10 // flushes during the run
	e := openEngine(t, opts)
	const writers, readers, rounds = 4, 4, 300
	keys := make([]string, writers)
	for w := range keys {
		keys[w] = cellKV(fmt.Sprintf("w%d", w), "q", 1, "").k
	}
	val := func(round int) string { return fmt.Sprintf("%06d", round) }
	var wg sync.WaitGroup
	errc := make(chan error, writers+readers)
	done := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pad := make([]byte, 512) // fill memtables
			for r := 1; r <= rounds; r++ {
				b := e.NewBatch()
				_ = b.Set([]byte(keys[w]), []byte(val(r)))
				_ = b.Set([]byte(cellKV(fmt.Sprintf("pad%d-%d", w, r), "q", 1, "").k), pad)
				err := b.Commit(AsyncWAL)
				_ = b.Close()
				if err != nil {
					errc <- err
					return
				}
				if got, _, _ := pooledGet(t, e, keys[w]); got != val(r) {
					errc <- fmt.Errorf("writer %d read %q right after writing %q", w, got, val(r))
					return
				}
			}
		}()
	}
	var rg sync.WaitGroup
	for rd := range readers {
		rg.Add(1)
		go func() {
			defer rg.Done()
			last := make([]string, writers)
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				w := (i + rd) % writers
				got, _, _ := pooledGet(t, e, keys[w])
				if got < last[w] {
					errc <- fmt.Errorf("reader %d saw key %d go back from %q to %q", rd, w, last[w], got)
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
}

func TestPooledIterClosedEngine(t *testing.T) {
	e, err := Open(testOptions(vfs.NewMem(), "/db"))
	if err != nil {
		t.Fatal(err)
	}
	commit(t, e, SyncWAL, cellKV("a", "q", 1, "1"))
	pooledGet(t, e, cellKV("a", "q", 1, "").k)
	if err := e.Close(); err != nil {
		t.Fatalf("Close with a pooled iterator: %v", err)
	}
	if n := e.pooled(); n != 0 {
		t.Fatalf("%d iterators pooled after Close", n)
	}
	if _, err := e.NewPooledIter(IterOptions{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("NewPooledIter on a closed engine = %v, want ErrClosed", err)
	}
}
