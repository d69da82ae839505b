package region

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/cell"
)

// majorCompact is a region server's major compaction of r: a pass that
// replaces the region's keys with one file where it can, the range
// compaction where it did not.
func majorCompact(ctx context.Context, r *Region, path string) (bool, error) {
	replaced, err := r.MajorGarbagePass(ctx, path)
	if err != nil || replaced {
		return replaced, err
	}
	return false, r.CompactRange(ctx)
}

// scanText renders every row of r as a scan returns it.
func scanText(t *testing.T, r *Region, raw bool) string {
	t.Helper()
	return fmtCells(scanAll(t, r, Scan{Raw: raw, MaxVersions: 10}))
}

// A replacing pass drops what a major compaction drops, keeps every
// other cell, and leaves each row as one image, in one file.
func TestReplacePass(t *testing.T) {
	ctx := context.Background()
	r, clk := openTestRegion(t, FamilyDescriptor{Name: []byte("f1"), MaxVersions: 3},
		FamilyDescriptor{Name: []byte("f2"), TTL: 10})
	for i := range 20 {
		row := fmt.Sprintf("r%02d", i)
		for q := range 4 {
			mustMutate(t, r, put(row, "f1", fmt.Sprintf("q%d", q), int64(10+q), "v"))
		}
	}
	for v := range 6 { // three versions too many
		mustMutate(t, r, put("r03", "f1", "q0", int64(100+v), fmt.Sprint("v", v)))
	}
	mustMutate(t, r, del("r05", "f1", "", cell.LatestTimestamp, cell.TypeDeleteFamily)) // r05 goes
	mustMutate(t, r, del("r06", "f1", "q1", cell.LatestTimestamp, cell.TypeDeleteColumn))
	mustMutate(t, r, put("r07", "f2", "old", clk.now-20_000, "expired"))
	mustMutate(t, r, put("r07", "f2", "new", clk.now, "live"))
	big := make([]Mutation, 0, maxImageCells+1) // more cells than an image holds
	for q := range maxImageCells + 1 {
		big = append(big, put("r09", "f1", fmt.Sprintf("w%04d", q), 5, "x"))
	}
	mustMutate(t, r, big...)
	before := scanText(t, r, false)
	replaced, err := majorCompact(ctx, r, "major.sst")
	if err != nil || !replaced {
		t.Fatalf("MajorGarbagePass = %v, %v; want replaced", replaced, err)
	}
	if after := scanText(t, r, false); after != before {
		t.Fatalf("rows changed:\nbefore\n%s\nafter\n%s", before, after)
	}
	raw := scanText(t, r, true)
	for _, gone := range []string{"r03/f1:q0/100/", "r05/", "/DeleteColumn", "/DeleteFamily", "expired"} {
		if strings.Contains(raw, gone) {
			t.Fatalf("raw scan after the pass still holds %q:\n%s", gone, raw)
		}
	}
	// 18 rows as images (r05 is gone), r09's 1,029 cells as keys.
	keys, images := keysAndImages(t, r)
	if images != 18 || keys != 18+4+maxImageCells+1 {
		t.Fatalf("store holds %d keys, %d images; want 18 images and r09's %d keys", keys, images, 4+maxImageCells+1)
	}
	if _, err := r.engine.FS().Stat("major.sst"); err == nil {
		t.Fatal("major.sst left behind")
	}
	// Nothing left to replace but the rows as they are: a second pass
	// writes the same.
	if replaced, err := majorCompact(ctx, r, "major2.sst"); err != nil || !replaced {
		t.Fatalf("second pass = %v, %v", replaced, err)
	}
	if after := scanText(t, r, true); after != raw {
		t.Fatalf("second pass changed the rows:\n%s\nwant\n%s", after, raw)
	}
}

// A write that begins after the replacing pass's view keeps the file out:
// the pass runs row by row instead, and the write stays.
func TestReplacePassGivesWayToAWrite(t *testing.T) {
	ctx := context.Background()
	r := looseRowsRegion(t, 20)
	r.beforeReplace = func() { mustMutate(t, r, put("r07", "f1", "q1", 11, "w")) }
	replaced, err := majorCompact(ctx, r, "major.sst")
	if err != nil || replaced {
		t.Fatalf("MajorGarbagePass = %v, %v; want the row-by-row pass", replaced, err)
	}
	res, err := r.Get(ctx, Get{Row: []byte("r07")})
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for _, c := range res.Cells {
		if string(c.Qualifier) == "q1" {
			got = string(c.Value)
		}
	}
	if got != "w" {
		t.Fatalf("r07 after the pass: %s, want q1 = w", fmtCells(res.Cells))
	}
	if n, imgs := keysAndImages(t, r); n != 20 || imgs != 20 {
		t.Fatalf("after the pass the store holds %d keys, %d of them images, want 20 images", n, imgs)
	}
	if _, err := r.engine.FS().Stat("major.sst"); err == nil {
		t.Fatal("major.sst left behind")
	}
}

// With row images off, a replacing pass writes the rows' keys.
func TestReplacePassWithoutImages(t *testing.T) {
	ctx := context.Background()
	r, _ := openTestRegionOpts(t, Options{NoRowImages: true})
	for i := range 10 {
		for v := range 5 { // two versions too many in f1 (VERSIONS 3)
			mustMutate(t, r, put(fmt.Sprintf("r%02d", i), "f1", "q", int64(10+v), fmt.Sprint("v", v)))
		}
	}
	before := scanText(t, r, false)
	if replaced, err := majorCompact(ctx, r, "major.sst"); err != nil || !replaced {
		t.Fatalf("MajorGarbagePass = %v, %v; want replaced", replaced, err)
	}
	if after := scanText(t, r, false); after != before {
		t.Fatalf("rows changed:\nbefore\n%s\nafter\n%s", before, after)
	}
	if keys, images := keysAndImages(t, r); keys != 30 || images != 0 {
		t.Fatalf("store holds %d keys, %d images; want 30 keys, no image", keys, images)
	}
}
