package region

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/storage"
)

// Flush writes the store's memtables to SSTs. Pebble's memtable is shared
// by every region of the store, so this flushes them all, as HBase's
// flush of a region's memstore makes its edits durable in files.
func (r *Region) Flush(ctx context.Context) error {
	if err := r.enter(); err != nil {
		return err
	}
	defer r.gate.RUnlock()
	return r.engine.Flush()
}

// Compact compacts the region's key range. A minor compaction is Pebble's
// own: it merges files and changes no result. A major compaction first
// collects garbage as HBase's major compaction does (MajorGarbagePass),
// then compacts the range to the bottom level so the space is reclaimed.
func (r *Region) Compact(ctx context.Context, major bool) error {
	if major {
		if _, err := r.MajorGarbagePass(ctx, ""); err != nil {
			return err
		}
	}
	return r.CompactRange(ctx)
}

// MajorGarbagePass is the first half of a major compaction: the garbage
// pass, which deletes what HBase's major compaction drops and stores the
// rows as images, without the compaction of the range that reclaims the
// space (CompactRange). A region server that major-compacts a table's
// regions runs every pass before the first range compaction: the regions
// share one LSM, whose files span region boundaries, so a range
// compaction after each pass would rewrite the regions not yet passed.
//
// Given a path for a temporary file (on the store's FS), a region that no
// one writes to is passed in one file that replaces its keys
// (replacePass); then it reports true, and its range needs no
// compaction: the file is its bottom level. Otherwise, or without a
// path, it is passed row by row.
func (r *Region) MajorGarbagePass(ctx context.Context, path string) (replaced bool, err error) {
	if err := r.enter(); err != nil {
		return false, err
	}
	defer r.gate.RUnlock()
	// A major compaction is a garbage pass: the automatic one counts
	// from here (autogc.go).
	r.gc.cleaned(r.requests.reads.Load())
	st, replaced, err := r.replacePass(ctx, path, false)
	if err == nil && !replaced {
		st, err = r.collectGarbage(ctx, gcClean)
	}
	if err != nil {
		return false, err
	}
	r.gc.passed(st)
	return replaced, nil
}

// KeySpan returns the region's keys in the store: [lower, upper). The
// spans of adjacent regions meet: one's upper is the next one's lower.
func (r *Region) KeySpan() (lower, upper []byte) { return r.lower, r.upper }

// CompactRange compacts the region's key range down to the bottom level:
// a minor compaction, or the second half of a major one.
func (r *Region) CompactRange(ctx context.Context) error {
	if err := r.enter(); err != nil {
		return err
	}
	defer r.gate.RUnlock()
	return r.engine.Compact(ctx, r.lower, r.upper)
}

// GCStats counts what a garbage pass saw and removed.
type GCStats struct {
	RowsScanned  int64
	CellsScanned int64
	// Garbage is the cells the pass found to drop; CellsDropped those it
	// deleted (none when it only surveyed, fewer when a row changed
	// between the two reads).
	Garbage      int64
	CellsDropped int64
	// Loose is the cells of rows kept in keys of their own, which a
	// cleaning pass writes as row images (rowimage.go).
	Loose int64
	// Probed: an automatic pass read only a sample of the rows written
	// since the last one (gcprobe.go), and found them new.
	Probed bool
}

// An automatic pass (not a major compaction, which an operator asked for)
// keeps to gcDuty of one core: after each gcChunkRows rows it rests for
// the time they took, times (1-gcDuty)/gcDuty. Its work is the same, but
// spread out, so requests on a busy server do not queue behind a burst
// of it (a pass over a 200,000-cell region is some 100 ms of CPU).
const (
	gcDuty      = 0.25
	gcChunkRows = 256
)

// gcPace rests after a chunk of an automatic pass that began at start,
// and returns when the next chunk begins.
func gcPace(ctx context.Context, start time.Time) time.Time {
	rest := time.Duration(float64(time.Since(start)) * (1 - gcDuty) / gcDuty)
	t := time.NewTimer(rest)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
	return time.Now()
}

