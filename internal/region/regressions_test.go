package region

// Regression tests for region bugs the metamorphic test found (see
// metamorphic_test.go). Each reproduces the minimal op sequence and states
// the behaviour the spec requires; they fail until the bug is fixed.

import (
	"context"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/storage"
)

// scanAll runs a scan to the end and returns all its cells.
func scanAll(t *testing.T, r *Region, s Scan) []cell.Cell {
	t.Helper()
	sc, err := r.NewScanner(s)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var out []cell.Cell
	for {
		rs, more, err := sc.Next(context.Background(), 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range rs {
			out = append(out, res.Cells...)
		}
		if !more {
			return out
		}
	}
}

// TestRegressionRawScanDropsMarkersPastVersionLimit: a raw scan returns
// every delete marker in its time range; only puts count toward VERSIONS.
// The region ended a column at the first put past the version limit (or past
// TTL beyond MIN_VERSIONS) and seeks past it, so the column's older markers
// were lost. Found by TestMetamorphic, seed 1795405194930748395 (op 268) at
// commit 345de0f.
func TestRegressionRawScanDropsMarkersPastVersionLimit(t *testing.T) {
	r, _ := openTestRegion(t, FamilyDescriptor{Name: []byte("f"), MaxVersions: 1, KeepDeletedCells: KeepDeletedTrue})
	mustMutate(t, r, put("r", "f", "q", 10, "v10"), put("r", "f", "q", 9, "v9"), del("r", "f", "q", 5, cell.TypeDelete))
	got := fmtCells(scanAll(t, r, Scan{Raw: true}))
	want := "r/f:q/10/Put=v10\nr/f:q/5/Delete=\n"
	if got != want {
		t.Fatalf("raw scan:\n%s\nwant:\n%s", got, want)
	}
}

// TestRegressionExcludeStartRowBelowRegionSkipsFirstRow: a forward scan with
// ExcludeStartRow whose StartRow lies below the region's start key must
// still return the region's first row. The scanner clamped its cursor to the
// region's lower bound first and applied ExcludeStartRow to the clamped
// cursor, so it skipped the region's start row. Found reading newScanner while
// adding split regions to TestMetamorphic, which then finds it within a few
// seeds.
func TestRegressionExcludeStartRowBelowRegionSkipsFirstRow(t *testing.T) {
	e, err := storage.Open(storage.Options{Dir: "db", FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	desc := TableDescriptor{Name: "t", Families: []FamilyDescriptor{{Name: []byte("f")}}}
	r, err := Open(e, Info{TableID: 1, RegionID: 1, StartKey: []byte("r5")}, desc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	mustMutate(t, r, put("r5", "f", "q", 1, "a"), put("r6", "f", "q", 1, "b"))
	got := fmtCells(scanAll(t, r, Scan{StartRow: []byte("r3"), ExcludeStartRow: true}))
	want := "r5/f:q/1/Put=a\nr6/f:q/1/Put=b\n"
	if got != want {
		t.Fatalf("scan from r3 (exclusive) of region [r5, ...):\n%s\nwant:\n%s", got, want)
	}
}
