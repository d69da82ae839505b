package region

import (
	"bytes"
	"fmt"
	"math"
	"slices"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
	"github.com/weirdb/weir/internal/invariants"
	"github.com/weirdb/weir/internal/storage"
)

// rowReader turns the keys of one row, in store order, into the cells a
// read returns. It is HBase's ScanQueryMatcher and StoreScanner in one:
// family and column delete tracking, time range, versions, TTL with
// MIN_VERSIONS, then the filter, then the per-family limit and offset.
//
// Keys arrive per family: family-level markers (DeleteFamily,
// DeleteFamilyVersion) first, then each column's versions newest first,
// delete markers ahead of the put they mask at the same timestamp. So a put
// is judged once every marker that could mask it has been seen.
type rowReader struct {
	r  *Region
	q  *query
	it *cellIter
	ci cellIter // what it points to
	// merge is mergeImage's state (rowreader_image.go).
	merge imageMerge

	// per-row state
	rowPrefix []byte
	row       []byte // owned copy, shared by the row's cells
	endScan   bool   // the filter ended the scan
	nextHint  []byte // a seek target beyond this row, from a filter hint

	// per-family state
	fam         []byte // owned copy of the current family
	famPrefix   []byte
	fd          *FamilyDescriptor
	quals       [][]byte // wanted qualifiers, nil = all
	famDel      int64    // newest DeleteFamily in force, -1 = none
	famVerDel   []int64  // DeleteFamilyVersion timestamps
	maxVersions int
	ttlCutoff   int64 // puts older than this are expired; math.MinInt64 = no TTL
	storeCount  int

	// per-column state
	col       []byte // current column's qualifier
	colSet    bool   // col is set: the family has had a column
	colDel    int64  // newest DeleteColumn in force, -1 = none
	colVerDel []int64
	versions  int

	seekBuf []byte
	// deepColumns: the row's last column skipped had more older versions
	// than seekPastPrefix steps over, so the next likely has as many
	// (YCSB's updates spread over all fields of a hot row): step over one
	// key only before seeking.
	deepColumns bool
	prevKey     []byte // invariants only: the last key read
	arena       []byte
	cur         cell.Cell // the cell being judged
	// pointRead: the iterator serves one row (Get), so prefix iteration
	// applies.
	pointRead bool
	// pointRow, when not nil, is a point read's row as the caller gave it,
	// which is the row as stored (no Options.RowOrder): the row prefix it
	// seeks with matches only that row's keys.
	pointRow []byte
	// arenaChunk is the size of the last arena allocation.
	arenaChunk int
	// cellsHint and arenaHint size a point read's result and first arena
	// chunk (Get sets them to the previous row's); 0: the scan defaults.
	cellsHint, arenaHint int
	// outBuf, when not nil, is where a point read with a GetBuffer puts
	// its cells (the arena then is the buffer's too).
	outBuf []cell.Cell
	// lastFam is an immutable copy of fam, set by startFamily, that the
	// returned cells share (rr.fam is reused per family).
	lastFam []byte
	// kv, when not nil, receives an unfiltered read's cells encoded as
	// KeyValues instead of out (a scan's cellblock: scan_kv.go).
	kv *kvSink
	// hot, when on, lets a scan take a row with runs of versions from
	// the row cache (rowreader_hot.go).
	hot hotRows
	// maxTS is the greatest timestamp among the keys the last read met: as
	// a whole-row read meets the newest key of every column and every
	// family marker, the row's newest key (RowCache entries keep it).
	maxTS int64
	// garbage counts the columns of the row being read that hold versions
	// beyond the family's VERSIONS (autogc.go); readRowAt hands it to the
	// region.
	garbage uint64
	// passed counts the keys the last read met and did not return (older
	// versions, delete markers, cells they mask, an image's cells replaced
	// by keys written after it): what the row cache spares a read of the
	// row (RowCache's admission).
	passed int
}

func newRowReader(r *Region, q *query, it *storage.Iterator) *rowReader {
	rr := &rowReader{r: r, q: q}
	rr.ci.reset(it)
	rr.it = &rr.ci
	return rr
}

// reset readies a reader for another read, keeping its scratch buffers.
// The arena is dropped: cells already returned own it.
func (rr *rowReader) reset(r *Region, q *query, it *storage.Iterator) {
	rr.r, rr.q = r, q
	rr.ci.reset(it)
	rr.it = &rr.ci
	rr.arena, rr.arenaChunk = nil, 0
	rr.cur = cell.Cell{}
	rr.nextHint = nil
	rr.outBuf = nil
	rr.pointRow = nil
}

