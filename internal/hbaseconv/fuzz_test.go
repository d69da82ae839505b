package hbaseconv

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/region"
)

// FuzzMutationFromPB decodes arbitrary MutationProto bytes against a
// cellblock: it must never panic, never consume more cells than there are,
// and what it accepts must re-encode and decode to the same result.
func FuzzMutationFromPB(f *testing.F) {
	for _, c := range []Converted{
		{Kind: KindPut, Mutation: testPut()},
		{Kind: KindIncrement, RMW: testIncrement()},
	} {
		for _, cb := range []bool{false, true} {
			mp, _, err := MutationToPB(c, cb)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(mustMarshal(f, mp), uint8(3))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, nblock uint8) {
		var mp hbasepb.MutationProto
		if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(data, &mp); err != nil {
			return
		}
		block := blockCells(int(nblock) % 8)
		c, n, err := MutationFromPB(&mp, block)
		if err != nil {
			return
		}
		if n < 0 || n > len(block) {
			t.Fatalf("consumed %d of %d cells", n, len(block))
		}
		for _, cellblock := range []bool{false, true} {
			mp2, cells, err := MutationToPB(c, cellblock)
			if err != nil {
				t.Fatalf("accepted mutation does not re-encode (cellblock=%v): %v", cellblock, err)
			}
			if _, _, err := MutationFromPB(mp2, cells); err != nil {
				t.Fatalf("re-encoded mutation does not decode (cellblock=%v): %v\n%v", cellblock, err, mp2)
			}
		}
	})
}

func testPut() (m region.Mutation) {
	m.Type = region.MutationPut
	m.Row = []byte("a1")
	m.Cells = []cell.Cell{kv("a1", "f", "q", 5, "v")}
	return m
}

func testIncrement() (r region.ReadModifyWrite) {
	r.Row = []byte("a1")
	r.Columns = append(r.Columns, region.ColumnDelta{Family: []byte("f"), Qualifier: []byte("n"), Delta: 2})
	return r
}

// blockCells returns n cellblock cells of row a1, alternating puts with
// increment-sized values and delete markers.
func blockCells(n int) []cell.Cell {
	out := make([]cell.Cell, n)
	for i := range out {
		out[i] = kv("a1", "f", "q", int64(i), "8bytes!!")
		if i%2 == 1 {
			out[i].Type, out[i].Value = cell.TypeDeleteColumn, nil
		}
	}
	return out
}
