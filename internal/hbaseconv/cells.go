package hbaseconv

import (
	"math"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/region"
)

// HBase's CellType enum numbers are its KeyValue.Type codes, which are
// Weir's cell.Type values; the conversions below rely on it (and the tests
// check it).

// CellToPB returns the protobuf form of c. The message aliases c's bytes.
func CellToPB(c cell.Cell) *hbasepb.Cell {
	t := hbasepb.CellType(c.Type)
	ts := uint64(c.Timestamp)
	return &hbasepb.Cell{
		Row: c.Row, Family: c.Family, Qualifier: c.Qualifier,
		Timestamp: &ts, CellType: &t, Value: c.Value,
	}
}

// CellFromPB returns the cell of pb, which must carry one of the five
// stored types and a timestamp that fits an int64 (absent reads 0, as in
// HBase). Tags are dropped. The cell aliases pb's bytes.
func CellFromPB(pb *hbasepb.Cell) (cell.Cell, error) {
	if pb == nil {
		return cell.Cell{}, invalidf("missing cell")
	}
	if pb.CellType == nil {
		return cell.Cell{}, invalidf("cell of row %q has no type", pb.GetRow())
	}
	t := cell.Type(pb.GetCellType())
	if pb.GetCellType() < 0 || pb.GetCellType() > math.MaxUint8 || !t.Valid() {
		return cell.Cell{}, invalidf("cell of row %q has unknown type %d", pb.GetRow(), int32(pb.GetCellType()))
	}
	if pb.GetTimestamp() > math.MaxInt64 {
		return cell.Cell{}, invalidf("cell of row %q has timestamp %d beyond int64", pb.GetRow(), pb.GetTimestamp())
	}
	return cell.Cell{
		Row: nonNil(pb.GetRow()), Family: nonNil(pb.GetFamily()), Qualifier: nonNil(pb.GetQualifier()),
		Timestamp: int64(pb.GetTimestamp()), Type: t, Value: nonNil(pb.GetValue()),
	}, nil
}

// ResultToPB returns the protobuf form of res. With inlineCells the cells
// travel in Result.cell; otherwise only associated_cell_count is set and
// the caller sends res.Cells in the cellblock. The exists field is never
// set: HBase's client drops a Result's cells when it is present, so it
// belongs only to existence-only Gets (see ExistsResultToPB).
func ResultToPB(res region.Result, inlineCells bool) *hbasepb.Result {
	return new(PBResult).Set(res, inlineCells)
}

// PBResult is a Result's protobuf form together with the scalars its
// optional fields point to, so that it takes one allocation, or none in
// a caller's reused buffer.
type PBResult struct {
	pb      hbasepb.Result
	count   int32
	partial bool
}

// Set makes p ResultToPB's form of res and returns it. p must be zero.
func (p *PBResult) Set(res region.Result, inlineCells bool) *hbasepb.Result {
	pb := &p.pb
	if res.Partial {
		p.partial = true
		pb.Partial = &p.partial
	}
	if inlineCells {
		pb.Cell = make([]*hbasepb.Cell, len(res.Cells))
		for i := range res.Cells {
			pb.Cell[i] = CellToPB(res.Cells[i])
		}
		return pb
	}
	p.count = int32(len(res.Cells))
	pb.AssociatedCellCount = &p.count
	return pb
}

// ExistsResultToPB answers an existence-only Get (Get.existence_only), as
// HBase does: a Result with only exists set.
func ExistsResultToPB(exists bool) *hbasepb.Result {
	return &hbasepb.Result{Exists: &exists}
}

// ResultFromPB returns the Result of pb. Its first associated_cell_count
// cells are taken from blockCells (the cellblock cells not yet consumed),
// followed by pb's inline cells, as HBase's client does; consumed is how
// many of blockCells were used. A Result with exists set (an
// existence-only answer) has no cells and Exists as sent; otherwise
// Exists reports whether it has cells. The cells alias pb and blockCells.
func ResultFromPB(pb *hbasepb.Result, blockCells []cell.Cell) (res region.Result, consumed int, err error) {
	if pb == nil {
		return region.Result{}, 0, invalidf("missing result")
	}
	if pb.Exists != nil {
		return region.Result{Exists: pb.GetExists(), Partial: pb.GetPartial()}, 0, nil
	}
	n := int(pb.GetAssociatedCellCount())
	if n < 0 {
		return region.Result{}, 0, invalidf("result has negative associated_cell_count %d", n)
	}
	if n > len(blockCells) {
		return region.Result{}, 0, invalidf("result has associated_cell_count %d but the cellblock holds only %d more cells", n, len(blockCells))
	}
	cells := make([]cell.Cell, 0, n+len(pb.GetCell()))
	cells = append(cells, blockCells[:n]...)
	for i, c := range pb.GetCell() {
		cc, err := CellFromPB(c)
		if err != nil {
			return region.Result{}, 0, invalidf("result cell %d: %v", i, err)
		}
		cells = append(cells, cc)
	}
	if len(cells) == 0 {
		cells = nil
	}
	return region.Result{Cells: cells, Exists: len(cells) > 0, Partial: pb.GetPartial()}, n, nil
}
