package region

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"testing"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/storage"
)

// TestRowImageCodec: an image decodes to the cells it was written from,
// and its header says what they hold.
func TestRowImageCodec(t *testing.T) {
	row := []byte("row\x00x")
	cells := []imageCell{
		{family: []byte("a"), ts: 9, typ: cell.TypeDeleteFamily},
		{family: []byte("a"), qualifier: []byte("q"), ts: 7, typ: cell.TypePut, value: []byte("v7")},
		{family: []byte("a"), qualifier: []byte("q"), ts: 5, typ: cell.TypePut, value: []byte("v5")},
		{family: []byte("b"), qualifier: nil, ts: 3, typ: cell.TypePut},
	}
	if !imageFits(row, cells) {
		t.Fatal("four small cells do not fit an image")
	}
	img := appendImage([]byte("x"), row, cells)[1:]
	var h imageHeader
	if err := decodeImageHeader(img, &h); err != nil {
		t.Fatal(err)
	}
	if h.cells != 4 || h.maxColumnVersions != 2 || !h.markers || h.minTS != 3 || h.maxTS != 9 ||
		len(h.families) != 2 || string(h.families[0]) != "a" || string(h.families[1]) != "b" {
		t.Fatalf("header %+v", h)
	}
	if err := checkImageBlock(&h); err != nil {
		t.Fatal(err)
	}
	rest := h.block
	for i, want := range cells {
		c, r, err := decodeImageCell(rest, row)
		if err != nil {
			t.Fatalf("cell %d: %v", i, err)
		}
		if !bytes.Equal(c.Family, want.family) || !bytes.Equal(c.Qualifier, want.qualifier) || c.Timestamp != want.ts ||
			c.Type != want.typ || !bytes.Equal(c.Value, want.value) {
			t.Fatalf("cell %d: %v, want %+v", i, c, want)
		}
		rest = r
	}
	if len(rest) != 0 {
		t.Fatalf("%d bytes after the cells", len(rest))
	}
	if _, _, err := decodeImageCell(h.block, []byte("other")); !errors.Is(err, errCorruptImage) {
		t.Fatalf("a cell of another row: %v", err)
	}
	for _, bad := range [][]byte{nil, {2, 0}, img[:3], img[:len(img)-1]} {
		var h imageHeader
		err := decodeImageHeader(bad, &h)
		if err == nil {
			err = checkImageBlock(&h)
		}
		if !errors.Is(err, errCorruptImage) {
			t.Errorf("image %x: %v, want errCorruptImage", bad, err)
		}
	}
	if imageFits(row, nil) || imageFits(row, make([]imageCell, maxImageCells+1)) ||
		imageFits(row, []imageCell{{value: make([]byte, maxImageBytes)}}) {
		t.Fatal("an empty, a too long or a too large row fits an image")
	}
}

