package hbaseconv

import (
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/region"
)

func TestCellTypeNumbers(t *testing.T) {
	for _, p := range []struct {
		pb hbasepb.CellType
		t  cell.Type
	}{
		{hbasepb.CellType_PUT, cell.TypePut},
		{hbasepb.CellType_DELETE, cell.TypeDelete},
		{hbasepb.CellType_DELETE_FAMILY_VERSION, cell.TypeDeleteFamilyVersion},
		{hbasepb.CellType_DELETE_COLUMN, cell.TypeDeleteColumn},
		{hbasepb.CellType_DELETE_FAMILY, cell.TypeDeleteFamily},
	} {
		if int32(p.pb) != int32(p.t) {
			t.Errorf("%v = %d but %v = %d", p.pb, p.pb, p.t, p.t)
		}
	}
}

func TestCellRoundTrip(t *testing.T) {
	for _, typ := range []cell.Type{cell.TypePut, cell.TypeDelete, cell.TypeDeleteFamilyVersion, cell.TypeDeleteColumn, cell.TypeDeleteFamily} {
		c := cell.Cell{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: cell.LatestTimestamp - 1, Type: typ, Value: []byte("v")}
		b, err := proto.Marshal(CellToPB(c))
		if err != nil {
			t.Fatal(err)
		}
		var pb hbasepb.Cell
		if err := proto.Unmarshal(b, &pb); err != nil {
			t.Fatal(err)
		}
		got, err := CellFromPB(&pb)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Errorf("got %v, want %v", got, c)
		}
	}
	// Empty parts decode as empty, not nil.
	got, err := CellFromPB(&hbasepb.Cell{CellType: hbasepb.CellType_PUT.Enum()})
	if err != nil || got.Row == nil || got.Value == nil || got.Timestamp != 0 {
		t.Errorf("got %#v, %v", got, err)
	}
}

func TestCellFromPBErrors(t *testing.T) {
	_, err := CellFromPB(&hbasepb.Cell{Row: []byte("r")})
	wantErr(t, err, "no type")
	_, err = CellFromPB(&hbasepb.Cell{Row: []byte("r"), CellType: hbasepb.CellType_MAXIMUM.Enum()})
	wantErr(t, err, "unknown type 255")
	_, err = CellFromPB(&hbasepb.Cell{Row: []byte("r"), CellType: hbasepb.CellType_PUT.Enum(), Timestamp: proto.Uint64(1 << 63)})
	wantErr(t, err, "timestamp 9223372036854775808")
	_, err = CellFromPB(nil)
	wantErr(t, err, "missing cell")
}

func TestResultRoundTrip(t *testing.T) {
	res := region.Result{Cells: testCells[:3], Exists: true, Partial: true}
	// Inline.
	pb := ResultToPB(res, true)
	if pb.Exists != nil {
		t.Error("a normal result carries exists")
	}
	got, n, err := ResultFromPB(pb, nil)
	if err != nil || n != 0 || !reflect.DeepEqual(got, res) {
		t.Fatalf("inline: got %v, %d, %v", got, n, err)
	}
	// Cellblock: the cells after this result's belong to the next one.
	pb = ResultToPB(res, false)
	if pb.GetAssociatedCellCount() != 3 || len(pb.Cell) != 0 {
		t.Fatalf("cellblock: %v", pb)
	}
	got, n, err = ResultFromPB(pb, testCells)
	if err != nil || n != 3 || !reflect.DeepEqual(got, res) {
		t.Fatalf("cellblock: got %v, %d, %v", got, n, err)
	}
	// Empty.
	got, n, err = ResultFromPB(ResultToPB(region.Result{}, false), nil)
	if err != nil || n != 0 || !reflect.DeepEqual(got, region.Result{}) {
		t.Fatalf("empty: got %#v, %d, %v", got, n, err)
	}
	// Existence only.
	for _, exists := range []bool{false, true} {
		got, n, err = ResultFromPB(ExistsResultToPB(exists), testCells)
		if err != nil || n != 0 || got.Exists != exists || got.Cells != nil {
			t.Fatalf("exists=%v: got %v, %d, %v", exists, got, n, err)
		}
	}
	// Block cells first, then inline ones (HBase's order).
	mixed := &hbasepb.Result{AssociatedCellCount: proto.Int32(1), Cell: []*hbasepb.Cell{CellToPB(testCells[1])}}
	got, n, err = ResultFromPB(mixed, testCells)
	if err != nil || n != 1 || !reflect.DeepEqual(got.Cells, testCells[:2]) {
		t.Fatalf("mixed: got %v, %d, %v", got, n, err)
	}
}

func TestResultFromPBErrors(t *testing.T) {
	_, _, err := ResultFromPB(&hbasepb.Result{AssociatedCellCount: proto.Int32(4)}, testCells[:3])
	wantErr(t, err, "associated_cell_count 4", "only 3")
	_, _, err = ResultFromPB(&hbasepb.Result{AssociatedCellCount: proto.Int32(-1)}, testCells)
	wantErr(t, err, "negative")
	_, _, err = ResultFromPB(&hbasepb.Result{Cell: []*hbasepb.Cell{{}}}, nil)
	wantErr(t, err, "result cell 0", "no type")
}
