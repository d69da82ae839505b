package region

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/storage"
)

// storeKeys counts the keys the store holds in r's range, dead ones
// included.
func storeKeys(t *testing.T, r *Region) int {
	t.Helper()
	it, err := r.engine.NewIter(storage.IterOptions{Lower: r.lower, Upper: r.upper})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAutoGC: writes and reads that meet dead versions make a pass due; a
// pass whose garbage is below GarbageRatio only counts it, one above it
// deletes it, and the reads see the same rows before and after.
func TestAutoGC(t *testing.T) {
	ctx := context.Background()
	r, _ := openTestRegion(t, FamilyDescriptor{Name: []byte("f"), MaxVersions: 1})
	const rows, versions = 10, 20
	for v := 1; v <= versions; v++ {
		for i := range rows {
			mustMutate(t, r, put(fmt.Sprintf("r%d", i), "f", "q", int64(v), fmt.Sprintf("v%d", v)))
		}
	}
	if got := storeKeys(t, r); got != rows*versions {
		t.Fatalf("store holds %d keys, want %d", got, rows*versions)
	}

	writes := GCPolicy{WriteRatio: 1, MinWrites: rows * versions}
	reads := GCPolicy{ReadGarbage: rows}
	if !r.GCDue(writes) {
		t.Errorf("%d keys written: pass not due under %+v", rows*versions, writes)
	}
	if r.GCDue(GCPolicy{WriteRatio: 1, MinWrites: rows*versions + 1}) {
		t.Error("pass due before MinWrites keys were written")
	}
	if r.GCDue(reads) {
		t.Error("pass due on read garbage before any read")
	}
	get := func() string {
		t.Helper()
		var s string
		for i := range rows {
			res, err := r.Get(ctx, Get{Row: []byte(fmt.Sprintf("r%d", i))})
			if err != nil {
				t.Fatal(err)
			}
			s += fmtCells(res.Cells)
		}
		return s
	}
	before := get()
	if r.GCDue(reads) {
		t.Errorf("pass due on read garbage with %d rows read after %d keys written", rows, rows*versions)
	}
	// Read-mostly from here: four rows read for every key written.
	for range 4 * versions {
		if got := get(); got != before {
			t.Fatalf("reads changed: %s, want %s", got, before)
		}
	}
	if !r.GCDue(reads) {
		t.Errorf("reads met dead versions in %d rows, read-mostly: pass not due under %+v", rows, reads)
	}

	// Below the garbage ratio: counted, not cleaned, counters restarted.
	st, cleaned, err := r.CollectGarbageAuto(ctx, GCPolicy{GarbageRatio: 0.99})
	if err != nil {
		t.Fatal(err)
	}
	wantGarbage := int64(rows * (versions - 1))
	if cleaned || st.Garbage != wantGarbage || st.CellsScanned != rows*versions || st.CellsDropped != 0 {
		t.Errorf("survey under GarbageRatio 0.99: %+v cleaned=%v, want %d garbage of %d cells, nothing dropped",
			st, cleaned, wantGarbage, rows*versions)
	}
	if got := storeKeys(t, r); got != rows*versions {
		t.Errorf("after a survey the store holds %d keys, want %d", got, rows*versions)
	}
	if r.GCDue(writes) || r.GCDue(reads) {
		t.Error("a pass is still due right after one ran")
	}

	st, cleaned, err = r.CollectGarbageAuto(ctx, GCPolicy{GarbageRatio: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if !cleaned || st.CellsDropped != wantGarbage {
		t.Errorf("pass under GarbageRatio 0.5: %+v cleaned=%v, want %d dropped", st, cleaned, wantGarbage)
	}
	if got := storeKeys(t, r); got != rows {
		t.Errorf("after the pass the store holds %d keys, want %d", got, rows)
	}
	if after := get(); after != before {
		t.Errorf("the pass changed what Gets return:\n%s\nwant\n%s", after, before)
	}
	// The next write-made pass is measured against the cells left.
	if r.GCDue(GCPolicy{WriteRatio: 1, MinWrites: 1}) {
		t.Error("a pass is due with nothing written since")
	}
	for i := range rows {
		mustMutate(t, r, put(fmt.Sprintf("r%d", i), "f", "q", versions+1, "new"))
	}
	if !r.GCDue(GCPolicy{WriteRatio: 1, MinWrites: 1}) {
		t.Errorf("%d keys written over %d left: pass not due at WriteRatio 1", rows, rows)
	}
}

// TestAutoGCInsertsOnly: a region that only gained new rows has no
// garbage, and a pass leaves it as it is.
func TestAutoGCInsertsOnly(t *testing.T) {
	ctx := context.Background()
	r, _ := openTestRegion(t)
	for i := range 50 {
		mustMutate(t, r, put(fmt.Sprintf("row%03d", i), "f1", "q", 5, "v"))
	}
	st, cleaned, err := r.CollectGarbageAuto(ctx, GCPolicy{GarbageRatio: 0})
	if err != nil {
		t.Fatal(err)
	}
	if cleaned || st.Garbage != 0 || st.RowsScanned != 50 || st.CellsScanned != 50 {
		t.Errorf("pass over inserts only: %+v cleaned=%v, want 50 rows, 50 cells, no garbage", st, cleaned)
	}
}

// TestAutoGCAfterMajorCompaction: a major compaction is a garbage pass, so
// the writes before it do not make an automatic one due.
func TestAutoGCAfterMajorCompaction(t *testing.T) {
	ctx := context.Background()
	r, _ := openTestRegion(t, FamilyDescriptor{Name: []byte("f"), MaxVersions: 1})
	for v := 1; v <= 3; v++ {
		for i := range 10 {
			mustMutate(t, r, put(fmt.Sprintf("r%d", i), "f", "q", int64(v), "v"))
		}
	}
	p := GCPolicy{WriteRatio: 1, MinWrites: 10}
	if !r.GCDue(p) {
		t.Fatal("30 writes: pass not due")
	}
	if err := r.Compact(ctx, true); err != nil {
		t.Fatal(err)
	}
	if r.GCDue(p) {
		t.Error("pass still due right after a major compaction")
	}
	for i := range 10 {
		mustMutate(t, r, put(fmt.Sprintf("r%d", i), "f", "q", 4, "v"))
	}
	if !r.GCDue(p) {
		t.Error("10 writes over the 10 cells the compaction left: pass not due at WriteRatio 1")
	}
}

// TestAutoGCStopsOnCancel: an automatic pass, paced in chunks of rows,
// gives up at the first chunk's end once its context is done.
func TestAutoGCStopsOnCancel(t *testing.T) {
	r, _ := openTestRegion(t, FamilyDescriptor{Name: []byte("f"), MaxVersions: 1})
	for i := range 3 * gcChunkRows {
		mustMutate(t, r, put(fmt.Sprintf("r%04d", i), "f", "q", 1, "v"))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	st, cleaned, err := r.CollectGarbageAuto(ctx, GCPolicy{GarbageRatio: 0.01})
	if !errors.Is(err, context.Canceled) || cleaned || st.RowsScanned != gcChunkRows {
		t.Fatalf("pass with its context done: %+v, cleaned=%v, %v; want context.Canceled after %d rows", st, cleaned, err, gcChunkRows)
	}
	st, _, err = r.CollectGarbageAuto(context.Background(), GCPolicy{GarbageRatio: 0.01})
	if err != nil || st.RowsScanned != 3*gcChunkRows {
		t.Fatalf("paced pass: %+v, %v; want all %d rows", st, err, 3*gcChunkRows)
	}
}

// TestAutoGCLooseRows: a pass over rows kept in a key per cell, with no
// garbage at all, cleans only under a LooseRatio they reach, and then
// stores each row as one image; reads see the same rows. Without images
// there is nothing loose.
func TestAutoGCLooseRows(t *testing.T) {
	ctx := context.Background()
	const rows = 50
	load := func(r *Region) string {
		for i := range rows {
			for q := range 4 {
				mustMutate(t, r, put(fmt.Sprintf("r%02d", i), "f1", fmt.Sprintf("q%d", q), int64(10+q), "v"))
			}
		}
		sc := scanInSteps(t, r, Scan{}, 2)
		if sc == "" {
			t.Fatal("nothing read back")
		}
		return sc
	}
	r, _ := openTestRegion(t)
	before := load(r)
	st, cleaned, err := r.CollectGarbageAuto(ctx, GCPolicy{GarbageRatio: 0.05})
	if err != nil || cleaned || st.Loose != rows*4 || st.Garbage != 0 {
		t.Fatalf("pass without LooseRatio: %+v cleaned=%v err=%v, want %d loose cells counted, nothing cleaned", st, cleaned, err, rows*4)
	}
	if st, cleaned, err = r.CollectGarbageAuto(ctx, GCPolicy{GarbageRatio: 0.05, LooseRatio: 0.5}); err != nil || !cleaned {
		t.Fatalf("pass under LooseRatio 0.5: %+v cleaned=%v err=%v", st, cleaned, err)
	}
	if n, imgs := keysAndImages(t, r); n != rows || imgs != rows {
		t.Fatalf("after the pass the store holds %d keys, %d of them images, want %d images", n, imgs, rows)
	}
	if after := scanInSteps(t, r, Scan{}, 2); after != before {
		t.Fatalf("the rows changed:\nbefore\n%s\nafter\n%s", before, after)
	}
	if st, _, _ := r.CollectGarbageAuto(ctx, GCPolicy{GarbageRatio: 0.05, LooseRatio: 0.5}); st.Loose != 0 || st.CellsScanned != rows*4 {
		t.Fatalf("a pass over the images: %+v, want %d cells, none loose", st, rows*4)
	}

	k, _ := openTestRegionOpts(t, Options{NoRowImages: true})
	load(k)
	if st, cleaned, err := k.CollectGarbageAuto(ctx, GCPolicy{GarbageRatio: 0.05, LooseRatio: 0.5}); err != nil || cleaned || st.Loose != 0 {
		t.Fatalf("pass with NoRowImages: %+v cleaned=%v err=%v, want nothing loose", st, cleaned, err)
	}
}

// TestAutoGCLooseRowsWaitForQuiet: a pass that finds loose rows but no
// garbage while the region is being written leaves them; the pass is due
// again once a check finds the region has taken no more than 1% of its
// cells in writes since the check before, and that pass stores them as
// images. A probe of the written rows (the region opened empty and only
// new cells were written) leaves them as a survey does.
func TestAutoGCLooseRowsWaitForQuiet(t *testing.T) {
	for _, probe := range []bool{false, true} {
		t.Run(map[bool]string{false: "survey", true: "probe"}[probe], func(t *testing.T) {
			testLooseRowsWaitForQuiet(t, probe)
		})
	}
}

func testLooseRowsWaitForQuiet(t *testing.T, probe bool) {
	ctx := context.Background()
	const rows = 50
	r := looseRowsRegion(t, rows)
	// A schema change since the last full survey rules a probe out.
	r.gc.schemaChanged.Store(!probe)
	before := scanInSteps(t, r, Scan{}, 2)
	p := GCPolicy{WriteRatio: 1000, MinWrites: 1 << 40, GarbageRatio: 0.05, LooseRatio: 0.5}
	if r.GCDue(p) {
		t.Fatal("a pass is due before any: the policy's write threshold is out of reach")
	}

	r.afterSurvey = func() { mustMutate(t, r, put("r99", "f1", "q0", 10, "v")) }
	st, cleaned, err := r.CollectGarbageAuto(ctx, p)
	if err != nil || cleaned || st.Probed != probe || (!probe && st.Loose != rows*4) || !r.gc.looseDue.Load() {
		t.Fatalf("pass while written: %+v cleaned=%v err=%v, want %d loose cells left (probed: %v)", st, cleaned, err, rows*4, probe)
	}
	r.afterSurvey = nil

	// The pass saw 200 cells, so up to 2 writes between checks count as quiet.
	for q := range 3 {
		mustMutate(t, r, put("r98", "f1", fmt.Sprintf("q%d", q), 10, "v"))
	}
	if r.GCDue(p) {
		t.Fatal("due while 4 keys were written since the pass began")
	}
	if !r.GCDue(p) {
		t.Fatal("not due after a check with no writes since the one before")
	}
	if _, cleaned, err = r.CollectGarbageAuto(ctx, p); err != nil || !cleaned {
		t.Fatalf("the pass after the writes stopped: cleaned=%v err=%v", cleaned, err)
	}
	if n, imgs := keysAndImages(t, r); n != rows+2 || imgs != rows+2 {
		t.Fatalf("after the pass the store holds %d keys, %d of them images, want %d images", n, imgs, rows+2)
	}
	if r.GCDue(p) {
		t.Fatal("still due after the rows were stored as images")
	}
	after := scanInSteps(t, r, Scan{StartRow: []byte("r00"), StopRow: []byte("r98")}, 2)
	if after != before {
		t.Fatalf("the rows changed:\nbefore\n%s\nafter\n%s", before, after)
	}
}

// TestMajorCompactionTakesLooseRows: a major compaction stores the loose
// rows an automatic pass left for the writes to stop, so no pass is due
// for them once it has run, however quiet the region.
func TestMajorCompactionTakesLooseRows(t *testing.T) {
	ctx := context.Background()
	const rows = 50
	r := looseRowsRegion(t, rows)
	p := GCPolicy{WriteRatio: 1000, MinWrites: 1 << 40, GarbageRatio: 0.05, LooseRatio: 0.5}
	r.afterSurvey = func() { mustMutate(t, r, put("r99", "f1", "q0", 10, "v")) }
	if _, cleaned, err := r.CollectGarbageAuto(ctx, p); err != nil || cleaned {
		t.Fatalf("pass while written: cleaned=%v err=%v, want the loose rows left", cleaned, err)
	}
	r.afterSurvey = nil
	if err := r.Compact(ctx, true); err != nil {
		t.Fatal(err)
	}
	if n, imgs := keysAndImages(t, r); n != rows+1 || imgs != rows+1 {
		t.Fatalf("after the major compaction the store holds %d keys, %d of them images, want %d images", n, imgs, rows+1)
	}
	for range 3 {
		if r.GCDue(p) {
			t.Fatal("a pass is due for loose rows the major compaction stored as images")
		}
	}
}

// looseRowsRegion opens a test region holding rows rows of four cells,
// each cell a key of its own.
func looseRowsRegion(t *testing.T, rows int) *Region {
	t.Helper()
	r, _ := openTestRegion(t)
	for i := range rows {
		for q := range 4 {
			mustMutate(t, r, put(fmt.Sprintf("r%02d", i), "f1", fmt.Sprintf("q%d", q), int64(10+q), "v"))
		}
	}
	return r
}

// TestAutoGCLoadBacksOff: a survey that finds the writes since the pass
// before were all new cells doubles the writes that make the next pass
// due; one that finds them overwrites goes back to WriteRatio. A region
// opened over keys cannot tell at its first survey and does not back off.
func TestAutoGCLoadBacksOff(t *testing.T) {
	ctx := context.Background()
	r, _ := openTestRegion(t)
	p := GCPolicy{WriteRatio: 1, MinWrites: 40, GarbageRatio: 0.05}
	next := 0
	insert := func(n int) {
		for range n {
			mustMutate(t, r, put(fmt.Sprintf("row%04d", next), "f2", "q", 5, "v"))
			next++
		}
	}
	survey := func(wantBackoff uint32) {
		t.Helper()
		if !r.GCDue(p) {
			t.Fatalf("no pass due after %d keys written", r.gc.written.Load())
		}
		if _, _, err := r.CollectGarbageAuto(ctx, p); err != nil {
			t.Fatal(err)
		}
		if got := r.gc.backoff.Load(); got != wantBackoff {
			t.Fatalf("backoff %d after the survey, want %d", got, wantBackoff)
		}
	}

	insert(40)
	survey(1) // 40 new cells in a region that opened empty
	insert(40)
	if r.GCDue(p) {
		t.Fatal("due after 40 new cells: the load's backoff wants 80")
	}
	insert(40)
	survey(2)

	// Overwrites: the live cells do not grow, so the next pass is due at
	// WriteRatio again.
	for i := range 120 << 2 {
		mustMutate(t, r, put(fmt.Sprintf("row%04d", i%120), "f2", "q", int64(10+i), "v"))
	}
	survey(0)
	if got := r.gc.cells.Load(); got != 120 {
		t.Fatalf("%d cells after the cleaning pass, want 120", got)
	}

	// The same keys seen by a region that opened over them.
	r2, err := Open(r.engine, r.info, *r.Descriptor(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		mustMutate(t, r2, put(fmt.Sprintf("new%02d", i), "f2", "q", 5, "v"))
	}
	if _, _, err := r2.CollectGarbageAuto(ctx, p); err != nil {
		t.Fatal(err)
	}
	if got := r2.gc.backoff.Load(); got != 0 {
		t.Fatalf("a region opened over keys backed off (%d) at its first survey", got)
	}
}

// TestAutoGCLastRowsOfLoad: rows loaded after a region's last pass, too
// few to make one due by WriteRatio, get a pass once a check finds no
// writes since the one before, when they may be LooseRatio of the
// region's cells; fewer do not, nor do writes to a region whose last
// survey found overwrites, or that opened over keys, nor any to a region
// without row images.
func TestAutoGCLastRowsOfLoad(t *testing.T) {
	ctx := context.Background()
	p := GCPolicy{WriteRatio: 2, MinWrites: 40, GarbageRatio: 0.05, LooseRatio: 0.5}
	next := 0
	insert := func(r *Region, n int) {
		for range n {
			mustMutate(t, r, put(fmt.Sprintf("row%04d", next), "f2", "q", 5, "v"))
			next++
		}
	}
	pass := func(r *Region) {
		t.Helper()
		if _, cleaned, err := r.CollectGarbageAuto(ctx, p); err != nil || !cleaned {
			t.Fatalf("pass: cleaned=%v err=%v, want the loose rows stored as images", cleaned, err)
		}
	}

	r, _ := openTestRegion(t)
	insert(r, 80)
	if !r.GCDue(p) {
		t.Fatal("no pass due after 80 keys, WriteRatio 2 of MinWrites 40")
	}
	pass(r) // 80 cells, all images
	insert(r, 100)
	if r.GCDue(p) {
		t.Fatal("due at the first check after 100 keys: they were written since the check before")
	}
	if !r.GCDue(p) {
		t.Fatal("not due once the writes stopped: 100 of 180 cells may be loose, LooseRatio 0.5")
	}
	pass(r)
	if n, imgs := keysAndImages(t, r); n != 180 || imgs != 180 {
		t.Fatalf("the store holds %d keys, %d of them images, want 180 images", n, imgs)
	}
	if r.GCDue(p) || r.GCDue(p) {
		t.Fatal("due again with nothing written since the pass")
	}
	insert(r, 50) // 50 of 230: under LooseRatio
	if r.GCDue(p) || r.GCDue(p) {
		t.Fatal("due after 50 keys that can be at most 50 of 230 cells")
	}

	// Overwrites: the survey they make due finds garbage, not new cells,
	// and the new rows after it wait for WriteRatio.
	for i := range 400 {
		mustMutate(t, r, put(fmt.Sprintf("row%04d", i%230), "f2", "q", int64(10+i), "v"))
	}
	if !r.GCDue(p) {
		t.Fatal("no pass due after 450 keys written")
	}
	pass(r)
	insert(r, 250) // 250 of 480 would be LooseRatio
	if r.GCDue(p) || r.GCDue(p) {
		t.Fatal("due when the writes stopped after a survey that found overwrites")
	}

	// A region that opened over keys does not know what its writes were.
	r2, err := Open(r.engine, r.info, *r.Descriptor(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	insert(r2, 70)
	if r2.GCDue(p) || r2.GCDue(p) {
		t.Fatal("due when the writes stopped in a region that opened over keys")
	}

	k, _ := openTestRegionOpts(t, Options{NoRowImages: true})
	insert(k, 70)
	if k.GCDue(p) || k.GCDue(p) {
		t.Fatal("a region without row images has nothing to image: no pass due")
	}
}

// TestAutoGCReplacesQuietRegion: an automatic pass with a ReplacePath that
// cleans a region nobody wrote to during its survey replaces the region's
// keys with one file, as a major compaction does; a write before the swap
// sends it row by row, and a Close before the swap stops it with the
// store untouched.
func TestAutoGCReplacesQuietRegion(t *testing.T) {
	ctx := context.Background()
	const rows = 50
	p := GCPolicy{WriteRatio: 1000, MinWrites: 1 << 40, GarbageRatio: 0.05, LooseRatio: 0.5, ReplacePath: "gc.sst"}
	noFile := func(r *Region) {
		t.Helper()
		if _, err := r.engine.FS().Stat(p.ReplacePath); err == nil {
			t.Fatal("the pass's file was left behind")
		}
	}

	t.Run("quiet", func(t *testing.T) {
		r := looseRowsRegion(t, rows)
		before := scanInSteps(t, r, Scan{}, 2)
		replaced := false
		r.beforeReplace = func() { replaced = true }
		if _, cleaned, err := r.CollectGarbageAuto(ctx, p); err != nil || !cleaned || !replaced {
			t.Fatalf("cleaned=%v replaced=%v err=%v, want the region replaced", cleaned, replaced, err)
		}
		if n, imgs := keysAndImages(t, r); n != rows || imgs != rows {
			t.Fatalf("the store holds %d keys, %d of them images, want %d images", n, imgs, rows)
		}
		if after := scanInSteps(t, r, Scan{}, 2); after != before {
			t.Fatalf("the rows changed:\nbefore\n%s\nafter\n%s", before, after)
		}
		noFile(r)
	})

	t.Run("a write first", func(t *testing.T) {
		r := looseRowsRegion(t, rows)
		r.beforeReplace = func() { mustMutate(t, r, put("r07", "f1", "q1", 11, "w")) }
		if _, cleaned, err := r.CollectGarbageAuto(ctx, p); err != nil || !cleaned {
			t.Fatalf("cleaned=%v err=%v, want the row-by-row pass", cleaned, err)
		}
		res, err := r.Get(ctx, Get{Row: []byte("r07")})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmtCells(res.Cells); !strings.Contains(got, "r07/f1:q1/11/Put=w\n") {
			t.Fatalf("r07 after the pass: %s, want q1 = w", got)
		}
		if n, imgs := keysAndImages(t, r); n != rows || imgs != rows {
			t.Fatalf("the store holds %d keys, %d of them images, want %d images", n, imgs, rows)
		}
		noFile(r)
	})

	t.Run("closed first", func(t *testing.T) {
		r := looseRowsRegion(t, rows)
		keys := storeKeys(t, r)
		r.beforeReplace = func() { _ = r.Close() }
		if _, cleaned, err := r.CollectGarbageAuto(ctx, p); !errors.Is(err, ErrClosed) || cleaned {
			t.Fatalf("cleaned=%v err=%v, want ErrClosed", cleaned, err)
		}
		if n := storeKeys(t, r); n != keys {
			t.Fatalf("the store holds %d keys after the stopped pass, want the %d before it", n, keys)
		}
		noFile(r)
	})
}

// TestAutoGCProbe: while a region that opened empty is being written with
// new rows, a pass reads only a sample of the rows written since the last
// one and backs off as a survey would; overwrites in the sample, writes
// that stop, a family with a TTL and a schema change each send the pass
// through the whole region.
func TestAutoGCProbe(t *testing.T) {
	ctx := context.Background()
	p := GCPolicy{WriteRatio: 1, MinWrites: 40, GarbageRatio: 0.05}
	next := 0
	insert := func(r *Region, n int) {
		for range n {
			mustMutate(t, r, put(fmt.Sprintf("row%04d", next), "f2", "q", 5, "v"))
			next++
		}
	}
	pass := func(r *Region, writing, wantProbed bool) GCStats {
		t.Helper()
		r.afterSurvey = nil
		if writing {
			r.afterSurvey = func() { insert(r, 1) }
		}
		st, cleaned, err := r.CollectGarbageAuto(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Probed != wantProbed {
			t.Fatalf("pass %+v (cleaned %v): probed %v, want %v", st, cleaned, st.Probed, wantProbed)
		}
		return st
	}

	r, _ := openTestRegion(t)
	insert(r, 100)
	if st := pass(r, true, true); st.RowsScanned != probeRows || st.Garbage != 0 {
		t.Fatalf("probe of a load: %+v, want %d rows read, no garbage", st, probeRows)
	}
	if b, c := r.gc.backoff.Load(), r.gc.cells.Load(); b != 1 || c != 100 {
		t.Fatalf("after the probe: backoff %d, cells %d; want 1 and the 100 written", b, c)
	}
	insert(r, 100)
	pass(r, true, true)
	if b, c := r.gc.backoff.Load(), r.gc.cells.Load(); b != 2 || c != 201 {
		t.Fatalf("after the second probe: backoff %d, cells %d; want 2 and 201", b, c)
	}

	// Overwrites leave versions beyond f2's one: the whole region is read.
	for i := range 100 {
		mustMutate(t, r, put(fmt.Sprintf("row%04d", i), "f2", "q", 6, "w"))
	}
	if st := pass(r, true, false); st.RowsScanned < 200 {
		t.Fatalf("survey after overwrites: %+v, want every row read", st)
	}
	if b := r.gc.backoff.Load(); b != 0 {
		t.Fatalf("backoff %d after the survey that found overwrites, want 0", b)
	}

	// New rows once more, but nothing written while the probe reads.
	fresh, _ := openTestRegion(t)
	insert(fresh, 100)
	pass(fresh, false, false)
	// The same schema handed again changes nothing; fewer versions for a
	// family make the next pass read the whole region, and the one after
	// it may probe again.
	insert(fresh, 100)
	same := *fresh.Descriptor()
	if err := fresh.SetDescriptor(same); err != nil {
		t.Fatal(err)
	}
	pass(fresh, true, true)
	fewer := *fresh.Descriptor()
	fewer.Families = slices.Clone(fewer.Families)
	fewer.Families[0].MaxVersions = 2
	if err := fresh.SetDescriptor(fewer); err != nil {
		t.Fatal(err)
	}
	insert(fresh, 100)
	pass(fresh, true, false)
	insert(fresh, 100)
	pass(fresh, true, true)

	// A TTL makes garbage without writes: never a probe.
	ttl, _ := openTestRegion(t, FamilyDescriptor{Name: []byte("f2"), TTL: 3600})
	insert(ttl, 100)
	pass(ttl, true, false)
	insert(ttl, 100)
	pass(ttl, true, false)
}

// TestRowSampleUniform: the sample of written rows draws from all of
// them, not from the first or the last.
func TestRowSampleUniform(t *testing.T) {
	var s rowSample
	const n = 10000
	for i := range n {
		s.offer([]byte(fmt.Sprintf("%05d", i)))
	}
	rows := s.full()
	if len(rows) != probeRows {
		t.Fatalf("%d rows sampled, want %d", len(rows), probeRows)
	}
	late := 0
	for _, r := range rows {
		if string(r) >= fmt.Sprintf("%05d", n/2) {
			late++
		}
	}
	// 64 draws: fewer than 12 or more than 52 in one half has odds of
	// about 1e-8.
	if late < 12 || late > 52 {
		t.Fatalf("%d of %d sampled rows from the later half of the writes", late, probeRows)
	}
	s.reset()
	if s.full() != nil || s.seen.Load() != 0 {
		t.Fatal("the sample is not empty after reset")
	}
}