// FuzzDecodeRowImage: an image's decoders never panic nor read past
// their input, whatever the bytes.
func FuzzDecodeRowImage(f *testing.F) {
	row := []byte("r")
	f.Add(appendImage(nil, row, []imageCell{{family: []byte("f"), qualifier: []byte("q"), ts: 1, typ: cell.TypePut, value: []byte("v")}}))
	f.Add(appendImage(nil, row, []imageCell{{family: []byte("f"), ts: 1, typ: cell.TypeDeleteFamily},
		{family: []byte("g"), qualifier: []byte("q"), ts: 1 << 40, typ: cell.TypeDelete}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		var h imageHeader
		if decodeImageHeader(b, &h) != nil {
			return
		}
		_ = checkImageBlock(&h)
		for rest := h.block; len(rest) > 0; {
			c, r, err := decodeImageCell(rest, row)
			if err != nil {
				return
			}
			if len(r) >= len(rest) || !c.Type.Valid() {
				t.Fatalf("decoded %v without progress or with a bad type", c)
			}
			rest = r
		}
	})
}

// TestRowImages runs the same writes on a region that stores row images
// and one that does not, and reads both every way after each phase:
// writes as keys, a major compaction (images), writes on top of the
// images (some replacing an image's cell at its timestamp, some masking
// its cells), and a major compaction again. Every read must agree, down
// to the cellblock's bytes, and after a major compaction every row of the
// first region is one key.
func TestRowImages(t *testing.T) {
	// f3's cells expire once older than 20 ms at the start, and the
	// cutoff moves on with every round of writes; MIN_VERSIONS keeps one.
	t.Run("versions", func(t *testing.T) {
		testRowImages(t, []FamilyDescriptor{{Name: []byte("f1"), MaxVersions: 3}, {Name: []byte("f2")},
			{Name: []byte("f3"), MaxVersions: 2, TTL: 1000, MinVersions: 1}})
	})
	// One version per column, as YCSB's table has: a plain read takes
	// every cell of such an image, and a merge copies the image's cells
	// after the last stored key in one piece.
	t.Run("latest", func(t *testing.T) {
		testRowImages(t, []FamilyDescriptor{{Name: []byte("f1")}, {Name: []byte("f2")}, {Name: []byte("f3")}})
	})
}

func testRowImages(t *testing.T, fams []FamilyDescriptor) {
	ctx := context.Background()
	img, clk := openTestRegionOpts(t, Options{}, fams...)
	keys, clk2 := openTestRegionOpts(t, Options{NoRowImages: true}, fams...)
	clk.now, clk2.now = 1_000_020, 1_000_020
	seed := rand.Int63()
	rng := rand.New(rand.NewSource(seed))
	t.Logf("seed %d", seed)
	const rows = 24
	write := func(n int, putsOnly bool) {
		t.Helper()
		for range n {
			row := fmt.Sprintf("r%02d", rng.Intn(rows))
			fam := []string{"f1", "f2", "f3"}[rng.Intn(3)]
			qual := fmt.Sprintf("q%d", rng.Intn(4))
			ts := int64(1 + rng.Intn(40))
			var m Mutation
			kind := rng.Intn(10)
			if putsOnly {
				kind = 3
			}
			switch kind {
			case 0:
				m = del(row, fam, qual, ts, cell.TypeDelete)
			case 1:
				m = del(row, fam, qual, ts, cell.TypeDeleteColumn)
			case 2:
				m = del(row, fam, "", ts, cell.TypeDeleteFamily)
			default:
				m = put(row, fam, qual, ts, fmt.Sprintf("v%d", rng.Intn(1000)))
			}
			mustMutate(t, img, m)
			mustMutate(t, keys, m)
		}
		clk.now += 3
		clk2.now += 3
	}
	check := func(phase string) {
		t.Helper()
		gets := []Get{{}, {MaxVersions: 3}, {Columns: []Columns{{Family: []byte("f1")}}},
			{Columns: []Columns{{Family: []byte("f1"), Qualifiers: [][]byte{[]byte("q1"), []byte("q3")}}}},
			{TimeRange: cell.TimeRange{Min: 10, Max: 30}, MaxVersions: 2}}
		for i := range rows {
			for gi, g := range gets {
				g.Row = []byte(fmt.Sprintf("r%02d", i))
				a, errA := img.Get(ctx, g)
				b, errB := keys.Get(ctx, g)
				if errA != nil || errB != nil || fmtCells(a.Cells) != fmtCells(b.Cells) {
					t.Fatalf("seed %d, %s: get %d of %s:\nimages:\n%s(%v)\nkeys:\n%s(%v)", seed, phase, gi, g.Row,
						fmtCells(a.Cells), errA, fmtCells(b.Cells), errB)
				}
			}
		}
		for si, s := range []Scan{{}, {Reversed: true}, {Raw: true, MaxVersions: 10}, {StartRow: []byte("r05"), StopRow: []byte("r17"), MaxVersions: 3},
			{Columns: []Columns{{Family: []byte("f2")}}}, {Batch: 2}} {
			a, b := scanInSteps(t, img, s, 2), scanInSteps(t, keys, s, 2)
			if a != b {
				t.Fatalf("seed %d, %s: scan %d:\nimages:\n%s\nkeys:\n%s", seed, phase, si, a, b)
			}
			if s.Batch == 0 && !s.Raw {
				if ka, kb := scanKV(t, img, s), scanKV(t, keys, s); !bytes.Equal(ka, kb) {
					t.Fatalf("seed %d, %s: scan %d: the cellblocks differ", seed, phase, si)
				}
			}
		}
	}
	majorCompact := func() {
		t.Helper()
		for _, r := range []*Region{img, keys} {
			if err := r.Compact(ctx, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(300, false)
	check("written")
	majorCompact()
	check("major compaction")
	if n, imgs := keysAndImages(t, img); n != imgs {
		t.Fatalf("after a major compaction the region stores %d keys, %d of them row images: want one image per row", n, imgs)
	}
	write(60, true)
	check("puts on images")
	write(100, false)
	check("written on images")
	majorCompact()
	check("major compaction again")
	if n, imgs := keysAndImages(t, img); n != imgs || n == 0 {
		t.Fatalf("the region stores %d keys, %d of them row images", n, imgs)
	}
	if n, imgs := keysAndImages(t, keys); imgs != 0 || n == 0 {
		t.Fatalf("with NoRowImages the region stores %d keys, %d of them row images", n, imgs)
	}
}

// scanKV returns the cellblock of s, read three rows per call, followed by
// its cells per row.
func scanKV(t *testing.T, r *Region, s Scan) []byte {
	t.Helper()
	sc, err := r.NewScanner(s)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var b KVBatch
	for {
		more, err := sc.NextKV(context.Background(), 3, 0, &b)
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			return fmt.Appendf(b.Block, "%v", b.CellsPerResult)
		}
	}
}

// keysAndImages counts the region's stored keys and the row images among
// them.
func keysAndImages(t *testing.T, r *Region) (keys, images int) {
	t.Helper()
	it, err := r.engine.NewIter(storage.IterOptions{Lower: r.lower, Upper: r.upper})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		keys++
		if storage.IsRowKey(it.Key()) {
			images++
		}
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return keys, images
}

// cellIter.RowPrefix is the row prefix of Key, whether the cell is an
// image's or a key of its own, at every step and after seeks.
func TestCellIterRowPrefix(t *testing.T) {
	ctx := context.Background()
	r, _ := openTestRegion(t)
	for _, row := range []string{"a", "b\x00", "c"} {
		for q := range 3 {
			mustMutate(t, r, put(row, "f1", fmt.Sprintf("q%d", q), 10, "v"))
		}
	}
	if err := r.Compact(ctx, true); err != nil { // a, b\x00 and c become images
		t.Fatal(err)
	}
	mustMutate(t, r, put("b\x00", "f1", "q1", 20, "w"), put("d", "f2", "x", 5, "v")) // a key after b's image; a row of keys
	store, err := r.engine.NewIter(storage.IterOptions{Lower: r.lower, Upper: r.upper})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var it cellIter
	it.reset(store)
	check := func(where string) {
		t.Helper()
		k := it.Key()
		if want := k[:storage.RowPrefixLen(k)]; !bytes.Equal(it.RowPrefix(), want) {
			t.Fatalf("%s: RowPrefix %x; want %x (key %x, from image %v)", where, it.RowPrefix(), want, k, it.fromImage)
		}
	}
	cells, images := 0, 0
	for ok := it.First(); ok; ok = it.Next() {
		check(fmt.Sprintf("cell %d", cells))
		cells++
		if it.fromImage {
			images++
		}
	}
	if cells != 11 || images != 9 {
		t.Fatalf("%d cells, %d from images; want 11 and 9", cells, images)
	}
	for _, row := range []string{"b\x00", "c", "d"} {
		if !it.SeekGE(storage.AppendRowPrefix(nil, r.info.TableID, []byte(row))) {
			t.Fatalf("seek to %q found nothing", row)
		}
		check("seek to " + row)
	}
}
