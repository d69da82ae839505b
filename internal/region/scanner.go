package region

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
	"github.com/weirdb/weir/internal/invariants"
	"github.com/weirdb/weir/internal/storage"
)

// Scanner iterates a Scan's rows over one consistent view of the region,
// HBase's RegionScanner. It is not safe for concurrent use; the region
// server serialises calls per scanner id.
type Scanner struct {
	r    *Region
	scan Scan
	q    query
	it   *storage.Iterator
	rr   *rowReader

	// cursor is where the following row starts: forward, the lowest key
	// not yet read; reversed, the key bound below the last row read. It is
	// the scanner's own buffer: the iterator's bounds must not change under
	// it.
	cursor  []byte
	stopKey []byte // forward: exclusive upper key; reversed: inclusive lower key
	pending []cell.Cell
	rows    int
	done    bool
	closed  bool
	rowBuf  []byte
	// filterEnded: the filter was done after a full batch (FilterEnded).
	filterEnded bool
	// page is the rows of a PageFilter applied as a row limit
	// (filter.PageOnly); 0: none.
	page int
	kv   kvSink // NextKV's encoder (scan_kv.go)
}

// ScanBatch is what one NextBatch call returns, laid out as HBase's
// ScanResponse carries it: the cells of all results in one slice, and per
// result its number of cells and whether it is part of a row. The cells
// own their memory; NextBatch only appends, so a batch may collect the
// results of several calls.
type ScanBatch struct {
	Cells          []cell.Cell
	CellsPerResult []uint32
	Partial        []bool
}

// Len is the number of results in the batch.
func (b *ScanBatch) Len() int { return len(b.CellsPerResult) }

func (b *ScanBatch) add(cells int, partial bool) {
	b.CellsPerResult = append(b.CellsPerResult, uint32(cells))
	b.Partial = append(b.Partial, partial)
}

// Results splits the batch into Results that share its cells.
func (b *ScanBatch) Results() []Result {
	if b.Len() == 0 {
		return nil
	}
	out := make([]Result, b.Len())
	cells := b.Cells
	for i, n := range b.CellsPerResult {
		out[i] = Result{Cells: cells[:n:n], Exists: true, Partial: b.Partial[i]}
		cells = cells[n:]
	}
	return out
}

// scanShape remembers how big a region's scanned rows were, so that a scan
// sizes its result buffers once instead of growing them row by row. It is
// a hint: a wrong one costs memory or a reallocation, never a wrong result.
type scanShape struct {
	cellsPerRow atomic.Uint32
	bytesPerRow atomic.Uint32 // row key, qualifiers and values
	// kvBytesPerRow is a row's size as KeyValues (NextKV).
	kvBytesPerRow atomic.Uint32
}

// Buffers sized from the hint are capped: a bigger result grows them.
const (
	maxReservedRows       = 1024
	unlimitedReservedRows = 128 // for a scan without a row limit
)

// NewScanner opens a scanner. The caller must Close it.
func (r *Region) NewScanner(s Scan) (*Scanner, error) {
	if err := r.enter(); err != nil {
		return nil, err
	}
	defer r.gate.RUnlock()
	return r.newScanner(s)
}