// includeMarker decides whether a delete marker at ts takes part in the
// read. With KEEP_DELETED_CELLS a marker only counts inside the time range,
// so a query that ends before a delete still sees what it deleted;
// otherwise a marker newer than the range still masks cells inside it.
func (rr *rowReader) includeMarker(ts int64) bool {
	if rr.fd.KeepDeletedCells != KeepDeletedFalse {
		return rr.q.tr.Contains(ts)
	}
	return rr.q.tr.ContainsOrAfter(ts)
}

// read consumes the row whose keys start with rowPrefix; the iterator must
// sit on the row's first key. It appends the row's included cells to out
// and leaves the iterator after the row (or invalid). The caller applies
// row-level filtering.
func (rr *rowReader) read(rowPrefix, row []byte, out []cell.Cell) ([]cell.Cell, error) {
	rr.rowPrefix = rowPrefix
	rr.row = rr.ownBytes(row)
	if rr.kv != nil {
		rr.kv.newHead()
	}
	rr.fam = rr.fam[:0]
	rr.fd = nil
	rr.endScan = false
	rr.nextHint = nil
	rr.deepColumns = false
	rr.maxTS = math.MinInt64
	rr.passed = 0
	// plain: every cell that passes the store-level checks is returned as
	// read (no filter, no per-family limit or offset), the common Get.
	plain := rr.q.filter == nil && rr.q.storeLimit <= 0 && rr.q.storeOffset == 0
	raw, tr := rr.q.raw, rr.q.tr
	it := rr.it
	if plain && !raw && it.imageAtStart(rowPrefix) {
		out, done, err := rr.readImage(rowPrefix, out)
		if done || err != nil {
			return out, err
		}
	}
	first := true
	var k storage.CellKey
	for it.Valid() {
		key := it.Key()
		// A point read's prefix iteration ends at the row's last key.
		if !rr.pointRead && !bytes.HasPrefix(key, rowPrefix) {
			break
		}
		if invariants.Enabled {
			if !bytes.HasPrefix(key, rowPrefix) {
				panic(fmt.Sprintf("region: key %x outside the row %x being read", key, rowPrefix))
			}
			if !first && bytes.Compare(key, rr.prevKey) <= 0 {
				panic(fmt.Sprintf("region: row keys out of order: %x after %x", key, rr.prevKey))
			}
			rr.prevKey = append(rr.prevKey[:0], key...)
		}
		if !first && bytes.HasPrefix(key, rr.famPrefix) {
			// Another cell of the current family (the escaping is prefix
			// free, so the family prefix matches only its own family's
			// keys): only its column is new. k keeps Family and
			// RowPrefixLen from the family's first key.
			if err := storage.DecodeColumn(key, len(rr.famPrefix), &k); err != nil {
				return out, err
			}
			if invariants.Enabled {
				rr.checkDecoded(key, &k)
			}
		} else {
			var err error
			if k, err = storage.DecodeCellKeyInRow(key, len(rowPrefix)); err != nil {
				return out, err
			}
			first = false
			if !rr.startFamily(k.Family) {
				rr.passed++
				rr.seekPastPrefix(rr.famPrefix)
				continue
			}
			k.Family = rr.fam
		}
		rr.maxTS = max(rr.maxTS, k.Timestamp)
		typ := cell.Type(k.Type)
		if typ.IsFamilyMarker() {
			if rr.marker(&k, &out) {
				return out, nil
			}
			continue
		}
		// Within a family a column is its qualifier (the escaping is one to
		// one); colSet tells the family's first column, whose qualifier
		// may be empty, from the empty rr.col.
		if !rr.colSet || !bytes.Equal(k.Qualifier, rr.col) {
			rr.col, rr.colSet = append(rr.col[:0], k.Qualifier...), true
			rr.colDel, rr.colVerDel, rr.versions = -1, rr.colVerDel[:0], 0
			if rr.quals != nil {
				if _, ok := slices.BinarySearchFunc(rr.quals, k.Qualifier, bytes.Compare); !ok {
					rr.passed++
					rr.seekNextWantedColumn(k.Qualifier)
					continue
				}
			}
		}
		if typ != cell.TypePut {
			if rr.marker(&k, &out) {
				return out, nil
			}
			continue
		}
		ts := k.Timestamp
		if !raw && rr.masked(ts) {
			rr.passed++
			rr.next()
			continue
		}
		if !tr.Contains(ts) {
			rr.passed++
			if ts < tr.Min {
				rr.seekPastPrefix(key[:k.ColumnPrefixLen])
			} else {
				rr.next()
			}
			continue
		}
		if rr.versions >= rr.maxVersions || (ts < rr.ttlCutoff && rr.versions >= rr.fd.MinVersions) {
			if rr.versions >= rr.fd.MaxVersions {
				rr.garbage++
			}
			rr.passed++
			if raw {
				// A raw read still owes the column's older delete markers.
				rr.next()
			} else {
				rr.seekPastPrefix(key[:k.ColumnPrefixLen])
			}
			continue
		}
		rr.versions++
		value, err := it.Value()
		if err != nil {
			return out, err
		}
		if plain {
			out = rr.appendOwned(out, &k, value)
			rr.next()
			continue
		}
		if done := rr.emit(&k, value, &out); done {
			return out, nil
		}
	}
	return out, it.Error()
}

