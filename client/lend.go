package client

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
)

// ErrStopScan, returned by a ScanFunc callback, ends the scan early;
// ScanFunc then returns nil.
var ErrStopScan = errors.New("client: stop scan")

// GetFunc reads one row as Get does and calls fn with its Result, which is
// lent: the Result, its cells and their bytes are valid only until fn
// returns (copy what you keep). fn's error is returned as is. Lending lets
// the client reuse the response's buffers (the frame the cells point into
// and the cell slice) for the next call instead of allocating and zeroing
// new ones, which is most of a small read's client-side memory work; use
// it where the caller looks at a result once, as a benchmark driver does.
func (t *Table) GetFunc(ctx context.Context, g *Get, fn func(*Result) error) error {
	lg := lentGets.Get().(*lentGet)
	res, err := t.get(ctx, g, lg)
	if err == nil {
		err = fn(res)
	}
	lg.release()
	lentGets.Put(lg)
	return err
}

// ScanFunc runs s as Scan does and calls fn with each Result in order.
// The Results are lent as GetFunc's are: valid only until fn returns,
// their buffers reused for the scan's next batch. fn returning
// ErrStopScan ends the scan with a nil error; any other error ends it and
// is returned as is.
func (t *Table) ScanFunc(ctx context.Context, s *Scan, fn func(*Result) error) error {
	sc := t.Scan(ctx, s)
	sc.lend = lentScans.Get().(*lentScan)
	defer func() {
		_ = sc.Close() // releases the last batch's frame
		lentScans.Put(sc.lend)
	}()
	for {
		r, err := sc.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			if errors.Is(err, ErrStopScan) {
				return nil
			}
			return err
		}
	}
}

// lentGet is what a GetFunc call lends: the response frame and the cell
// slice, kept for the next call from the pool.
type lentGet struct {
	cells []cell.Cell
	frame hbaserpc.Frame
}

// Pools of lending state: a driver's calls are mostly short (a Get, a
// one-batch scan), so the buffers are kept from call to call.
var (
	lentGets  = sync.Pool{New: func() any { return new(lentGet) }}
	lentScans = sync.Pool{New: func() any { return new(lentScan) }}
)

// keep takes a lent response's frame and cells (whose array is kept for
// the next call if it is the larger).
func (lg *lentGet) keep(cells []cell.Cell, frame hbaserpc.Frame) {
	lg.frame = frame
	if cap(cells) > cap(lg.cells) {
		lg.cells = cells[:0]
	}
}

// release gives the frame back. The kept cells still point into it; they
// are overwritten by the next call's (clearing them would cost what
// lending saves), and pin at most one frame.
func (lg *lentGet) release() {
	lg.frame.Release()
	lg.frame = hbaserpc.Frame{}
}

// lentScan is a lending Scanner's reused state: the current batch's
// frame and cells, its Results, and a copy of the last row (which must
// outlive the batch: a scanner reopened after an error resumes after it).
type lentScan struct {
	lentGet
	results []*Result
	slab    []Result
	lastRow []byte
	// resp is the batch's ScanResponse, read only until the next fetch:
	// its per-row arrays (cells_per_result, partial flags) are reused.
	resp hbasepb.ScanResponse
}

// response empties resp for the next call, keeping its per-row arrays,
// which the response decoder appends to.
func (ls *lentScan) response() *hbasepb.ScanResponse {
	cpr, partial := ls.resp.CellsPerResult[:0], ls.resp.PartialFlagPerResult[:0]
	ls.resp.Reset()
	ls.resp.CellsPerResult, ls.resp.PartialFlagPerResult = cpr, partial
	return &ls.resp
}