func (r *Region) newScanner(s Scan) (*Scanner, error) {
	if s.Batch < 0 || s.Limit < 0 {
		return nil, invalidf("scan batch %d and limit %d may not be negative", s.Batch, s.Limit)
	}
	if s.Batch > 0 && s.Filter != nil && s.Filter.HasFilterRow() {
		return nil, invalidf("scan batch cannot be combined with a filter that filters whole rows")
	}
	// The cache generation before the schema: see Region.cacheEpoch.
	epoch := r.cacheEpoch.Load()
	f, page := s.Filter, 0
	if n, ok := filter.PageOnly(f); ok {
		// A PageFilter alone counts the rows it returns and ends the scan
		// after its page: a row limit, which keeps the scan on the paths
		// without a filter (YCSB 0.17's hbase2 binding sends one with
		// every scan).
		f, page = nil, int(min(n, math.MaxInt32))
	}
	q, err := r.newQuery(s.Columns, s.TimeRange, s.MaxVersions, f, s.Raw, s.StoreLimit, s.StoreOffset)
	if err != nil {
		return nil, err
	}
	sc := &Scanner{r: r, scan: s, q: q, page: page}
	tid := r.info.TableID
	var cursor []byte
	if !s.Reversed {
		cursor = r.lower
		if len(s.StartRow) > 0 {
			start := storage.AppendRowPrefix(nil, tid, r.storedRow(s.StartRow))
			if s.ExcludeStartRow {
				start = storage.RowUpperBound(nil, start)
			}
			// Exclude first, clamp second: excluding a start row below the
			// region must not skip the region's first row.
			cursor = maxKey(cursor, start)
		}
		sc.stopKey = r.upper
		if len(s.StopRow) > 0 {
			stop := storage.AppendRowPrefix(nil, tid, r.storedRow(s.StopRow))
			if s.IncludeStopRow {
				stop = storage.RowUpperBound(nil, stop)
			}
			sc.stopKey = minKey(sc.stopKey, stop)
		}
	} else {
		cursor = r.upper
		if len(s.StartRow) > 0 {
			start := storage.AppendRowPrefix(nil, tid, r.storedRow(s.StartRow))
			if !s.ExcludeStartRow {
				start = storage.RowUpperBound(nil, start)
			}
			cursor = minKey(cursor, start)
		}
		sc.stopKey = r.lower
		if len(s.StopRow) > 0 {
			stop := storage.AppendRowPrefix(nil, tid, r.storedRow(s.StopRow))
			if !s.IncludeStopRow {
				stop = storage.RowUpperBound(nil, stop)
			}
			sc.stopKey = maxKey(sc.stopKey, stop)
		}
	}
	lo, hi := cursor, sc.stopKey
	if s.Reversed {
		lo, hi = sc.stopKey, cursor
	}
	sc.cursor = append(make([]byte, 0, len(cursor)+16), cursor...)
	if bytes.Compare(lo, hi) >= 0 {
		sc.done = true
		return sc, nil
	}
	it, err := r.engine.NewIter(storage.IterOptions{Lower: lo, Upper: hi})
	if err != nil {
		return nil, err
	}
	sc.it = it
	sc.rr = newRowReader(r, &sc.q, it)
	sc.rr.hot = r.hotRowsFor(&sc.q, epoch)
	return sc, nil
}

func maxKey(a, b []byte) []byte {
	if bytes.Compare(a, b) >= 0 {
		return a
	}
	return b
}

func minKey(a, b []byte) []byte {
	if bytes.Compare(a, b) <= 0 {
		return a
	}
	return b
}

// Next returns up to maxRows results (rows, or row parts when Batch is
// set), stopping early once maxBytes of cells were gathered (0 = no byte
// limit). more is false once the scan is exhausted.
func (s *Scanner) Next(ctx context.Context, maxRows int, maxBytes int64) (results []Result, more bool, err error) {
	var b ScanBatch
	more, err = s.NextBatch(ctx, maxRows, maxBytes, &b)
	return b.Results(), more, err
}

// NextBatch is Next appending to b: the region server's path, which sends
// the cells of all results as one cellblock.
func (s *Scanner) NextBatch(ctx context.Context, maxRows int, maxBytes int64, b *ScanBatch) (more bool, err error) {
	if err := s.enter(); err != nil {
		return false, err
	}
	defer s.r.gate.RUnlock()
	n := b.Len()
	more, err = s.nextBatch(ctx, maxRows, maxBytes, b)
	s.r.requests.reads.Add(uint64(b.Len() - n))
	return more, err
}

// enter enters the region's gate for a call on an open scanner; the
// caller releases it (s.r.gate.RUnlock).
func (s *Scanner) enter() error {
	if s.closed {
		return ErrScannerClosed
	}
	return s.r.enter()
}

// next is Next inside the region's gate.
func (s *Scanner) next(ctx context.Context, maxRows int, maxBytes int64) ([]Result, bool, error) {
	var b ScanBatch
	more, err := s.nextBatch(ctx, maxRows, maxBytes, &b)
	return b.Results(), more, err
}