// betweenChunks runs between two chunks of a pass's rows: it stops the
// pass once ctx is done and, for a paced pass (an automatic one, which
// does not hold the region's gate), once the region has closed, and rests
// the paced pass after the chunk that began at *chunk (gcPace).
func (r *Region) betweenChunks(ctx context.Context, paced bool, chunk *time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if paced {
		if r.closed.Load() {
			return ErrClosed
		}
		*chunk = gcPace(ctx, *chunk)
	}
	return nil
}

// gcMode says what a garbage pass does with the garbage it finds.
type gcMode uint8

const (
	gcSurvey     gcMode = iota // count it
	gcClean                    // delete it; the caller holds the gate
	gcCleanGated               // delete it, entering the gate per row
)

// collectGarbage finds, row by row, the cells HBase's major compaction
// drops (see gcRow for the rules), and deletes them unless mode is
// gcSurvey. Rows are scanned over one view; a row with garbage is cleaned
// under its exclusive lock, re-read under it unless no write but the
// pass's own has begun since the view was taken (writeSeq), so a
// concurrent write of the same key is never deleted by mistake. A pass that does not hold the gate
// stops at the first row after the region closes, and holds the gate only
// while it cleans a row, so a long pass never keeps a Close (a move, a
// split) and the requests queued behind it waiting.
func (r *Region) collectGarbage(ctx context.Context, mode gcMode) (GCStats, error) {
	var st GCStats
	now := r.opts.Now()
	desc := r.Descriptor()
	// view: the writes begun before the scan's view; own counts the
	// pass's commits since. keep: the view holds every write, so a
	// cleaning pass takes the rows' values along and may clean a row
	// without reading it again, until a write not its own begins.
	view, quiet := r.writes.quiet()
	keep := quiet && mode != gcSurvey
	var own uint64
	store, err := r.engine.NewIter(storage.IterOptions{Lower: r.lower, Upper: r.upper})
	if err != nil {
		return st, err
	}
	defer store.Close()
	var it cellIter
	it.reset(store)
	var row gcRowBuf
	var scratch gcScratch
	chunk := time.Now()
	for ok := it.First(); ok; {
		if st.RowsScanned%gcChunkRows == 0 && st.RowsScanned > 0 {
			if err := r.betweenChunks(ctx, mode != gcClean, &chunk); err != nil {
				return st, err
			}
		}
		st.RowsScanned++
		if h, kept := keptImage(&it, desc, now); kept {
			// Nothing to drop and nothing to take in: no cell to decode.
			st.CellsScanned += int64(h.cells)
			ok = it.rowDone()
			continue
		}
		keep = keep && !r.writes.since(view+own)
		drops, due, err := r.readGCRow(&it, &row, keep, desc, now, &st)
		if err != nil {
			return st, err
		}
		ok = it.Valid()
		if mode == gcSurvey || (len(drops) == 0 && !due) {
			continue
		}
		if mode == gcCleanGated {
			if err := r.enter(); err != nil {
				return st, err
			}
		}
		var read *gcRead
		if keep {
			read = &gcRead{keys: row.keys, writes: view + own}
		}
		userRow := r.userRow(row.keys[0].k.Row)
		if r.beforeCleanRow != nil {
			r.beforeCleanRow(userRow)
		}
		n, wrote, err := r.cleanRow(ctx, row.prefix, userRow, desc, now, read, &scratch)
		if mode == gcCleanGated {
			r.gate.RUnlock()
		}
		if err != nil {
			return st, err
		}
		if wrote {
			own++
		}
		st.CellsDropped += n
	}
	return st, it.Error()
}

// keptImage reports the image of the row it is at when the image is the
// row's only key and keeps every cell (imageKeepsAll): a pass has nothing
// to drop or take in there.
func keptImage(it *cellIter, desc *TableDescriptor, now int64) (*imageHeader, bool) {
	h, whole := it.wholeImage()
	return h, whole && imageKeepsAll(h, desc, math.MaxInt, func() int64 { return now })
}

