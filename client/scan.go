package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
	"github.com/weirdb/weir/internal/hbasepb"
)

// Scan describes a range scan. The zero range is the whole table.
type Scan struct {
	startRow, stopRow []byte
	excludeStart      bool
	includeStop       bool
	columns           []column
	maxVersions       int
	timeRange         cell.TimeRange
	filter            filter.Filter
	caching           int
	batch             int
	limit             int
	reversed          bool
	raw               bool
	maxResultSize     int64
}

// NewScan returns a scan of the whole table, newest versions, default
// caching.
func NewScan() *Scan { return &Scan{timeRange: cell.AllTime} }

// WithStartRow starts the scan at row (for a reversed scan: the highest
// row), including it or not.
func (s *Scan) WithStartRow(row []byte, inclusive bool) *Scan {
	s.startRow, s.excludeStart = row, !inclusive
	return s
}

// WithStopRow ends the scan at row (for a reversed scan: the lowest row),
// including it or not. Empty is the end of the table.
func (s *Scan) WithStopRow(row []byte, inclusive bool) *Scan {
	s.stopRow, s.includeStop = row, inclusive
	return s
}

// AddFamily reads every column of family.
func (s *Scan) AddFamily(family []byte) *Scan {
	s.columns = addColumn(s.columns, family, nil)
	return s
}

// AddColumn reads family:qualifier.
func (s *Scan) AddColumn(family, qualifier []byte) *Scan {
	s.columns = addColumn(s.columns, family, qualifier)
	return s
}

// SetMaxVersions reads up to n versions per column (default 1).
func (s *Scan) SetMaxVersions(n int) *Scan { s.maxVersions = n; return s }

// SetTimeRange reads versions with min <= timestamp < max.
func (s *Scan) SetTimeRange(minTS, maxTS int64) *Scan {
	s.timeRange = cell.TimeRange{Min: minTS, Max: maxTS}
	return s
}

// SetFilter applies f on the server (per region, as in HBase).
func (s *Scan) SetFilter(f filter.Filter) *Scan { s.filter = f; return s }

// SetCaching sets how many rows each RPC fetches; 0 leaves it to the
// server.
func (s *Scan) SetCaching(n int) *Scan { s.caching = n; return s }

// SetBatch splits rows into Results of at most n cells (Partial set on
// all but a row's last).
func (s *Scan) SetBatch(n int) *Scan { s.batch = n; return s }

// SetLimit stops the scan after n rows (0: no limit), across regions.
func (s *Scan) SetLimit(n int) *Scan { s.limit = n; return s }

// SetReversed scans from high rows to low.
func (s *Scan) SetReversed(r bool) *Scan { s.reversed = r; return s }

// SetRaw returns delete markers and deleted cells too.
func (s *Scan) SetRaw(r bool) *Scan { s.raw = r; return s }

// SetMaxResultSize bounds the bytes of one RPC's results; 0 leaves it to
// the server.
func (s *Scan) SetMaxResultSize(n int64) *Scan { s.maxResultSize = n; return s }

// pb encodes the scan for one region, starting at start.
func (s *Scan) pb(start []byte, startInclusive bool) (*hbasepb.Scan, error) {
	pb := &hbasepb.Scan{
		Column: columnsPB(s.columns), StartRow: start, StopRow: s.stopRow,
		TimeRange: timeRangePB(s.timeRange),
	}
	if !startInclusive {
		pb.IncludeStartRow = proto.Bool(false)
	}
	if s.includeStop {
		pb.IncludeStopRow = proto.Bool(true)
	}
	if s.reversed {
		pb.Reversed = proto.Bool(true)
	}
	if s.maxVersions > 0 {
		pb.MaxVersions = proto.Uint32(uint32(s.maxVersions))
	}
	if s.batch > 0 {
		pb.BatchSize = proto.Uint32(uint32(s.batch))
	}
	if s.caching > 0 {
		pb.Caching = proto.Uint32(uint32(s.caching))
	}
	if s.maxResultSize > 0 {
		pb.MaxResultSize = proto.Uint64(uint64(s.maxResultSize))
	}
	if s.raw {
		pb.Attribute = append(pb.Attribute, &hbasepb.NameBytesPair{Name: proto.String(attrRaw), Value: []byte{0xff}})
	}
	var err error
	pb.Filter, err = filterPB(s.filter)
	return pb, err
}

