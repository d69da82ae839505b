package hbaseconv

import (
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/region"
)

func TestMutationRoundTrip(t *testing.T) {
	row := []byte("r")
	del := func(fam, qual string, ts int64, typ cell.Type) cell.Cell {
		return cell.Cell{Row: row, Family: []byte(fam), Qualifier: []byte(qual), Timestamp: ts, Type: typ}
	}
	for _, tc := range []struct {
		name string
		c    Converted
	}{
		{"put", Converted{Kind: KindPut, Mutation: region.Mutation{Type: region.MutationPut, Row: row, Durability: region.AsyncWAL, Cells: []cell.Cell{
			kv("r", "f", "a", cell.LatestTimestamp, "1"), kv("r", "f", "b", 7, ""), kv("r", "g", "a", 8, "3")}}}},
		{"delete", Converted{Kind: KindDelete, Mutation: region.Mutation{Type: region.MutationDelete, Row: row, Cells: []cell.Cell{
			del("f", "a", cell.LatestTimestamp, cell.TypeDelete), del("f", "b", 5, cell.TypeDeleteColumn),
			del("g", "", 6, cell.TypeDeleteFamily), del("h", "", 7, cell.TypeDeleteFamilyVersion)}}}},
		{"row delete", Converted{Kind: KindDelete, Mutation: region.Mutation{Type: region.MutationDelete, Row: row, Timestamp: 99, Durability: region.SkipWAL}}},
		{"increment", Converted{Kind: KindIncrement, Nonce: 77, HasNonce: true, RMW: region.ReadModifyWrite{Row: row, TimeRange: cell.TimeRange{Min: 1, Max: 9}, NoResult: true,
			Durability: region.FsyncWAL, Columns: []region.ColumnDelta{{Family: []byte("f"), Qualifier: []byte("n"), Delta: -3}, {Family: []byte("f"), Qualifier: []byte("m"), Delta: 1 << 40}}}}},
		{"append", Converted{Kind: KindAppend, RMW: region.ReadModifyWrite{Row: row, TimeRange: cell.AllTime,
			Columns: []region.ColumnDelta{{Family: []byte("f"), Qualifier: []byte("s"), Value: []byte("tail")}}}}},
	} {
		for _, cellblock := range []bool{false, true} {
			name := tc.name + map[bool]string{false: "/inline", true: "/cellblock"}[cellblock]
			t.Run(name, func(t *testing.T) {
				mp, cells, err := MutationToPB(tc.c, cellblock)
				if err != nil {
					t.Fatal(err)
				}
				if !cellblock && cells != nil {
					t.Fatal("inline encoding returned cellblock cells")
				}
				// Another mutation's cells follow in the cellblock.
				block := append(cells, kv("other", "f", "x", 1, "y"))
				got, n, err := MutationFromPB(wire(t, mp, &hbasepb.MutationProto{}), block)
				if err != nil {
					t.Fatal(err)
				}
				if n != len(cells) {
					t.Errorf("consumed %d cells, want %d", n, len(cells))
				}
				if !reflect.DeepEqual(got, tc.c) {
					t.Errorf("got  %+v\nwant %+v", got, tc.c)
				}
			})
		}
	}
}

