package region

import (
	"bytes"
	"context"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
	"github.com/weirdb/weir/internal/storage"
)

// Get reads one row. An absent row gives an empty Result, not an error.
func (r *Region) Get(ctx context.Context, g Get) (Result, error) { return r.get(ctx, g, nil) }

// get is Get, with the result in buf when it is not nil (GetInto).
func (r *Region) get(ctx context.Context, g Get, buf *GetBuffer) (Result, error) {
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
	res, err := r.getLocked(ctx, g, buf)
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
	out := rr.outBuf
	if out == nil {
		n := 16
		if rr.cellsHint > 0 {
			n = rr.cellsHint
		}
		out = make([]cell.Cell, 0, n)
	}
	return rr.readRowAt(rowPrefix, out)
}

// noteGarbage hands the garbage the last row read met to the region: one
// atomic add per row that had any.
func (rr *rowReader) noteGarbage() {
	if rr.garbage > 0 {
		rr.r.gc.readGarbage.Add(rr.garbage)
		rr.garbage = 0
	}
}

// readRowAt reads the row of rowPrefix, on whose first key the iterator
// sits, with the row-level filter steps, and appends its cells to out.
// Nothing appended means the row was filtered out.
func (rr *rowReader) readRowAt(rowPrefix []byte, out []cell.Cell) ([]cell.Cell, error) {
	f := rr.q.filter
	// A read without a filter that knows its row (a point read's, or the
	// one an image decoded) decodes no key for it here (read decodes each
	// key after the row prefix).
	row := rr.pointRow
	if row == nil && rr.it.fromImage {
		row = rr.it.imageRow()
	}
	if f == nil && row != nil {
		out, err := rr.read(rowPrefix, row, out)
		rr.noteGarbage()
		return out, err
	}
	k, err := storage.DecodeCellKey(rr.it.Key())
	if err != nil {
		return out, err
	}
	if f != nil {
		f.Reset()
		if f.FilterAllRemaining() {
			rr.endScan = true
			return out, nil
		}
		first := cell.Cell{Row: rr.r.userRow(k.Row), Family: k.Family, Qualifier: k.Qualifier, Timestamp: k.Timestamp, Type: cell.Type(k.Type)}
		if f.FilterRowKey(&first) {
			if f.FilterAllRemaining() {
				rr.endScan = true
			}
			return out, nil
		}
	}
	start := len(out)
	out, err = rr.read(rowPrefix, rr.r.userRow(k.Row), out)
	rr.noteGarbage()
	if err != nil {
		return out[:start], err
	}
	if f == nil {
		return out, nil
	}
	// The filtered row is a subsequence of the cells read, or new cells:
	// either way it goes back in their place.
	return append(out[:start], applyRowFilter(f, out[start:])...), nil
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