// marker handles a delete marker: a raw read returns it (if in the time
// range), any other read records what it masks. It moves the iterator on
// and reports whether the row is finished.
func (rr *rowReader) marker(k *storage.CellKey, out *[]cell.Cell) (rowDone bool) {
	ts := k.Timestamp
	rr.passed++
	if rr.q.raw {
		if rr.q.tr.Contains(ts) {
			return rr.emit(k, nil, out)
		}
		rr.next()
		return false
	}
	if rr.includeMarker(ts) {
		switch cell.Type(k.Type) {
		case cell.TypeDeleteFamily:
			rr.famDel = max(rr.famDel, ts)
		case cell.TypeDeleteFamilyVersion:
			rr.famVerDel = append(rr.famVerDel, ts)
		case cell.TypeDeleteColumn:
			rr.colDel = max(rr.colDel, ts)
		default:
			rr.colVerDel = append(rr.colVerDel, ts)
		}
	}
	rr.next()
	return false
}

func (rr *rowReader) masked(ts int64) bool {
	return ts <= rr.famDel || ts <= rr.colDel ||
		slices.Contains(rr.famVerDel, ts) || slices.Contains(rr.colVerDel, ts)
}

// startFamily sets up the state of a new family and reports whether the
// read wants it at all.
func (rr *rowReader) startFamily(family []byte) bool {
	rr.fam = append(rr.fam[:0], family...)
	rr.famPrefix = storage.AppendFamilyPrefix(rr.famPrefix[:0], rr.rowPrefix, family)
	rr.col, rr.colSet = rr.col[:0], false
	rr.famDel, rr.famVerDel, rr.storeCount = -1, rr.famVerDel[:0], 0
	rr.fd = rr.q.desc.Family(family)
	if rr.fd == nil {
		return false // a dropped family whose cells are not yet compacted away
	}
	want, quals := rr.q.wantFamily(family)
	if !want {
		return false
	}
	rr.quals = quals
	if !bytes.Equal(rr.lastFam, family) {
		rr.lastFam = append([]byte(nil), family...)
	}
	if rr.kv != nil {
		rr.kv.newHead()
	}
	rr.maxVersions = min(rr.q.maxVersions, rr.fd.MaxVersions)
	rr.ttlCutoff = -1 << 63
	if ttl := rr.fd.ttlMillis(); ttl > 0 {
		rr.ttlCutoff = rr.q.nowMillis() - ttl
	}
	return true
}

func (rr *rowReader) next() { rr.it.Next() }

// seekRow positions on the first key of a row. Point reads use prefix
// iteration (bloom filters, no look past the row); scans a plain seek.
func (rr *rowReader) seekRow(rowPrefix []byte) bool { return rr.seekGE(rowPrefix) }

// seekGE moves to the first key >= key. A point read stays in prefix
// iteration (key starts with the row's prefix), so its iterator needs no
// bounds: it never looks past the row.
func (rr *rowReader) seekGE(key []byte) bool {
	if rr.pointRead {
		return rr.it.SeekPrefixGE(key)
	}
	return rr.it.SeekGE(key)
}

