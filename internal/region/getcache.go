package region

import (
	"bytes"

	"github.com/weirdb/weir/internal/cell"
)

// forgetCachedRows starts a new generation of the region's cached rows,
// so no entry made before is found again (they age out of the cache).
func (r *Region) forgetCachedRows() { r.cacheEpoch.Add(1) }

// rowWrites brackets the commit of writes to rows for the row cache
// (RowCache.beginWrite, endWrite).
type rowWrites struct {
	c   *RowCache
	id  uint64
	key []byte
}

// rowWrites starts a bracket; scratch, when the caller has a buffer it is
// done with, saves the key's allocation.
func (r *Region) rowWrites(scratch []byte) rowWrites {
	if r.opts.RowCache == nil {
		return rowWrites{}
	}
	return rowWrites{c: r.opts.RowCache, id: r.cacheID, key: scratch[:0]}
}

func (w *rowWrites) begin(row []byte) writeTicket {
	if w.c == nil {
		return writeTicket{}
	}
	w.key = appendRowCacheKey(w.key[:0], w.id, row)
	return w.c.beginWrite(w.key)
}

// end closes begin's window; put and epoch are RowCache.endWrite's (nil:
// the row is dropped).
func (w *rowWrites) end(row []byte, t writeTicket, epoch uint64, put []cell.Cell) {
	if w.c != nil {
		w.key = appendRowCacheKey(w.key[:0], w.id, row)
		w.c.endWrite(w.key, t, epoch, put)
	}
}

// cachedGet is how a Get may use the row cache.
type cachedGet uint8

const (
	noCache   cachedGet = iota
	cacheRead           // may be served from a cached row
	cacheFill           // may be served, and reads the whole row: may fill
)

// rowCacheUse tells whether g, read as q, may use the row cache
// (cacheServes), and whether it reads whole rows, which may fill it.
func (r *Region) rowCacheUse(q *query, g *Get, desc *TableDescriptor) cachedGet {
	if !r.cacheServes(q, desc) {
		return noCache
	}
	if len(g.Columns) == 0 {
		return cacheFill
	}
	// Whole families only, every family of the table: the whole row.
	for i := range g.Columns {
		if len(g.Columns[i].Qualifiers) > 0 {
			return cacheRead
		}
	}
	if coversFamilies(g.Columns, desc.Families) {
		return cacheFill
	}
	return cacheRead
}

// cacheServes reports whether the row cache holds what q reads, in a
// table described by desc: the latest version of each column, with no
// filter, time range or per-family window, of a table whose cells never
// expire (what it reads cannot change but by a write). Gets and scans
// (rowreader_hot.go) both ask.
func (r *Region) cacheServes(q *query, desc *TableDescriptor) bool {
	if r.opts.RowCache == nil || r.opts.RowOrder != nil || q.filter != nil || q.raw || q.maxVersions != 1 ||
		q.storeLimit > 0 || q.storeOffset > 0 || !q.tr.IsAllTime() {
		return false
	}
	for i := range desc.Families {
		if desc.Families[i].TTL != TTLForever {
			return false
		}
	}
	return true
}

func coversFamilies(cols []Columns, fams []FamilyDescriptor) bool {
	for i := range fams {
		found := false
		for j := range cols {
			if bytes.Equal(cols[j].Family, fams[i].Name) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// wanted reports whether the column family:qualifier is among the columns
// cols names (nil: all).
func wanted(cols []Columns, family, qualifier []byte) bool {
	if len(cols) == 0 {
		return true
	}
	for i := range cols {
		if !bytes.Equal(cols[i].Family, family) {
			continue
		}
		if len(cols[i].Qualifiers) == 0 {
			return true
		}
		for _, q := range cols[i].Qualifiers {
			if bytes.Equal(q, qualifier) {
				return true
			}
		}
	}
	return false
}
