package region

import (
	"bytes"
	"context"
	"fmt"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
	"github.com/weirdb/weir/internal/invariants"
	"github.com/weirdb/weir/internal/storage"
)

// Get reads one row. An absent row gives an empty Result, not an error.
func (r *Region) Get(ctx context.Context, g Get) (Result, error) {
	if err := r.enter(); err != nil {
		return Result{}, err
	}
	defer r.gate.RUnlock()
	if err := r.checkRow(g.Row); err != nil {
		return Result{}, err
	}
	r.requests.reads.Add(1)
	if g.ClosestRowBefore {
		return r.closestRowBefore(ctx, g)
	}
	res, err := r.getLocked(ctx, g)
	if err != nil {
		return Result{}, err
	}
	if g.ExistenceOnly {
		res.Cells = nil
	}
	return res, nil
}

// readFilteredRow positions on the row of rowPrefix and reads it with the
// row-level filter steps. An empty result means the row is absent or
// filtered out.
func (rr *rowReader) readFilteredRow(rowPrefix []byte) ([]cell.Cell, error) {
	if !rr.seekRow(rowPrefix) || !bytes.HasPrefix(rr.it.Key(), rowPrefix) {
		return nil, rr.it.Error()
	}
	k, err := storage.DecodeCellKey(rr.it.Key())
	if err != nil {
		return nil, err
	}
	f := rr.q.filter
	if f != nil {
		f.Reset()
		if f.FilterAllRemaining() {
			rr.endScan = true
			return nil, nil
		}
		first := cell.Cell{Row: rr.r.userRow(k.Row), Family: k.Family, Qualifier: k.Qualifier, Timestamp: k.Timestamp, Type: cell.Type(k.Type)}
		if f.FilterRowKey(&first) {
			if f.FilterAllRemaining() {
				rr.endScan = true
			}
			return nil, nil
		}
	}
	cells, err := rr.read(rowPrefix, rr.r.userRow(k.Row), make([]cell.Cell, 0, 16))
	if err != nil {
		return nil, err
	}
	return applyRowFilter(f, cells), nil
}

// applyRowFilter runs the row-level filter steps on a complete row.
func applyRowFilter(f filter.Filter, cells []cell.Cell) []cell.Cell {
	if f == nil {
		return cells
	}
	if f.HasFilterRow() {
		cells = f.FilterRowCells(cells)
	}
	if len(cells) > 0 && f.FilterRow() {
		return nil
	}
	return cells
}

// closestRowBefore returns the last row <= g.Row with matching cells.
func (r *Region) closestRowBefore(ctx context.Context, g Get) (Result, error) {
	s, err := r.newScanner(Scan{StartRow: g.Row, Reversed: true, Columns: g.Columns, TimeRange: g.TimeRange,
		MaxVersions: g.MaxVersions, Filter: g.Filter, Limit: 1, StoreLimit: g.StoreLimit, StoreOffset: g.StoreOffset})
	if err != nil {
		return Result{}, err
	}
	defer s.Close()
	res, _, err := s.next(ctx, 1, 0)
	if err != nil || len(res) == 0 {
		return Result{}, err
	}
	res[0].Exists = true
	return res[0], nil
}

