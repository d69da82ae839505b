package hbaserpc

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
)

func scanResponseSeeds() []*hbasepb.ScanResponse {
	return []*hbasepb.ScanResponse{
		{},
		{CellsPerResult: []uint32{10, 10, 3}, ScannerId: proto.Uint64(1 << 40), MoreResults: proto.Bool(true),
			Ttl: proto.Uint32(60000), MoreResultsInRegion: proto.Bool(true), MvccReadPoint: proto.Uint64(99)},
		{CellsPerResult: []uint32{1}, PartialFlagPerResult: []bool{true}, HeartbeatMessage: proto.Bool(false), Stale: proto.Bool(false),
			MoreResults: proto.Bool(false)},
		{Results: []*hbasepb.Result{{AssociatedCellCount: proto.Int32(2)}}, MoreResults: proto.Bool(true)},
		{CellsPerResult: []uint32{2}, Cursor: &hbasepb.Cursor{Row: []byte("r")}},
		// Long unpacked runs with values of one and more bytes.
		{CellsPerResult: []uint32{10, 300, 0, 1 << 31, 127, 128}, PartialFlagPerResult: []bool{false, true, false, false, true, false},
			MoreResultsInRegion: proto.Bool(false)},
	}
}

// TestScanResponseFastPath checks that ordinary scan responses take the
// hand decoder and decode to what the runtime decodes, that packed runs
// are read, and that the rest is declined.
func TestScanResponseFastPath(t *testing.T) {
	for i, m := range scanResponseSeeds() {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var got hbasepb.ScanResponse
		fast := decodeScanResponseFast(b, &got)
		if want := m.Results == nil && m.Cursor == nil; fast != want {
			t.Errorf("seed %d: fast path taken %v, want %v", i, fast, want)
		}
		if fast && !proto.Equal(&got, m) {
			t.Errorf("seed %d: decoded %v, want %v", i, &got, m)
		}
	}
	packed := protowire.AppendTag(nil, 1, protowire.BytesType)
	packed = protowire.AppendBytes(packed, protowire.AppendVarint(protowire.AppendVarint(nil, 7), 300))
	var got hbasepb.ScanResponse
	if !decodeScanResponseFast(packed, &got) || len(got.CellsPerResult) != 2 || got.CellsPerResult[1] != 300 {
		t.Errorf("packed cells_per_result: %v", got.CellsPerResult)
	}
	// Runs of one field split by another, and bool values other than 0
	// and 1, as the runtime reads them.
	split := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 5)
	split = protowire.AppendVarint(protowire.AppendTag(split, 7, protowire.VarintType), 2)
	split = protowire.AppendVarint(protowire.AppendTag(split, 1, protowire.VarintType), 1<<40)
	split = protowire.AppendVarint(protowire.AppendTag(split, 7, protowire.VarintType), 0)
	var want hbasepb.ScanResponse
	if err := proto.Unmarshal(split, &want); err != nil {
		t.Fatal(err)
	}
	got.Reset()
	if !decodeScanResponseFast(split, &got) || !proto.Equal(&got, &want) {
		t.Errorf("split runs: decoded %v, want %v", &got, &want)
	}
	twice := protowire.AppendVarint(protowire.AppendTag(nil, 2, protowire.VarintType), 1)
	twice = protowire.AppendVarint(protowire.AppendTag(twice, 2, protowire.VarintType), 2)
	if decodeScanResponseFast(twice, &hbasepb.ScanResponse{}) {
		t.Error("a singular field seen twice was decoded by hand")
	}
	if decodeScanResponseFast(nil, &hbasepb.ScanResponse{ScannerId: proto.Uint64(1)}) {
		t.Error("decoded into a non-empty message (the runtime merges)")
	}
	if decodeScanResponseFast(nil, &hbasepb.GetResponse{}) {
		t.Error("decoded a GetResponse")
	}
}

// FuzzDecodeScanResponseFast holds the hand decoder to proto.Unmarshal:
// whenever it accepts input, the runtime accepts it too and decodes the
// same message.
func FuzzDecodeScanResponseFast(f *testing.F) {
	for _, m := range scanResponseSeeds() {
		b, _ := proto.Marshal(m)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var fast hbasepb.ScanResponse
		if !decodeScanResponseFast(b, &fast) {
			return
		}
		var want hbasepb.ScanResponse
		if err := proto.Unmarshal(b, &want); err != nil {
			t.Fatalf("hand decoder accepted what the runtime rejects (%v): %x", err, b)
		}
		if !proto.Equal(&fast, &want) {
			t.Fatalf("hand decoder: %v, runtime: %v", &fast, &want)
		}
		// Into a reused message, whose repeated fields are empty with
		// room (a lending scanner's): the same message.
		reused := hbasepb.ScanResponse{CellsPerResult: make([]uint32, 0, 4), PartialFlagPerResult: make([]bool, 0, 4)}
		if !decodeScanResponseFast(b, &reused) || !proto.Equal(&reused, &want) {
			t.Fatalf("hand decoder into a reused message: %v, runtime: %v", &reused, &want)
		}
	})
}