func (s *Scanner) nextBatch(ctx context.Context, maxRows int, maxBytes int64, b *ScanBatch) (bool, error) {
	if maxRows <= 0 {
		maxRows = 1
	}
	if !s.done {
		s.reserve(maxRows, maxBytes, b)
	}
	var bytesOut, arenaBytes int64
	n, rowsRead, cellsRead := 0, 0, 0
	pageFull := false
	defer func() { s.learn(rowsRead, cellsRead, arenaBytes) }()
	y := YielderFrom(ctx) // yield.go
	for n < maxRows && (maxBytes <= 0 || bytesOut < maxBytes) {
		if len(s.pending) > 0 {
			s.takeBatch(b)
			n++
			continue
		}
		if s.done {
			break
		}
		if n%64 == 0 {
			if err := ctx.Err(); err != nil {
				return true, err
			}
		}
		if y != nil {
			y.Yield(ctx)
		}
		start := len(b.Cells)
		var err error
		b.Cells, err = s.nextRow(b.Cells)
		if err != nil {
			b.Cells = b.Cells[:start]
			return false, err
		}
		row := b.Cells[start:]
		if len(row) == 0 {
			continue
		}
		pageFull = s.countRow()
		rowsRead++
		cellsRead += len(row)
		arenaBytes += int64(len(row[0].Row))
		for i := range row {
			bytesOut += int64(row[i].Size())
			arenaBytes += int64(len(row[i].Qualifier) + len(row[i].Value))
		}
		if s.scan.Batch > 0 && len(row) > s.scan.Batch {
			// The rest of the row waits for the following results, maybe
			// the following call: it needs cells of its own, as b's may be
			// overwritten by then.
			s.pending = slices.Clone(row)
			b.Cells = b.Cells[:start]
			s.takeBatch(b)
			n++
			continue
		}
		b.add(len(row), false)
		n++
	}
	s.endPage(pageFull, n, maxRows, bytesOut, maxBytes)
	if !s.done && len(s.pending) == 0 && n > 0 && s.q.filter != nil {
		// A filter done after the last row (a PageFilter whose page is
		// full) would end the scan at the next call's first row, which
		// would return nothing. End it now and spare the client that call.
		// Reset is what the next row would start with.
		s.q.filter.Reset()
		if s.q.filter.FilterAllRemaining() {
			s.done, s.filterEnded = true, true
		}
	}
	return !s.done || len(s.pending) > 0, nil
}

// countRow counts a row returned, ending the scan at its limit or when
// its page is full (Scanner.page); it reports the latter.
func (s *Scanner) countRow() (pageFull bool) {
	s.rows++
	switch {
	case s.scan.Limit > 0 && s.rows >= s.scan.Limit:
		s.done = true
	case s.page > 0 && s.rows >= s.page:
		s.done = true
		return true
	}
	return false
}

// endPage reports a page that the call's last row filled as the
// PageFilter would: done right after a full batch (FilterEnded). A page
// filled before the batch was full ends the region's scan only, as the
// filter found done at the next row would.
func (s *Scanner) endPage(pageFull bool, n, maxRows int, bytesOut, maxBytes int64) {
	if pageFull && (n >= maxRows || maxBytes > 0 && bytesOut >= maxBytes) {
		s.filterEnded = true
	}
}

// FilterEnded reports whether the scan's filter ended it right after the
// last row returned (FilterAllRemaining), rather than the region's end or
// the limit: HBase would answer the following call with no rows and
// more_results=false, so the region server may say more_results=false now.
func (s *Scanner) FilterEnded() bool { return s.filterEnded }

// reserve sizes b and the reader's arena for the rows this call will
// likely read, from the region's scanShape.
func (s *Scanner) reserve(maxRows int, maxBytes int64, b *ScanBatch) {
	cpr := int(s.r.scanShape.cellsPerRow.Load())
	bpr := int64(s.r.scanShape.bytesPerRow.Load())
	if cpr == 0 || bpr == 0 {
		return // nothing known yet: grow as rows come
	}
	rows := s.reservedRows(maxRows, maxBytes, bpr)
	b.Cells = slices.Grow(b.Cells, rows*cpr)
	b.CellsPerResult = slices.Grow(b.CellsPerResult, rows)
	b.Partial = slices.Grow(b.Partial, rows)
	if need := int(int64(rows) * bpr); cap(s.rr.arena)-len(s.rr.arena) < need {
		s.rr.arena = make([]byte, 0, need)
		s.rr.arenaChunk = need
	}
}