// Scanner iterates a Scan's rows over one consistent view of the region,
// HBase's RegionScanner. It is not safe for concurrent use; the region
// server serialises calls per scanner id.
type Scanner struct {
	r    *Region
	scan Scan
	q    query
	it   *storage.Iterator
	rr   *rowReader

	// next is where the following row starts: forward, the lowest key not
	// yet read; reversed, the key bound below the last row read.
	cursor  []byte
	stopKey []byte // forward: exclusive upper key; reversed: inclusive lower key
	pending []cell.Cell
	rows    int
	done    bool
	closed  bool
	rowBuf  []byte
}

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
	q, err := r.newQuery(s.Columns, s.TimeRange, s.MaxVersions, s.Filter, s.Raw, s.StoreLimit, s.StoreOffset)
	if err != nil {
		return nil, err
	}
	sc := &Scanner{r: r, scan: s, q: q}
	tid := r.info.TableID
	if !s.Reversed {
		sc.cursor = r.lower
		if len(s.StartRow) > 0 {
			start := storage.AppendRowPrefix(nil, tid, r.storedRow(s.StartRow))
			if s.ExcludeStartRow {
				start = storage.RowUpperBound(nil, start)
			}
			// Exclude first, clamp second: excluding a start row below the
			// region must not skip the region's first row.
			sc.cursor = maxKey(sc.cursor, start)
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
		sc.cursor = r.upper
		if len(s.StartRow) > 0 {
			start := storage.AppendRowPrefix(nil, tid, r.storedRow(s.StartRow))
			if !s.ExcludeStartRow {
				start = storage.RowUpperBound(nil, start)
			}
			sc.cursor = minKey(sc.cursor, start)
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
	lo, hi := sc.cursor, sc.stopKey
	if s.Reversed {
		lo, hi = sc.stopKey, sc.cursor
	}
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
	if s.closed {
		return nil, false, ErrScannerClosed
	}
	if err := s.r.enter(); err != nil {
		return nil, false, err
	}
	defer s.r.gate.RUnlock()
	results, more, err = s.next(ctx, maxRows, maxBytes)
	s.r.requests.reads.Add(uint64(len(results)))
	return results, more, err
}

func (s *Scanner) next(ctx context.Context, maxRows int, maxBytes int64) ([]Result, bool, error) {
	if maxRows <= 0 {
		maxRows = 1
	}
	var out []Result
	var bytesOut int64
	y := YielderFrom(ctx) // yield.go
	for len(out) < maxRows && (maxBytes <= 0 || bytesOut < maxBytes) {
		if len(s.pending) > 0 {
			out = append(out, s.takeBatch())
			continue
		}
		if s.done {
			break
		}
		if len(out)%64 == 0 {
			if err := ctx.Err(); err != nil {
				return out, true, err
			}
		}
		if y != nil {
			y.Yield(ctx)
		}
		cells, err := s.nextRow()
		if err != nil {
			return out, false, err
		}
		if len(cells) == 0 {
			continue
		}
		s.rows++
		if s.scan.Limit > 0 && s.rows >= s.scan.Limit {
			s.done = true
		}
		for i := range cells {
			bytesOut += int64(cells[i].Size())
		}
		if s.scan.Batch > 0 && len(cells) > s.scan.Batch {
			s.pending = cells
			out = append(out, s.takeBatch())
			continue
		}
		out = append(out, Result{Cells: cells, Exists: true})
	}
	return out, !s.done || len(s.pending) > 0, nil
}

func (s *Scanner) takeBatch() Result {
	n := min(s.scan.Batch, len(s.pending))
	res := Result{Cells: s.pending[:n:n], Exists: true, Partial: n < len(s.pending)}
	s.pending = s.pending[n:]
	return res
}

// nextRow reads the next row in scan order; nil cells with s.done false
// means the row was filtered out.
func (s *Scanner) nextRow() ([]cell.Cell, error) {
	it := s.it
	var ok bool
	if !s.scan.Reversed {
		ok = it.SeekGE(s.cursor)
	} else {
		ok = it.SeekLT(s.cursor)
	}
	if !ok {
		s.done = true
		return nil, it.Error()
	}
	key := it.Key()
	n := storage.RowPrefixLen(key)
	if invariants.Enabled && len(s.rowBuf) > 0 {
		if c := bytes.Compare(key[:n], s.rowBuf); (c <= 0) != s.scan.Reversed || c == 0 {
			panic(fmt.Sprintf("region: scanner rows out of order: %x after %x (reversed=%v)", key[:n], s.rowBuf, s.scan.Reversed))
		}
	}
	s.rowBuf = append(s.rowBuf[:0], key[:n]...)
	rowPrefix := s.rowBuf
	if s.scan.Reversed {
		s.cursor = append(s.cursor[:0:0], rowPrefix...)
	} else {
		s.cursor = storage.RowUpperBound(s.cursor[:0:0], rowPrefix)
	}
	cells, err := s.rr.readFilteredRow(rowPrefix)
	if err != nil {
		return nil, err
	}
	if s.rr.endScan {
		s.done = true
	}
	if h := s.rr.nextHint; h != nil && !s.scan.Reversed && bytes.Compare(h, s.cursor) > 0 {
		s.cursor = append(s.cursor[:0:0], h...)
	}
	return cells, nil
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