// seekPastPrefix moves to the first key that does not start with prefix,
// whose last two bytes are an escaped segment's terminator or a tag.
// It tries a few Nexts first: what it skips is most often a column's older
// version or two, and a Next costs a fraction of a seek (HBase's
// StoreScanner makes the same bet). After a column that needed the seek,
// the next column tries one Next only: a row updated often has long runs
// of versions in every column (until a compaction drops them), and the
// Nexts before each seek would be wasted; one still finds a column with no
// older version without a seek.
func (rr *rowReader) seekPastPrefix(prefix []byte) {
	rr.seekBuf = append(rr.seekBuf[:0], prefix...) // prefix may alias the key Next replaces
	nexts := nextsBeforeSeek
	if rr.deepColumns {
		nexts = 1
	}
	for range nexts {
		if !rr.it.Next() || !bytes.HasPrefix(rr.it.Key(), rr.seekBuf) {
			rr.deepColumns = false
			return
		}
	}
	rr.deepColumns = true
	rr.seekBuf[len(rr.seekBuf)-1]++
	rr.seekGE(rr.seekBuf)
}

// nextsBeforeSeek is how many keys seekPastPrefix steps over before it
// seeks.
const nextsBeforeSeek = 4

// seekNextWantedColumn moves to the first wanted qualifier after cur, or
// past the family.
func (rr *rowReader) seekNextWantedColumn(cur []byte) {
	i, _ := slices.BinarySearchFunc(rr.quals, cur, bytes.Compare)
	if i == len(rr.quals) {
		rr.seekPastPrefix(rr.famPrefix)
		return
	}
	rr.seekBuf = storage.AppendColumnPrefix(rr.seekBuf[:0], rr.famPrefix, rr.quals[i])
	rr.seekGE(rr.seekBuf)
}

// emit runs a cell that passed the store-level checks through the filter
// and the per-family limits, copies it into out if included, and moves the
// iterator on. It reports whether the row is finished.
func (rr *rowReader) emit(k *storage.CellKey, value []byte, out *[]cell.Cell) (rowDone bool) {
	if rr.q.filter == nil {
		// The common case, kept lean: no filter to consult.
		rr.storeCount++
		if rr.q.storeLimit > 0 && rr.storeCount > rr.q.storeLimit+rr.q.storeOffset {
			rr.seekPastPrefix(rr.famPrefix)
			return false
		}
		if rr.storeCount > rr.q.storeOffset {
			*out = rr.appendOwned(*out, k, value)
		}
		rr.next()
		return false
	}
	// The cell lives in the reader so that handing it to the filter does
	// not allocate.
	rr.cur = cell.Cell{Row: rr.row, Family: rr.fam, Qualifier: k.Qualifier,
		Timestamp: k.Timestamp, Type: cell.Type(k.Type), Value: value}
	c := &rr.cur
	rc := filter.Include
	if f := rr.q.filter; f != nil {
		rc = f.FilterCell(c)
		if f.FilterAllRemaining() {
			rr.endScan = true
		}
	}
	include := rc == filter.Include || rc == filter.IncludeAndNextCol || rc == filter.IncludeAndSeekNextRow
	if include {
		if f := rr.q.filter; f != nil {
			*c = f.TransformCell(*c)
		}
		rr.storeCount++
		if rr.q.storeLimit > 0 && rr.storeCount > rr.q.storeLimit+rr.q.storeOffset {
			rr.seekPastPrefix(rr.famPrefix)
			return rr.endScan
		}
		if rr.storeCount > rr.q.storeOffset {
			*out = append(*out, rr.own(*c))
		}
	}
	if rr.endScan {
		return true
	}
	switch rc {
	case filter.Include, filter.Skip:
		rr.next()
	case filter.IncludeAndNextCol, filter.NextCol:
		rr.seekPastPrefix(rr.it.Key()[:k.ColumnPrefixLen])
	case filter.NextRow, filter.IncludeAndSeekNextRow:
		// HBase scans each family with its own store scanner, so "next
		// row" skips the rest of this family's cells of the row; the
		// other families still run (FamilyFilter relies on it).
		rr.seekPastPrefix(rr.famPrefix)
	case filter.SeekNextUsingHint:
		return rr.seekHint(c)
	default:
		rr.next()
	}
	return false
}