// gcRowBuf is the row a pass has read: its prefix and its cells, the
// cells' bytes in arena. A pass reuses it from row to row.
type gcRowBuf struct {
	prefix []byte
	keys   []gcKey
	arena  []byte
}

// readGCRow reads the row it is at into b (the cells' values too, if
// asked), leaving it past the row, and counts the row into st
// (countGCRow).
func (r *Region) readGCRow(it *cellIter, b *gcRowBuf, values bool, desc *TableDescriptor, now int64,
	st *GCStats) (drops [][]byte, due bool, err error) {
	b.prefix = append(b.prefix[:0], it.RowPrefix()...)
	if b.keys, b.arena, err = collectRowKeys(it, b.prefix, b.keys[:0], b.arena[:0], values); err != nil {
		return nil, false, err
	}
	drops, due = r.countGCRow(b.keys, desc, now, st)
	return drops, due, nil
}

// countGCRow counts a row's keys into st: its cells, the garbage gcRow
// finds among them (returned, in store order), and its loose cells when
// an image is due to take them in (due).
func (r *Region) countGCRow(keys []gcKey, desc *TableDescriptor, now int64, st *GCStats) (drops [][]byte, due bool) {
	st.CellsScanned += int64(len(keys))
	drops = gcRow(keys, desc, now)
	st.Garbage += int64(len(drops))
	if due = r.imageDue(keys); due {
		st.Loose += int64(len(keys))
	}
	return drops, due
}

// gcRead is a row as a pass read it over its view: its keys with their
// values, and the region's writes begun before the view (writeSeq) plus
// the pass's own commits since.
type gcRead struct {
	keys   []gcKey
	writes uint64
}

// gcScratch is cleanRow's buffers, which a pass reuses from row to row.
type gcScratch struct {
	kept  []imageCell
	image []byte
	ops   []error
}

// cleanRow deletes one row's garbage under its exclusive lock and writes
// what is left as the row's image (rowimage.go) when it fits one; a row
// that does not keeps its cells as keys of their own, an image it had
// included. It re-reads the row under the lock unless read holds it and
// no other write has begun since read's view. It reports the cells it
// dropped and whether it committed a write.
func (r *Region) cleanRow(ctx context.Context, prefix, row []byte, desc *TableDescriptor, now int64, read *gcRead, sc *gcScratch) (int64, bool, error) {
	held, err := r.locks.acquire(ctx, []lockRequest{{stripe: stripeOf(row), exclusive: true}}, r.opts.RowLockTimeout)
	if err != nil {
		return 0, false, err
	}
	defer held.release()
	var keys []gcKey
	if read != nil && !r.writes.since(read.writes) {
		keys = read.keys
	} else {
		if keys, err = r.readRowKeys(prefix); err != nil {
			return 0, false, err
		}
	}
	drops := gcRow(keys, desc, now)
	kept := keepCells(keys, drops, sc.kept[:0])
	defer func() { sc.kept = kept[:0] }()
	hadImage, stored := false, false
	for i := range keys {
		hadImage = hadImage || keys[i].fromImage
		stored = stored || !keys[i].fromImage
	}
	image := r.imagesOn() && imageFits(row, kept)
	if len(drops) == 0 && !(image && stored) {
		return 0, false, nil // clean, and an image already or never one
	}
	b := r.engine.NewBatch()
	defer b.Close()
	ops := sc.ops[:0]
	defer func() { sc.ops = ops[:0] }()
	if image {
		sc.image = appendImage(sc.image[:0], row, kept) // the batch copies it
		ops = append(ops, b.Set(prefix, sc.image))
		for i := range keys {
			if !keys[i].fromImage {
				ops = append(ops, b.Delete(keys[i].key))
			}
		}
	} else {
		if hadImage {
			ops = append(ops, b.Delete(prefix))
		}
		for i := range keys {
			switch k := &keys[i]; {
			case k.fromImage && !k.dropped:
				ops = append(ops, b.Set(k.key, k.value))
			case !k.fromImage && k.dropped:
				ops = append(ops, b.Delete(k.key))
			}
		}
	}
	if err := errors.Join(ops...); err != nil {
		return 0, false, err
	}
	// Garbage removal need not be synced: if a crash loses it, the next
	// pass finds the same garbage. The batch keeps one row's edits atomic.
	// Garbage is invisible to reads, so the cached row stays right; drop it
	// anyway rather than trust that for every rule of gcRow.
	w := r.rowWrites(nil)
	t := w.begin(row)
	r.writes.begin()
	err = b.Commit(storage.AsyncWAL)
	r.writes.end()
	w.end(row, t, 0, nil)
	if err != nil {
		return 0, true, err
	}
	return int64(len(drops)), true, nil
}

