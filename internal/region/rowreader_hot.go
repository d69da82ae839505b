package region

import (
	"bytes"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/storage"
)

// A row that updates keep hot holds long runs of versions in its stored
// keys (HBase drops them at its next flush; Weir at its next garbage
// pass), and a scan that merges such a row seeks past every run, one
// column after another. The Gets of a zipfian load keep the same rows in
// the row cache (rowcache.go), patched by the updates, so a scan that
// meets a run takes the row from there and lets the scanner seek past
// the rest of the row at once.
//
// The cached row is the row's latest state, which may be newer than the
// scanner's view of the store: HBase promises a scan every row as it was
// at some moment, no older than the scan's start, and no more than that.

// hotRows is what a scan needs to take rows from the row cache.
type hotRows struct {
	on    bool
	id    uint64 // the region's key space in the cache
	epoch uint64 // the region's cache generation when the scan began
	key   []byte
	fam   []byte // the family of the last cell added
}

// hotRowsFor returns what a scan of q may use of the row cache (on false:
// nothing). As a cached Get, it must read the latest version of each
// column, with no filter or time range, of a table whose cells never
// expire; epoch is the cache generation read before q's schema was.
func (r *Region) hotRowsFor(q *query, epoch uint64) hotRows {
	if !r.cacheServes(q, q.desc) {
		return hotRows{}
	}
	return hotRows{on: true, id: r.cacheID, epoch: epoch}
}

// takeHotRow replaces what the merge of the row put into the cellblock
// since kvLen and kvCells with the row's cached cells. It reports false,
// having changed nothing, when the row is not cached. The store iterator
// stays within the row: the scanner seeks past a row it was left in.
func (rr *rowReader) takeHotRow(kvLen, kvCells int) bool {
	h, kv := &rr.hot, rr.kv
	h.key = appendRowCacheKey(h.key[:0], h.id, rr.row)
	h.fam = h.fam[:0]
	// A miss appends nothing, so the merge's cells are still there to
	// take back.
	mergedLen, mergedCells := len(kv.buf), kv.cells
	kv.buf, kv.cells = kv.buf[:kvLen], kvCells
	hit := rr.r.opts.RowCache.each(h.key, h.epoch, func(c cell.Cell) {
		if !wanted(rr.q.columns, c.Family, c.Qualifier) {
			return
		}
		if len(h.fam) == 0 || !bytes.Equal(c.Family, h.fam) {
			h.fam = append(h.fam[:0], c.Family...)
			kv.newHead()
		}
		rr.maxTS = max(rr.maxTS, c.Timestamp)
		k := storage.CellKey{Family: c.Family, Qualifier: c.Qualifier, Timestamp: c.Timestamp, Type: uint8(c.Type)}
		kv.add(rr.row, h.fam, &k, c.Value)
	})
	if !hit {
		kv.buf, kv.cells = kv.buf[:mergedLen], mergedCells
	}
	kv.newHead()
	return hit
}
