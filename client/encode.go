package client

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
	"github.com/weirdb/weir/internal/filterpb"
	"github.com/weirdb/weir/internal/hbasepb"
)

// Attribute names HBase's client sets.
const attrRaw = "_raw_" // Scan.setRaw

func timeRangePB(tr cell.TimeRange) *hbasepb.TimeRange {
	if allTime(tr) {
		return nil
	}
	return &hbasepb.TimeRange{From: proto.Uint64(uint64(tr.Min)), To: proto.Uint64(uint64(tr.Max))}
}

func columnsPB(cols []column) []*hbasepb.Column {
	out := make([]*hbasepb.Column, 0, len(cols))
	for _, c := range cols {
		out = append(out, &hbasepb.Column{Family: c.family, Qualifier: c.qualifiers})
	}
	return out
}

func filterPB(f filter.Filter) (*hbasepb.Filter, error) {
	if f == nil {
		return nil, nil
	}
	pb, err := filterpb.EncodeFilter(f)
	if err != nil {
		return nil, permanent(fmt.Errorf("client: encoding filter: %w", err))
	}
	return pb, nil
}

func getPB(g *Get) (*hbasepb.Get, error) {
	if len(g.row) == 0 {
		return nil, invalidf("get has an empty row")
	}
	pb := &hbasepb.Get{Row: g.row, Column: columnsPB(g.columns), TimeRange: timeRangePB(g.timeRange)}
	if g.maxVersions > 0 {
		pb.MaxVersions = proto.Uint32(uint32(g.maxVersions))
	}
	if g.existence {
		pb.ExistenceOnly = proto.Bool(true)
	}
	var err error
	if pb.Filter, err = filterPB(g.filter); err != nil {
		return nil, err
	}
	return pb, nil
}

// mutationPB encodes a Put, Delete, Increment or Append with its cells in
// the request cellblock (associated_cell_count); the cells are returned
// for the caller to send.
func mutationPB(a Action, nonce bool) (*hbasepb.MutationProto, []cell.Cell, error) {
	mp := &hbasepb.MutationProto{Row: a.rowKey()}
	var cells []cell.Cell
	var d Durability
	switch m := a.(type) {
	case *Put:
		if len(m.cells) == 0 {
			return nil, nil, invalidf("put of row %q has no columns", m.row)
		}
		mp.MutateType, cells, d = hbasepb.MutationProto_PUT.Enum(), m.cells, m.durability
	case *Delete:
		mp.MutateType, cells, d = hbasepb.MutationProto_DELETE.Enum(), m.cells, m.durability
		if len(cells) == 0 {
			mp.Timestamp = proto.Uint64(uint64(m.ts))
		}
	case *Increment:
		if len(m.cells) == 0 {
			return nil, nil, invalidf("increment of row %q has no columns", m.row)
		}
		mp.MutateType, cells, d = hbasepb.MutationProto_INCREMENT.Enum(), m.cells, m.durability
	case *Append:
		if len(m.cells) == 0 {
			return nil, nil, invalidf("append of row %q has no columns", m.row)
		}
		mp.MutateType, cells, d = hbasepb.MutationProto_APPEND.Enum(), m.cells, m.durability
	default:
		return nil, nil, invalidf("%T is not a mutation", a)
	}
	if len(mp.Row) == 0 {
		return nil, nil, invalidf("mutation has an empty row")
	}
	if d != DurabilityDefault {
		mp.Durability = hbasepb.MutationProto_Durability(d).Enum()
	}
	if nonce {
		mp.Nonce = proto.Uint64(newNonce())
	}
	mp.AssociatedCellCount = proto.Int32(int32(len(cells)))
	return mp, cells, nil
}

func newNonce() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.BigEndian.Uint64(b[:]) >> 1
}

func isRMW(a Action) bool {
	switch a.(type) {
	case *Increment, *Append:
		return true
	}
	return false
}