// Scanner iterates over a scan's results, region by region. It is not
// safe for concurrent use. Close it when done early.
type Scanner struct {
	t   *Table
	s   Scan
	ctx context.Context

	loc       *regionLoc // region of the open (or last) scanner
	scannerID *uint64    // set while a server-side scanner is open
	seq       uint64     // next_call_seq of the next call

	// Where the next region scanner opens.
	next          []byte
	nextInclusive bool

	buf     []*Result
	rows    int    // complete rows returned so far
	lastRow []byte // last complete row returned
	done    bool
	err     error

	// lend, set by ScanFunc, makes the scanner reuse each batch's
	// buffers for the next: its Results are valid until the next fetch.
	lend *lentScan
}

// Scan starts a scan. No RPC is made until the first Next; ctx bounds the
// whole iteration (each fetch is also bounded by the operation timeout).
func (t *Table) Scan(ctx context.Context, s *Scan) *Scanner {
	sc := &Scanner{t: t, s: *s, ctx: ctx, next: s.startRow, nextInclusive: !s.excludeStart}
	return sc
}

// Next returns the next result, or io.EOF after the last.
func (sc *Scanner) Next() (*Result, error) {
	for len(sc.buf) == 0 {
		if sc.err != nil {
			return nil, sc.err
		}
		if sc.done {
			return nil, io.EOF
		}
		if err := sc.fetch(); err != nil {
			sc.err = err
			sc.closeServer()
			return nil, err
		}
	}
	r := sc.buf[0]
	sc.buf[0] = nil
	sc.buf = sc.buf[1:]
	return r, nil
}

// Close ends the scan, closing its server-side scanner if one is open.
func (sc *Scanner) Close() error {
	sc.done = true
	sc.buf = nil
	sc.closeServer()
	if sc.lend != nil {
		sc.lend.release()
	}
	return nil
}

func (sc *Scanner) closeServer() {
	if sc.scannerID == nil || sc.loc == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(sc.ctx), 5*time.Second)
	defer cancel()
	_ = sc.t.c.call(ctx, sc.loc.server, svcClient, "Scan",
		&hbasepb.ScanRequest{ScannerId: sc.scannerID, CloseScanner: proto.Bool(true)}, nil, nil, nil)
	sc.scannerID = nil
}