// reservedRows is how many rows of bpr bytes a call is likely to read.
func (s *Scanner) reservedRows(maxRows int, maxBytes int64, bpr int64) int {
	rows := min(maxRows, maxReservedRows)
	if s.scan.Limit > 0 {
		rows = min(rows, max(s.scan.Limit-s.rows, 1))
	} else {
		// Without a limit the range may hold a few rows or thousands
		// (HBase's client asks for up to 2^31-1 per call by default):
		// reserve for a short scan and let a long one grow.
		rows = min(rows, unlimitedReservedRows)
	}
	if maxBytes > 0 {
		// Cell.Size counts each cell's row and family too, so this
		// overestimates the rows a byte limit allows: fine for a hint.
		rows = int(min(int64(rows), maxBytes/bpr+1))
	}
	return rows
}

// learn records the shape of the rows a call read for the next scans.
func (s *Scanner) learn(rows, cells int, arenaBytes int64) {
	if rows == 0 {
		return
	}
	// Round up so that a hint covers the rows it came from.
	cpr := uint32((cells + rows - 1) / rows)
	bpr := uint32(min((arenaBytes+int64(rows)-1)/int64(rows), 1<<30))
	sh := &s.r.scanShape
	if sh.cellsPerRow.Load() != cpr {
		sh.cellsPerRow.Store(cpr)
	}
	if sh.bytesPerRow.Load() != bpr {
		sh.bytesPerRow.Store(bpr)
	}
}

// takeBatch moves the next Batch cells of the pending row into b.
func (s *Scanner) takeBatch(b *ScanBatch) {
	n := min(s.scan.Batch, len(s.pending))
	b.Cells = append(b.Cells, s.pending[:n]...)
	b.add(n, n < len(s.pending))
	s.pending = s.pending[n:]
}

// nextRow appends the next row in scan order to out; nothing appended with
// s.done false means the row was filtered out.
func (s *Scanner) nextRow(out []cell.Cell) ([]cell.Cell, error) {
	it := s.rr.it
	var ok bool
	switch {
	case s.scan.Reversed:
		ok = it.SeekLT(s.cursor)
	case it.Valid() && (bytes.Compare(it.RowPrefix(), s.cursor) >= 0 || bytes.Compare(it.Key(), s.cursor) >= 0):
		// Reading the last row left the iterator on the first key after
		// it (or after the filter's hint), and no key lies between the
		// cursor and that one: a seek would land where it is. (A key is
		// at least its row's prefix, which is enough to know unless the
		// cursor is within the row.)
		ok = true
	default:
		ok = it.SeekGE(s.cursor)
	}
	if !ok {
		s.done = true
		return out, it.Error()
	}
	prefix := it.RowPrefix()
	if invariants.Enabled && len(s.rowBuf) > 0 {
		if c := bytes.Compare(prefix, s.rowBuf); (c <= 0) != s.scan.Reversed || c == 0 {
			panic(fmt.Sprintf("region: scanner rows out of order: %x after %x (reversed=%v)", prefix, s.rowBuf, s.scan.Reversed))
		}
	}
	s.rowBuf = append(s.rowBuf[:0], prefix...)
	rowPrefix := s.rowBuf
	if s.scan.Reversed {
		s.cursor = append(s.cursor[:0], rowPrefix...)
		// SeekLT found the row's last key; the row is read forwards.
		if !it.SeekGE(rowPrefix) || !bytes.HasPrefix(it.Key(), rowPrefix) {
			return out, it.Error()
		}
	} else {
		s.cursor = storage.RowUpperBound(s.cursor[:0], rowPrefix)
	}
	out, err := s.rr.readRowAt(rowPrefix, out)
	if err != nil {
		return out, err
	}
	if s.rr.endScan {
		s.done = true
	}
	if h := s.rr.nextHint; h != nil && !s.scan.Reversed && bytes.Compare(h, s.cursor) > 0 {
		s.cursor = append(s.cursor[:0], h...)
	}
	return out, nil
}

// Close releases the scanner's view of the region. Idempotent.
func (s *Scanner) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.it != nil {
		return s.it.Close()
	}
	return nil
}