// resultFromPB builds a Result from pb: its first associated_cell_count
// cells come from blockCells, then its inline cells. consumed is how many
// block cells it used.
func resultFromPB(pb *hbasepb.Result, blockCells []cell.Cell) (*Result, int, error) {
	if pb == nil {
		return &Result{}, 0, nil
	}
	if pb.Exists != nil {
		return &Result{Exists: pb.GetExists(), Partial: pb.GetPartial()}, 0, nil
	}
	n := int(pb.GetAssociatedCellCount())
	if n < 0 || n > len(blockCells) {
		return nil, 0, fmt.Errorf("client: result claims %d cellblock cells, %d left", n, len(blockCells))
	}
	if len(pb.GetCell()) == 0 {
		// Only cellblock cells (the usual answer): the Result takes them
		// as they are, capped so that appending to it cannot write over
		// the next result's.
		return newResult(blockCells[:n:n], pb.GetPartial()), n, nil
	}
	cells := make([]cell.Cell, 0, n+len(pb.GetCell()))
	cells = append(cells, blockCells[:n]...)
	for _, c := range pb.GetCell() {
		cells = append(cells, cell.Cell{Row: c.GetRow(), Family: c.GetFamily(), Qualifier: nonNil(c.GetQualifier()),
			Timestamp: int64(c.GetTimestamp()), Type: cell.Type(c.GetCellType()), Value: nonNil(c.GetValue())})
	}
	return newResult(cells, pb.GetPartial()), n, nil
}

func newResult(cells []cell.Cell, partial bool) *Result {
	r := &Result{Cells: cells, Exists: len(cells) > 0, Partial: partial}
	if len(cells) > 0 {
		r.Row = cells[0].Row
	}
	return r
}

// scanResults reads a ScanResponse's results: from the cellblock by
// cells_per_result when present, else from the inline results. With
// reuse (a lending scanner), the Results of the previous batch, no longer
// in use, are overwritten.
func scanResults(resp *hbasepb.ScanResponse, cells []cell.Cell, reuse *lentScan) ([]*Result, error) {
	if cpr := resp.GetCellsPerResult(); len(cpr) > 0 {
		// The batch's Results in one allocation, not one per row.
		var out []*Result
		var slab []Result
		if reuse != nil && cap(reuse.slab) >= len(cpr) {
			out, slab = reuse.results[:len(cpr)], reuse.slab[:len(cpr)]
		} else {
			out, slab = make([]*Result, len(cpr)), make([]Result, len(cpr))
			if reuse != nil {
				reuse.results, reuse.slab = out, slab
			}
		}
		partial := resp.GetPartialFlagPerResult()
		for i, n := range cpr {
			if int(n) > len(cells) {
				return nil, fmt.Errorf("client: scan response claims %d cells for result %d, %d left", n, i, len(cells))
			}
			r := &slab[i]
			*r = Result{Cells: cells[:n:n], Exists: n > 0, Partial: i < len(partial) && partial[i]}
			if n > 0 {
				r.Row = cells[0].Row
			}
			out[i] = r
			cells = cells[n:]
		}
		return out, nil
	}
	out := make([]*Result, 0, len(resp.GetResults()))
	for i, pb := range resp.GetResults() {
		r, used, err := resultFromPB(pb, cells)
		if err != nil {
			return nil, err
		}
		cells = cells[used:]
		if p := resp.GetPartialFlagPerResult(); i < len(p) && p[i] {
			r.Partial = true
		}
		out = append(out, r)
	}
	return out, nil
}

// conditionPB encodes a CheckAndMutate condition as HBase's client does:
// a filter, or family/qualifier with a compare type and a
// BinaryComparator (NullComparator for "absent").
func conditionPB(cm *CheckAndMutate) (*hbasepb.Condition, error) {
	pb := &hbasepb.Condition{Row: cm.Row, TimeRange: timeRangePB(cm.TimeRange)}
	if cm.Filter != nil {
		var err error
		pb.Filter, err = filterPB(cm.Filter)
		return pb, err
	}
	if len(cm.Family) == 0 {
		return nil, invalidf("check-and-mutate of row %q has neither a filter nor a family", cm.Row)
	}
	pb.Family, pb.Qualifier = cm.Family, nonNil(cm.Qualifier)
	op := cm.Op
	var cmp filter.Comparator = filter.NewBinaryComparator(nonNil(cm.Value))
	if cm.IfNotExists {
		op, cmp = filter.Equal, filter.NullComparator{}
	}
	ct, err := filterpb.CompareOpToPB(op)
	if err != nil {
		return nil, permanent(err)
	}
	pb.CompareType = ct.Enum()
	if pb.Comparator, err = filterpb.EncodeComparator(cmp); err != nil {
		return nil, permanent(err)
	}
	return pb, nil
}
