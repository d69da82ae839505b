package region

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/invariants"
	"github.com/weirdb/weir/internal/storage"
)

// KVBatch is what NextKV returns: the cells of all results as one
// KeyValueCodec cellblock (length-prefixed, tag-less KeyValues, the bytes
// a region server sends), and per result its number of cells and whether
// it is part of a row. NextKV only appends, so a batch may collect the
// results of several calls; Reset empties it keeping its memory, so a
// region server can reuse one per call.
type KVBatch struct {
	Block          []byte
	CellsPerResult []uint32
	Partial        []bool
	// cells is the scratch batch of scans that go through cells (filters,
	// Batch): its cells are encoded into Block.
	cells ScanBatch
}

// Len is the number of results in the batch.
func (b *KVBatch) Len() int { return len(b.CellsPerResult) }

// Reset empties the batch, keeping its buffers.
func (b *KVBatch) Reset() {
	b.Block, b.CellsPerResult, b.Partial = b.Block[:0], b.CellsPerResult[:0], b.Partial[:0]
	clear(b.cells.Cells) // drop the references to the last call's arena
	b.cells.Cells, b.cells.CellsPerResult, b.cells.Partial = b.cells.Cells[:0], b.cells.CellsPerResult[:0], b.cells.Partial[:0]
}

// kvSink is where a rowReader encodes the cells of an unfiltered scan: one
// copy from Pebble's key and value into the cellblock, no cell structs.
type kvSink struct {
	buf   []byte
	cells int
	err   error // the first cell a KeyValue cannot hold
	// head is the encoded KeyValue head (row and family) of the cells
	// being added, valid while headOK: the row reader clears headOK
	// when it starts a row or a family (newHead), so a row's cells copy
	// the head as one piece instead of encoding row and family each.
	head    []byte
	headOK  bool
	headBuf [64]byte // head's first array: YCSB-sized rows need no allocation
}

// newHead tells the sink that the following cells have another row or
// family.
func (s *kvSink) newHead() { s.headOK = false }

func (s *kvSink) add(row, family []byte, k *storage.CellKey, value []byte) {
	if err := cell.CheckKeyValue(len(row), len(family), len(k.Qualifier), len(value)); err != nil {
		if s.err == nil {
			s.err = invalidf("scan of row %q: %v", row, err)
		}
		return
	}
	if !s.headOK {
		if s.head == nil {
			s.head = s.headBuf[:0]
		}
		s.head = cell.AppendKeyValueHead(s.head[:0], row, family)
		s.headOK = true
	} else if invariants.Enabled {
		if want := cell.AppendKeyValueHead(nil, row, family); !bytes.Equal(want, s.head) {
			panic(fmt.Sprintf("region: stale KeyValue head %x for row %q family %q", s.head, row, family))
		}
	}
	s.buf = cell.AppendKeyValueWithHead(s.buf, s.head, k.Qualifier, k.Timestamp, cell.Type(k.Type), value)
	s.cells++
}

// NextKV is NextBatch with the cells encoded as KeyValues into b.Block.
// A scan without a filter or batch size encodes each cell straight from
// the store; any other goes through cells first. It fails, appending
// nothing for the row at fault, if a cell cannot be a KeyValue (a row
// longer than 32767 bytes, a family longer than 127).
func (s *Scanner) NextKV(ctx context.Context, maxRows int, maxBytes int64, b *KVBatch) (more bool, err error) {
	if err := s.enter(); err != nil {
		return false, err
	}
	defer s.r.gate.RUnlock()
	n := b.Len()
	if s.q.filter == nil && s.scan.Batch == 0 {
		more, err = s.nextKV(ctx, maxRows, maxBytes, b)
	} else {
		more, err = s.nextKVFromCells(ctx, maxRows, maxBytes, b)
	}
	s.r.requests.reads.Add(uint64(b.Len() - n))
	return more, err
}

