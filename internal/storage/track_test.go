package storage

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestTrackChanges is the two-phase copy a region move makes: a bulk
// export, then writes (new rows, overwrites, point deletes), then only the
// changed rows, after which the copy must equal the source exactly.
func TestTrackChanges(t *testing.T) {
	ctx := context.Background()
	fs := vfs.NewMem()
	if err := fs.MkdirAll("/x", 0o755); err != nil {
		t.Fatal(err)
	}
	src := openEngine(t, testOptions(fs, "/src"))
	dst := openEngine(t, testOptions(fs, "/dst"))
	lo, hi := RegionLowerBound(1, []byte("r010")), RegionUpperBound(1, []byte("r060"))
	for i := range 100 {
		commit(t, src, SyncWAL, cellKV(fmt.Sprintf("r%03d", i), "q", 1, "v"))
	}
	tr := src.Track(lo, hi)
	defer tr.Stop()
	if repr, n, err := src.ChangesRepr(ctx, tr); repr != nil || n != 0 || err != nil {
		t.Fatalf("ChangesRepr with no writes = %d bytes, %d keys, %v; want nothing", len(repr), n, err)
	}
	bulk, err := src.Export(ctx, lo, hi, "/x/bulk.sst")
	if err != nil {
		t.Fatal(err)
	}
	// After the bulk export: a new row, an overwrite, a new version, a
	// point delete, and writes outside the span (not tracked).
	commit(t, src, SyncWAL, cellKV("r015a", "q", 1, "new"), cellKV("r020", "q", 1, "over"),
		cellKV("r030", "q", 2, "v2"), cellKV("r070", "q", 1, "outside"))
	b := src.NewBatch()
	_ = b.Delete([]byte(cellKV("r040", "q", 1, "").k))
	if err := b.Commit(SyncWAL); err != nil {
		t.Fatal(err)
	}
	_ = b.Close()
	if got := tr.Rows(); got != 4 {
		t.Fatalf("tracker holds %d rows, want 4 (r015a, r020, r030, r040)", got)
	}
	delta, n, err := src.ChangesRepr(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 { // r015a, r020, and r030's two versions; r040 is deleted
		t.Fatalf("delta holds %d keys, want 4", n)
	}
	// dst has stale data in the span (an earlier stint of the region).
	commit(t, dst, SyncWAL, cellKV("r040", "zz", 1, "stale"))
	if err := dst.ClearRange(lo, hi); err != nil {
		t.Fatal(err)
	}
	if err := dst.Ingest(ctx, []string{bulk.Path}); err != nil {
		t.Fatal(err)
	}
	if err := dst.ApplyRepr(delta, lo, hi); err != nil {
		t.Fatal(err)
	}
	want := scanEngine(t, src, IterOptions{Lower: lo, Upper: hi})
	if got := scanEngine(t, dst, IterOptions{Lower: lo, Upper: hi}); !equalKVs(got, want) {
		t.Fatalf("copy after bulk+delta:\n got %v\nwant %v", got, want)
	}

	// A range deletion in the span makes the next delta the whole span.
	tr2 := src.Track(lo, hi)
	defer tr2.Stop()
	if err := src.ClearRange(RegionLowerBound(1, []byte("r020")), RegionUpperBound(1, []byte("r025"))); err != nil {
		t.Fatal(err)
	}
	delta2, _, err := src.ChangesRepr(ctx, tr2)
	if err != nil {
		t.Fatal(err)
	}
	if err := dst.ApplyRepr(delta2, lo, hi); err != nil {
		t.Fatal(err)
	}
	// A batch reaching outside the span is refused.
	if err := dst.ApplyRepr(delta2, lo, RegionUpperBound(1, []byte("r030"))); err == nil {
		t.Fatal("ApplyRepr accepted keys outside its bounds")
	}
	want = scanEngine(t, src, IterOptions{Lower: lo, Upper: hi})
	if got := scanEngine(t, dst, IterOptions{Lower: lo, Upper: hi}); !equalKVs(got, want) {
		t.Fatalf("copy after a range deletion:\n got %v\nwant %v", got, want)
	}
	tr.Stop()
	tr2.Stop()
	if src.trackers.Load() != nil {
		t.Fatal("stopped trackers are still registered")
	}
}

// FuzzApplyRepr: a batch representation from the network never panics the
// engine and never writes outside its bounds.
func FuzzApplyRepr(f *testing.F) {
	ctx := context.Background()
	fs := vfs.NewMem()
	src := openEngine(f, testOptions(fs, "/src"))
	lo, hi := RegionLowerBound(1, []byte("b")), RegionUpperBound(1, []byte("m"))
	tr := src.Track(lo, hi)
	commit(f, src, SyncWAL, cellKV("c", "q", 1, "v"), cellKV("d", "q", 2, "w"))
	repr, _, err := src.ChangesRepr(ctx, tr)
	tr.Stop()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(repr)
	f.Add([]byte{})
	f.Add(make([]byte, 12))
	dst := openEngine(f, testOptions(fs, "/dst"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := dst.ApplyRepr(bytes.Clone(b), lo, hi); err != nil {
			return
		}
		for _, kv := range scanEngine(t, dst, IterOptions{}) {
			if kv.k < string(lo) || kv.k >= string(hi) {
				t.Fatalf("ApplyRepr wrote %x outside [%x, %x)", kv.k, lo, hi)
			}
		}
	})
}