// keepCells marks the keys that drops (gcRow's, in the same order) names
// as dropped, and appends the others to kept as the cells of the row's
// image.
func keepCells(keys []gcKey, drops [][]byte, kept []imageCell) []imageCell {
	for i, j := 0, 0; i < len(keys); i++ {
		k := &keys[i]
		if k.dropped = j < len(drops) && bytes.Equal(drops[j], k.key); k.dropped {
			j++
			continue
		}
		kept = append(kept, imageCell{family: k.k.Family, qualifier: k.k.Qualifier, ts: k.k.Timestamp,
			typ: cell.Type(k.k.Type), value: k.value})
	}
	return kept
}

// readRowKeys reads the row of prefix's cells, with their values, over a
// view of its own.
func (r *Region) readRowKeys(prefix []byte) ([]gcKey, error) {
	store, err := r.engine.NewIter(storage.IterOptions{Lower: prefix, Upper: storage.RowUpperBound(nil, prefix)})
	if err != nil {
		return nil, err
	}
	defer store.Close()
	var it cellIter
	it.reset(store)
	it.First()
	keys, _, err := collectRowKeys(&it, prefix, nil, nil, true)
	return keys, err
}

// imagesOn reports whether the region writes row images. hbase:meta's
// regions (Options.RowOrder) keep one key per cell: their images would
// hold the rows as stored, not as read.
func (r *Region) imagesOn() bool { return r.opts.RowOrder == nil && !r.opts.NoRowImages }

// imageDue reports whether a cleaning pass rewrites a row without garbage:
// it has keys of their own, which an image would take in.
func (r *Region) imageDue(keys []gcKey) bool {
	if !r.imagesOn() || len(keys) > maxImageCells {
		return false
	}
	for i := range keys {
		if !keys[i].fromImage {
			return true
		}
	}
	return false
}

// gcKey is one cell of a row, decoded: a key of its own or its image's.
type gcKey struct {
	key []byte
	k   storage.CellKey
	// fromImage: the cell is the row image's (celliter.go).
	fromImage bool
	// value, when collected; dropped, when cleanRow drops the cell.
	value   []byte
	dropped bool
}

// collectRowKeys appends the cells of the row of prefix, from the
// iterator's position on, to out, their keys (and values, if asked)
// copied into arena (which a pass reuses from row to row: the keys live
// until the next row).
func collectRowKeys(it *cellIter, prefix []byte, out []gcKey, arena []byte, values bool) ([]gcKey, []byte, error) {
	for ; it.Valid() && bytes.HasPrefix(it.Key(), prefix); it.Next() {
		var v []byte
		if values {
			var err error
			if v, err = it.Value(); err != nil {
				return out, arena, err
			}
		}
		// Never grown in place under keys already taken: a full arena is
		// replaced, and the keys before stay in the old one.
		if n := len(it.Key()) + len(v); len(arena)+n > cap(arena) {
			arena = make([]byte, 0, max(4096, 2*cap(arena), n))
		}
		start := len(arena)
		arena = append(arena, it.Key()...)
		key := arena[start:len(arena):len(arena)]
		arena = append(arena, v...)
		k, err := storage.DecodeCellKey(key)
		if err != nil {
			return out, arena, fmt.Errorf("region: garbage pass: %w", err)
		}
		out = append(out, gcKey{key: key, k: k, fromImage: it.fromImage, value: arena[len(key)+start : len(arena) : len(arena)]})
	}
	return out, arena, it.Error()
}