// nextKVFromCells reads through the cell path and encodes the cells.
func (s *Scanner) nextKVFromCells(ctx context.Context, maxRows int, maxBytes int64, b *KVBatch) (bool, error) {
	cb := &b.cells
	from, fromResults := len(cb.Cells), cb.Len()
	more, err := s.nextBatch(ctx, maxRows, maxBytes, cb)
	for i := from; i < len(cb.Cells); i++ {
		c := &cb.Cells[i]
		if err := cell.CheckKeyValue(len(c.Row), len(c.Family), len(c.Qualifier), len(c.Value)); err != nil {
			return false, invalidf("scan of row %q: %v", c.Row, err)
		}
		b.Block = cell.AppendKeyValue(b.Block, c.Row, c.Family, c.Qualifier, c.Timestamp, c.Type, c.Value)
	}
	b.CellsPerResult = append(b.CellsPerResult, cb.CellsPerResult[fromResults:]...)
	b.Partial = append(b.Partial, cb.Partial[fromResults:]...)
	return more, err
}

// nextKV is nextBatch for a scan without a filter or batch size, its rows
// encoded by the row reader into b.Block.
func (s *Scanner) nextKV(ctx context.Context, maxRows int, maxBytes int64, b *KVBatch) (bool, error) {
	if maxRows <= 0 {
		maxRows = 1
	}
	sink := &s.kv
	sink.buf, sink.cells, sink.err = b.Block, 0, nil
	if !s.done {
		s.reserveKV(maxRows, maxBytes, b)
		sink.buf = b.Block
		s.rr.kv = sink
	}
	var bytesOut int64
	n, rowsRead := 0, 0
	pageFull := false
	blockStart := len(sink.buf)
	defer func() {
		b.Block = sink.buf
		sink.buf = nil
		if s.rr != nil {
			s.rr.kv = nil
		}
		s.learnKV(rowsRead, sink.cells, len(b.Block)-blockStart)
	}()
	y := YielderFrom(ctx) // yield.go
	for n < maxRows && (maxBytes <= 0 || bytesOut < maxBytes) && !s.done {
		if n%64 == 0 {
			if err := ctx.Err(); err != nil {
				return true, err
			}
		}
		if y != nil {
			y.Yield(ctx)
		}
		start, cellsBefore := len(sink.buf), sink.cells
		if _, err := s.nextRow(nil); err != nil || sink.err != nil {
			sink.buf, sink.cells = sink.buf[:start], cellsBefore
			if err == nil {
				err = sink.err
			}
			return false, err
		}
		cells := sink.cells - cellsBefore
		if cells == 0 {
			continue
		}
		pageFull = s.countRow()
		rowsRead++
		// The bytes Cell.Size counts, as the cell path's limit does.
		bytesOut += int64(len(sink.buf) - start - cells*cell.KeyValueOverhead)
		b.CellsPerResult = append(b.CellsPerResult, uint32(cells))
		b.Partial = append(b.Partial, false)
		n++
	}
	s.endPage(pageFull, n, maxRows, bytesOut, maxBytes)
	return !s.done, nil
}

// reserveKV sizes b for the rows this call will likely read, from the
// region's scanShape.
func (s *Scanner) reserveKV(maxRows int, maxBytes int64, b *KVBatch) {
	cpr := int(s.r.scanShape.cellsPerRow.Load())
	bpr := int64(s.r.scanShape.kvBytesPerRow.Load())
	if cpr == 0 || bpr == 0 {
		return
	}
	rows := s.reservedRows(maxRows, maxBytes, bpr)
	b.Block = slices.Grow(b.Block, int(int64(rows)*bpr))
	b.CellsPerResult = slices.Grow(b.CellsPerResult, rows)
	b.Partial = slices.Grow(b.Partial, rows)
}

// learnKV records the encoded size of the rows a call read.
func (s *Scanner) learnKV(rows, cells, blockBytes int) {
	if rows == 0 {
		return
	}
	sh := &s.r.scanShape
	if cpr := uint32((cells + rows - 1) / rows); sh.cellsPerRow.Load() != cpr {
		sh.cellsPerRow.Store(cpr)
	}
	if bpr := uint32(min((blockBytes+rows-1)/rows, 1<<30)); sh.kvBytesPerRow.Load() != bpr {
		sh.kvBytesPerRow.Store(bpr)
	}
}