// seekHint follows a filter's seek hint. A hint within the row seeks there;
// a hint past the row ends it and is remembered for the scanner; a hint
// that would not move forward is treated as Skip, so a scan always
// progresses.
func (rr *rowReader) seekHint(c *cell.Cell) bool {
	hint, ok := rr.q.filter.NextCellHint(c)
	if !ok {
		rr.next()
		return false
	}
	typ := uint8(hint.Type)
	if typ == 0 {
		typ = 255 // HBase's Type.Maximum: the first key at that timestamp
	}
	rr.seekBuf = storage.AppendRowPrefix(rr.seekBuf[:0], rr.r.info.TableID, rr.r.storedRow(hint.Row))
	rr.seekBuf = storage.AppendFamilyPrefix(rr.seekBuf[:0], rr.seekBuf, hint.Family)
	if len(hint.Qualifier) > 0 || hint.Timestamp != cell.LatestTimestamp {
		rr.seekBuf = storage.AppendColumnPrefix(rr.seekBuf[:0], rr.seekBuf, hint.Qualifier)
		if hint.Timestamp != cell.LatestTimestamp {
			rr.seekBuf = storage.AppendVersionSuffix(rr.seekBuf, hint.Timestamp, typ)
		}
	}
	cur := rr.it.Key()
	if bytes.Compare(rr.seekBuf, cur) <= 0 {
		rr.next()
		return false
	}
	if !bytes.HasPrefix(rr.seekBuf, rr.rowPrefix) {
		rr.nextHint = append(rr.nextHint[:0], rr.seekBuf...)
		return true
	}
	rr.seekGE(rr.seekBuf)
	return false
}

// own copies a cell's bytes into the reader's arena. Earlier cells keep
// pointing into older arena arrays when it grows: bytes once written are
// never changed, so that is safe.
func (rr *rowReader) own(c cell.Cell) cell.Cell {
	rr.reserve(len(c.Qualifier) + len(c.Value))
	start := len(rr.arena)
	rr.arena = append(rr.arena, c.Qualifier...)
	mid := len(rr.arena)
	rr.arena = append(rr.arena, c.Value...)
	end := len(rr.arena)
	c.Qualifier = rr.arena[start:mid:mid]
	c.Value = rr.arena[mid:end:end]
	if bytes.Equal(c.Family, rr.fam) {
		c.Family = rr.lastFam
	} else {
		c.Family = append([]byte(nil), c.Family...)
	}
	if bytes.Equal(c.Row, rr.row) {
		c.Row = rr.row
	} else {
		c.Row = append([]byte(nil), c.Row...)
	}
	return c
}

// appendOwned appends the cell of k to out, its bytes copied into the
// arena: the unfiltered read path's single copy.
func (rr *rowReader) appendOwned(out []cell.Cell, k *storage.CellKey, value []byte) []cell.Cell {
	if rr.kv != nil {
		rr.kv.add(rr.row, rr.lastFam, k, value)
		return out
	}
	rr.reserve(len(k.Qualifier) + len(value))
	a := rr.arena
	start := len(a)
	mid := start + len(k.Qualifier)
	end := mid + len(value)
	a = a[:end]
	copy(a[start:mid], k.Qualifier)
	copy(a[mid:end], value)
	rr.arena = a
	return append(out, cell.Cell{Row: rr.row, Family: rr.lastFam, Qualifier: a[start:mid:mid],
		Timestamp: k.Timestamp, Type: cell.Type(k.Type), Value: a[mid:end:end]})
}

// checkDecoded (invariants builds) checks a key decoded from its family
// prefix on against a decoding of the whole key.
func (rr *rowReader) checkDecoded(key []byte, k *storage.CellKey) {
	want, err := storage.DecodeCellKeyInRow(key, len(rr.rowPrefix))
	if err != nil || !bytes.Equal(want.Family, k.Family) || !bytes.Equal(want.Qualifier, k.Qualifier) ||
		want.Timestamp != k.Timestamp || want.Type != k.Type || want.RowPrefixLen != k.RowPrefixLen ||
		want.ColumnPrefixLen != k.ColumnPrefixLen {
		panic(fmt.Sprintf("region: key %x decoded as %+v within its family, as %+v (%v) whole", key, *k, want, err))
	}
}

// reserve makes room for n more bytes in the arena. Chunks double from
// 2 KiB (or a point read's hint) to 64 KiB: a point get of a small row
// costs one allocation, a scan a few per batch of rows.
func (rr *rowReader) reserve(n int) {
	if cap(rr.arena)-len(rr.arena) >= n {
		return
	}
	chunk := min(max(2*rr.arenaChunk, 2<<10), 64<<10)
	if rr.arenaChunk == 0 && rr.arenaHint > 0 {
		chunk = rr.arenaHint
	}
	rr.arenaChunk = chunk
	rr.arena = make([]byte, 0, max(n, chunk))
}

// ownBytes copies b into the arena.
func (rr *rowReader) ownBytes(b []byte) []byte {
	rr.reserve(len(b))
	start := len(rr.arena)
	rr.arena = append(rr.arena, b...)
	return rr.arena[start:len(rr.arena):len(rr.arena)]
}