// TestMutationFromPBJava decodes messages shaped as HBase's Java client
// writes them.
func TestMutationFromPBJava(t *testing.T) {
	// A Put with the mutation's timestamp inherited by a qualifier value.
	mp := &hbasepb.MutationProto{Row: []byte("r"), MutateType: hbasepb.MutationProto_PUT.Enum(), Timestamp: proto.Uint64(50),
		ColumnValue: []*hbasepb.MutationProto_ColumnValue{{Family: []byte("f"), QualifierValue: []*hbasepb.MutationProto_ColumnValue_QualifierValue{
			{Qualifier: []byte("a"), Value: []byte("1")}, {Qualifier: []byte("b"), Value: []byte("2"), Timestamp: proto.Uint64(60)}}}}}
	c, _, err := MutationFromPB(mp, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ts := []int64{c.Mutation.Cells[0].Timestamp, c.Mutation.Cells[1].Timestamp}; ts[0] != 50 || ts[1] != 60 {
		t.Errorf("timestamps %v, want [50 60]", ts)
	}
	// Without any timestamp: LATEST_TIMESTAMP; delete_type absent means one version.
	mp = &hbasepb.MutationProto{Row: []byte("r"), MutateType: hbasepb.MutationProto_DELETE.Enum(),
		ColumnValue: []*hbasepb.MutationProto_ColumnValue{{Family: []byte("f"), QualifierValue: []*hbasepb.MutationProto_ColumnValue_QualifierValue{
			{Qualifier: []byte("a")}, {Qualifier: []byte("ignored"), DeleteType: hbasepb.MutationProto_DELETE_FAMILY.Enum()}}}}}
	c, _, err = MutationFromPB(mp, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []cell.Cell{
		{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte("a"), Timestamp: cell.LatestTimestamp, Type: cell.TypeDelete},
		{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte{}, Timestamp: cell.LatestTimestamp, Type: cell.TypeDeleteFamily},
	}
	if !reflect.DeepEqual(c.Mutation.Cells, want) {
		t.Errorf("got %v\nwant %v", c.Mutation.Cells, want)
	}
	// A whole-row delete without a timestamp.
	c, _, err = MutationFromPB(&hbasepb.MutationProto{Row: []byte("r"), MutateType: hbasepb.MutationProto_DELETE.Enum()}, nil)
	if err != nil || c.Mutation.Cells != nil || c.Mutation.Timestamp != cell.LatestTimestamp {
		t.Errorf("row delete: %+v, %v", c.Mutation, err)
	}
	// A cellblock Put whose row comes from its cells; "_rr_" true keeps results.
	c, n, err := MutationFromPB(&hbasepb.MutationProto{MutateType: hbasepb.MutationProto_APPEND.Enum(), AssociatedCellCount: proto.Int32(1),
		Attribute: []*hbasepb.NameBytesPair{{Name: proto.String(AttrReturnResults), Value: []byte{0xff}}}}, testCells)
	if err != nil || n != 1 || string(c.RMW.Row) != "a1" || c.RMW.NoResult || string(c.RMW.Columns[0].Value) != "v1" {
		t.Errorf("cellblock append: %+v, %d, %v", c, n, err)
	}
}

func TestMutationFromPBErrors(t *testing.T) {
	qv := func(v []byte) []*hbasepb.MutationProto_ColumnValue {
		return []*hbasepb.MutationProto_ColumnValue{{Family: []byte("f"), QualifierValue: []*hbasepb.MutationProto_ColumnValue_QualifierValue{{Qualifier: []byte("q"), Value: v}}}}
	}
	put, inc := hbasepb.MutationProto_PUT.Enum(), hbasepb.MutationProto_INCREMENT.Enum()
	delCell := cell.Cell{Row: []byte("r"), Family: []byte("f"), Type: cell.TypeDeleteColumn, Timestamp: 1}
	for _, tc := range []struct {
		name  string
		mp    *hbasepb.MutationProto
		block []cell.Cell
		frags []string
	}{
		{"no type", &hbasepb.MutationProto{Row: []byte("r")}, nil, []string{"no mutate_type"}},
		{"unknown type", &hbasepb.MutationProto{Row: []byte("r"), MutateType: hbasepb.MutationProto_MutationType(9).Enum()}, nil, []string{"unknown mutate_type 9"}},
		{"empty row", &hbasepb.MutationProto{MutateType: put, ColumnValue: qv([]byte("v"))}, nil, []string{"PUT", "empty row"}},
		{"no cells", &hbasepb.MutationProto{Row: []byte("r"), MutateType: put}, nil, []string{"PUT", "no cells"}},
		{"put without value", &hbasepb.MutationProto{Row: []byte("r"), MutateType: put, ColumnValue: qv(nil)}, nil, []string{"f:q", "no value"}},
		{"empty family", &hbasepb.MutationProto{Row: []byte("r"), MutateType: put, ColumnValue: []*hbasepb.MutationProto_ColumnValue{{}}}, nil, []string{"empty family"}},
		{"cellblock short", &hbasepb.MutationProto{Row: []byte("a1"), MutateType: put, AssociatedCellCount: proto.Int32(7)}, testCells, []string{"associated_cell_count 7", "only 6"}},
		{"cellblock negative", &hbasepb.MutationProto{Row: []byte("a1"), MutateType: put, AssociatedCellCount: proto.Int32(-1)}, testCells, []string{"negative"}},
		{"cellblock wrong row", &hbasepb.MutationProto{Row: []byte("a1"), MutateType: put, AssociatedCellCount: proto.Int32(4)}, testCells, []string{"cell 3", "a2"}},
		{"cellblock delete in put", &hbasepb.MutationProto{Row: []byte("r"), MutateType: put, AssociatedCellCount: proto.Int32(1)}, []cell.Cell{delCell}, []string{"DeleteColumn", "not Put"}},
		{"cellblock put in delete", &hbasepb.MutationProto{Row: []byte("a1"), MutateType: hbasepb.MutationProto_DELETE.Enum(), AssociatedCellCount: proto.Int32(1)}, testCells, []string{"Put", "not a delete"}},
		{"increment not 8 bytes", &hbasepb.MutationProto{Row: []byte("r"), MutateType: inc, ColumnValue: qv([]byte{1, 2, 3})}, nil, []string{"INCREMENT", "f:q", "3 bytes", "8-byte"}},
		{"increment without columns", &hbasepb.MutationProto{Row: []byte("r"), MutateType: inc}, nil, []string{"no columns"}},
		{"bad durability", &hbasepb.MutationProto{Row: []byte("r"), MutateType: put, ColumnValue: qv([]byte("v")), Durability: hbasepb.MutationProto_Durability(8).Enum()}, nil, []string{"durability 8"}},
		{"timestamp overflow", &hbasepb.MutationProto{Row: []byte("r"), MutateType: put, ColumnValue: qv([]byte("v")), Timestamp: proto.Uint64(1 << 63)}, nil, []string{"timestamp"}},
		{"bad delete type", &hbasepb.MutationProto{Row: []byte("r"), MutateType: hbasepb.MutationProto_DELETE.Enum(),
			ColumnValue: []*hbasepb.MutationProto_ColumnValue{{Family: []byte("f"), QualifierValue: []*hbasepb.MutationProto_ColumnValue_QualifierValue{{DeleteType: hbasepb.MutationProto_DeleteType(6).Enum()}}}}},
			nil, []string{"delete_type 6"}},
		{"bad return results", &hbasepb.MutationProto{Row: []byte("r"), MutateType: inc, ColumnValue: qv(make([]byte, 8)),
			Attribute: []*hbasepb.NameBytesPair{{Name: proto.String(AttrReturnResults)}}}, nil, []string{"_rr_"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, n, err := MutationFromPB(tc.mp, tc.block)
			if n != 0 {
				t.Errorf("consumed %d cells on error", n)
			}
			wantErr(t, err, tc.frags...)
		})
	}
}

func TestMutationToPBErrors(t *testing.T) {
	_, _, err := MutationToPB(Converted{Kind: 9}, false)
	wantErr(t, err, "unknown mutation kind 9")
	_, _, err = MutationToPB(Converted{Kind: KindPut, Mutation: region.Mutation{Type: region.MutationDelete, Row: []byte("r")}}, false)
	wantErr(t, err, "PUT carries a DELETE")
	_, _, err = MutationToPB(Converted{Kind: KindDelete, Mutation: region.Mutation{Type: region.MutationDelete, Row: []byte("r"),
		Cells: []cell.Cell{kv("r", "f", "q", 1, "")}}}, false)
	wantErr(t, err, "type Put")
	_, _, err = MutationToPB(Converted{Kind: KindPut, Mutation: region.Mutation{Type: region.MutationPut, Durability: 9, Row: []byte("r")}}, false)
	wantErr(t, err, "durability 9")
}