// gcRow returns the keys of one row (in store order) that a major
// compaction removes. The rules, per family:
//
//   - A family the table no longer has: everything.
//   - KEEP_DELETED_CELLS=FALSE: every delete marker, and every put a marker
//     masks. Of the remaining puts of a column, newest first, the first
//     VERSIONS stay, except that an expired put (older than TTL) stays
//     only among the first MIN_VERSIONS.
//   - KEEP_DELETED_CELLS=TRUE: markers and masked puts stay; the version
//     and TTL rule applies to all puts of a column, masked or not.
//   - KEEP_DELETED_CELLS=TTL: as TRUE, but expired markers go, and so do
//     masked puts that are expired.
func gcRow(keys []gcKey, desc *TableDescriptor, now int64) [][]byte {
	var drops [][]byte
	for start := 0; start < len(keys); {
		fam := keys[start].k.Family
		end := start + 1
		for end < len(keys) && bytes.Equal(keys[end].k.Family, fam) {
			end++
		}
		drops = gcFamily(keys[start:end], desc.Family(fam), now, drops)
		start = end
	}
	return drops
}

func gcFamily(keys []gcKey, fd *FamilyDescriptor, now int64, drops [][]byte) [][]byte {
	if fd == nil {
		for _, k := range keys {
			drops = append(drops, k.key)
		}
		return drops
	}
	cutoff := int64(-1 << 63)
	if ttl := fd.ttlMillis(); ttl > 0 {
		cutoff = now - ttl
	}
	kdc := fd.KeepDeletedCells
	dropDeleted := func(ts int64) bool {
		return kdc == KeepDeletedFalse || (kdc == KeepDeletedTTL && ts < cutoff)
	}
	famDel := int64(-1)
	var famVerDel []int64
	var colDel int64
	var colVerDel []int64
	var col []byte
	versions := 0
	for _, gk := range keys {
		k := &gk.k
		typ := cell.Type(k.Type)
		if typ.IsFamilyMarker() {
			if typ == cell.TypeDeleteFamily {
				famDel = max(famDel, k.Timestamp)
			} else {
				famVerDel = append(famVerDel, k.Timestamp)
			}
			if dropDeleted(k.Timestamp) {
				drops = append(drops, gk.key)
			}
			continue
		}
		colKey := gk.key[k.RowPrefixLen:k.ColumnPrefixLen]
		if !bytes.Equal(colKey, col) {
			col, colDel, colVerDel, versions = colKey, -1, colVerDel[:0], 0
		}
		if typ != cell.TypePut {
			if typ == cell.TypeDeleteColumn {
				colDel = max(colDel, k.Timestamp)
			} else {
				colVerDel = append(colVerDel, k.Timestamp)
			}
			if dropDeleted(k.Timestamp) {
				drops = append(drops, gk.key)
			}
			continue
		}
		ts := k.Timestamp
		masked := ts <= famDel || ts <= colDel || slices.Contains(famVerDel, ts) || slices.Contains(colVerDel, ts)
		expired := ts < cutoff
		// Without KEEP_DELETED_CELLS every masked put goes (dropDeleted is
		// always true); with TTL only expired ones do.
		if masked && dropDeleted(ts) {
			drops = append(drops, gk.key)
			continue
		}
		if versions >= fd.MaxVersions || (expired && versions >= fd.MinVersions) {
			drops = append(drops, gk.key)
			continue
		}
		versions++
	}
	return drops
}