// fetch makes one scan RPC (opening a region scanner if none is open),
// retrying as needed, and fills buf.
func (sc *Scanner) fetch() error {
	if sc.lend != nil {
		// The previous batch's Results have all been handed out and
		// their callbacks have returned.
		sc.lend.release()
	}
	var resp *hbasepb.ScanResponse
	var cells []cell.Cell
	// Each fetch is one operation: its first attempt carries the deadline
	// as a value (no timer), as a Get's does (runOp).
	err := sc.t.c.runOp(sc.ctx, "scan", func(ctx context.Context) error {
		var err error
		resp, cells, err = sc.call(ctx)
		if err != nil {
			sc.t.c.relocateAfter(err, sc.loc)
			if classify(err) != retryNo && sc.scannerID != nil {
				// Reopen after the last complete row.
				sc.scannerID = nil
				if sc.lastRow != nil {
					sc.next, sc.nextInclusive = sc.lastRow, false
				}
			}
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("client: scan %s: %w", sc.t.name, err)
	}
	results, err := scanResults(resp, cells, sc.lend)
	if err != nil {
		return err
	}
	if len(sc.buf) == 0 {
		sc.buf = results[:0] // the results' own array: no copy
	}
	for _, r := range results {
		if sc.s.limit > 0 && sc.rows >= sc.s.limit {
			break
		}
		sc.buf = append(sc.buf, r)
		if !r.Partial {
			sc.rows++
			sc.lastRow = r.Row
			if sc.lend != nil { // r.Row lives in the lent frame
				sc.lend.lastRow = append(sc.lend.lastRow[:0], r.Row...)
				sc.lastRow = sc.lend.lastRow
			}
		}
	}
	inRegion := resp.MoreResultsInRegion == nil || resp.GetMoreResultsInRegion()
	if inRegion && resp.ScannerId != nil {
		sc.scannerID = resp.ScannerId
	} else {
		sc.scannerID = nil // the server closed it
	}
	switch {
	case sc.s.limit > 0 && sc.rows >= sc.s.limit:
		sc.done = true
		sc.closeServer()
	case resp.MoreResults != nil && !resp.GetMoreResults():
		sc.done = true
		sc.closeServer()
	case !inRegion:
		sc.moveOn()
	}
	return nil
}

// moveOn sets up the scan of the region after (reversed: before) the
// current one, or ends the scan when that region is past the stop row.
func (sc *Scanner) moveOn() {
	l := sc.loc
	sc.seq = 0
	if !sc.s.reversed {
		if len(l.end) == 0 {
			sc.done = true
			return
		}
		if len(sc.s.stopRow) > 0 {
			if c := bytes.Compare(l.end, sc.s.stopRow); c > 0 || (c == 0 && !sc.s.includeStop) {
				sc.done = true
				return
			}
		}
		sc.next, sc.nextInclusive = l.end, true
		return
	}
	if len(l.start) == 0 {
		sc.done = true
		return
	}
	if len(sc.s.stopRow) > 0 && bytes.Compare(l.start, sc.s.stopRow) <= 0 {
		sc.done = true
		return
	}
	sc.next, sc.nextInclusive = l.start, false
}

// call makes one Scan RPC: a next on the open scanner, or an open on the
// region holding sc.next.
func (sc *Scanner) call(ctx context.Context) (*hbasepb.ScanResponse, []cell.Cell, error) {
	req := &hbasepb.ScanRequest{ClientHandlesPartials: proto.Bool(true), ClientHandlesHeartbeats: proto.Bool(true)}
	if sc.s.caching > 0 {
		req.NumberOfRows = proto.Uint32(uint32(sc.s.caching))
	} else {
		req.NumberOfRows = proto.Uint32(100)
	}
	if sc.s.limit > 0 {
		req.LimitOfRows = proto.Uint32(uint32(sc.s.limit - sc.rows))
	}
	if sc.scannerID != nil {
		req.ScannerId = sc.scannerID
		req.NextCallSeq = proto.Uint64(sc.seq)
		resp, cells, err := sc.invoke(ctx, sc.loc.server, req)
		if err != nil {
			return nil, nil, err
		}
		sc.seq++
		return resp, cells, nil
	}
	var l *regionLoc
	var err error
	if sc.s.reversed && (!sc.nextInclusive || len(sc.next) == 0) {
		l, err = sc.t.c.locate(ctx, sc.t.name, sc.next, true, false)
	} else {
		l, err = sc.t.c.locate(ctx, sc.t.name, sc.next, false, false)
	}
	if err != nil {
		return nil, nil, err
	}
	sc.loc = l
	if req.Scan, err = sc.s.pb(sc.next, sc.nextInclusive); err != nil {
		return nil, nil, err
	}
	req.Region = l.spec()
	resp, cells, err := sc.invoke(ctx, l.server, req)
	if err != nil {
		return nil, nil, err
	}
	sc.seq = 0
	return resp, cells, nil
}

// invoke sends one ScanRequest to server; a lending scanner keeps the
// response's frame and cells for reuse.
func (sc *Scanner) invoke(ctx context.Context, server string, req *hbasepb.ScanRequest) (*hbasepb.ScanResponse, []cell.Cell, error) {
	var resp *hbasepb.ScanResponse
	var cellBuf []cell.Cell
	if sc.lend != nil {
		cellBuf = sc.lend.cells
		resp = sc.lend.response()
	} else {
		resp = new(hbasepb.ScanResponse)
	}
	cells, frame, err := sc.t.c.invoke(ctx, server, svcClient, "Scan", req, nil, resp, sc.lend != nil, cellBuf)
	if err != nil {
		return nil, nil, err
	}
	if sc.lend != nil {
		sc.lend.keep(cells, frame)
	}
	return resp, cells, nil
}
