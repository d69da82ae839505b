package hbaserpc

import (
	"bytes"
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
)

// ycsbScanResponse is what a region server answers a YCSB workload-E scan
// of rows rows: the ScanResponse message (cells_per_result and
// partial_flag_per_result unpacked, as proto2 encodes them) and its
// cellblock of 10 cells × 100 B per row.
func ycsbScanResponse(tb testing.TB, rows int) (msg, block []byte) {
	tb.Helper()
	value := bytes.Repeat([]byte{0xAB}, 100)
	var cells []cell.Cell
	resp := &hbasepb.ScanResponse{ScannerId: proto.Uint64(12345), MoreResults: proto.Bool(false), Ttl: proto.Uint32(60000),
		MoreResultsInRegion: proto.Bool(false), MvccReadPoint: proto.Uint64(987654321)}
	for r := range rows {
		row := []byte(fmt.Sprintf("user%019d", r))
		for f := range 10 {
			cells = append(cells, cell.Cell{Row: row, Family: []byte("family"), Qualifier: []byte(fmt.Sprintf("field%d", f)),
				Timestamp: 1700000000000, Type: cell.TypePut, Value: value})
		}
		resp.CellsPerResult = append(resp.CellsPerResult, 10)
		resp.PartialFlagPerResult = append(resp.PartialFlagPerResult, false)
	}
	block, err := AppendCellBlock(nil, cells)
	if err != nil {
		tb.Fatal(err)
	}
	msg, err = proto.Marshal(resp)
	if err != nil {
		tb.Fatal(err)
	}
	return msg, block
}

// BenchmarkDecodeScan measures the client's decoding of one YCSB scan
// response (no I/O): the cellblock into a reused cell slice, as a lending
// scanner does, and the ScanResponse message.
func BenchmarkDecodeScan(b *testing.B) {
	for _, rows := range []int{1, 50, 100} {
		msg, block := ycsbScanResponse(b, rows)
		b.Run(fmt.Sprintf("cellblock/rows=%d", rows), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(block)))
			var buf []cell.Cell
			for b.Loop() {
				cells, err := decodeCellBlockInto(buf, block, 0)
				if err != nil || len(cells) != rows*10 {
					b.Fatalf("%d cells, %v", len(cells), err)
				}
				buf = cells
			}
		})
		b.Run(fmt.Sprintf("message/rows=%d", rows), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var resp hbasepb.ScanResponse
				if !decodeScanResponseFast(msg, &resp) || len(resp.CellsPerResult) != rows {
					b.Fatal("not decoded")
				}
			}
		})
	}
}

// BenchmarkEncodeScanRequest measures encoding a YCSB scan's open
// request by hand against the protobuf runtime.
func BenchmarkEncodeScanRequest(b *testing.B) {
	m := &hbasepb.ScanRequest{Region: spec("usertable,user5,1700000000000.0123456789abcdef0123456789abcdef."),
		Scan: &hbasepb.Scan{Column: []*hbasepb.Column{{Family: []byte("family")}}, StartRow: []byte("user6284781860667377211"),
			TimeRange: &hbasepb.TimeRange{From: proto.Uint64(0), To: proto.Uint64(1<<63 - 1)}, Caching: proto.Uint32(57)},
		NumberOfRows: proto.Uint32(57), ClientHandlesPartials: proto.Bool(true), ClientHandlesHeartbeats: proto.Bool(true),
		LimitOfRows: proto.Uint32(57)}
	buf := make([]byte, 0, 512)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := appendMessageFast(buf[:0], m); !ok {
				b.Fatal("not encoded")
			}
		}
	})
	b.Run("protobuf", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := (proto.MarshalOptions{}).MarshalAppend(buf[:0], m); err != nil {
				b.Fatal(err)
			}
		}
	})
}
