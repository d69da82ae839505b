package region

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/storage"
)

func loadRows(t testing.TB, r *Region, n int) {
	t.Helper()
	var muts []Mutation
	for i := 0; i < n; i++ {
		muts = append(muts, put(fmt.Sprintf("row%05d", i), "f1", "q", 1, fmt.Sprintf("%0100d", i)))
		if len(muts) == 500 {
			mustMutate(t, r, muts...)
			muts = muts[:0]
		}
	}
	if len(muts) > 0 {
		mustMutate(t, r, muts...)
	}
}

func TestMidKeyAndSplit(t *testing.T) {
	ctx := context.Background()
	for _, flush := range []bool{false, true} {
		t.Run(fmt.Sprintf("flushed=%v", flush), func(t *testing.T) {
			r, _ := openTestRegion(t)
			if _, err := r.MidKey(ctx); !errors.Is(err, ErrNotSplittable) {
				t.Fatalf("empty region: %v", err)
			}
			loadRows(t, r, 4000)
			if flush {
				if err := r.Flush(ctx); err != nil {
					t.Fatal(err)
				}
			}
			mid, err := r.MidKey(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// Within the middle half of the rows.
			if string(mid) < "row01000" || string(mid) > "row03000" {
				t.Fatalf("mid key %q is far from the middle", mid)
			}
			if err := r.CheckSplitRow(nil); !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("empty split row: %v", err)
			}
			a, b, err := r.Split(mid, 2)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Get(ctx, Get{Row: []byte("row00001")}); !errors.Is(err, ErrClosed) {
				t.Fatalf("parent still serves: %v", err)
			}
			ra, err := Open(r.engine, a, *r.Descriptor(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			rb, err := Open(r.engine, b, *r.Descriptor(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			na, nb := countRows(t, ra), countRows(t, rb)
			if na+nb != 4000 || na == 0 || nb == 0 {
				t.Fatalf("daughters hold %d + %d rows", na, nb)
			}
			if err := rb.CheckSplitRow(b.StartKey); !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("split at start row: %v", err)
			}
			if err := rb.CheckSplitRow([]byte("a")); !errors.Is(err, ErrWrongRegion) {
				t.Fatalf("split outside: %v", err)
			}
		})
	}
}

func countRows(t testing.TB, r *Region) int {
	t.Helper()
	s, err := r.NewScanner(Scan{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := 0
	for {
		res, more, err := s.Next(context.Background(), 1000, 0)
		if err != nil {
			t.Fatal(err)
		}
		n += len(res)
		if !more {
			return n
		}
	}
}

// TestExportIngestAcrossStores moves a region's data into another store, as
// a region move does, and replaces stale contents there.
func TestExportIngestAcrossStores(t *testing.T) {
	ctx := context.Background()
	fs := vfs.NewMem()
	open := func(dir string) *storage.Engine {
		e, err := storage.Open(storage.Options{Dir: dir, FS: fs})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close() })
		return e
	}
	src, dst := open("src"), open("dst")
	desc := TableDescriptor{Name: "t", Families: []FamilyDescriptor{{Name: []byte("f1"), MaxVersions: 3}}}
	info := Info{TableID: 7, StartKey: []byte("b"), EndKey: []byte("y")}
	rs, err := Open(src, info, desc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	loadRows(t, rs, 300)
	mustMutate(t, rs, del("row00005", "f1", "q", 1, cell.TypeDelete)) // markers travel too
	rd, err := Open(dst, info, desc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustMutate(t, rd, put("stale", "f1", "q", 1, "old"))
	if _, err := rs.Export(ctx, "move.sst"); err != nil {
		t.Fatal(err)
	}
	if err := rd.Ingest(ctx, []string{"move.sst"}); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, rd); n != 299 {
		t.Fatalf("destination holds %d rows, want 299", n)
	}
	res, _ := rd.Get(ctx, Get{Row: []byte("stale")})
	if len(res.Cells) != 0 {
		t.Fatal("stale row survived the ingest")
	}
}
