package storage

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestTrackExportChanges is the two-phase copy a region move makes: a bulk
// export, then writes (new rows, overwrites, point deletes), then only the
// changed rows, after which the copy must equal the source exactly.
func TestTrackExportChanges(t *testing.T) {
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
	if _, err := src.ExportChanges(ctx, tr, "/x/none.sst"); !errors.Is(err, ErrEmptyExport) {
		t.Fatalf("ExportChanges with no writes = %v, want ErrEmptyExport", err)
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
	delta, err := src.ExportChanges(ctx, tr, "/x/delta.sst")
	if err != nil {
		t.Fatal(err)
	}
	// dst has stale data in the span (an earlier stint of the region).
	commit(t, dst, SyncWAL, cellKV("r040", "zz", 1, "stale"))
	if err := dst.ClearRange(lo, hi); err != nil {
		t.Fatal(err)
	}
	if err := dst.Ingest(ctx, []string{bulk.Path}); err != nil {
		t.Fatal(err)
	}
	if err := dst.Ingest(ctx, []string{delta.Path}); err != nil {
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
	delta2, err := src.ExportChanges(ctx, tr2, "/x/delta2.sst")
	if err != nil {
		t.Fatal(err)
	}
	if err := dst.Ingest(ctx, []string{delta2.Path}); err != nil {
		t.Fatal(err)
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
