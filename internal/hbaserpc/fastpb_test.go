package hbaserpc

import (
	"bytes"
	"testing"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
	"google.golang.org/protobuf/proto"
)

func spec(name string) *hbasepb.RegionSpecifier {
	return &hbasepb.RegionSpecifier{Type: hbasepb.RegionSpecifier_REGION_NAME.Enum(), Value: []byte(name)}
}

// ordinaryMessages are the messages the fast paths exist for, as the Go
// client, the Java client and the server build them.
func ordinaryMessages() []proto.Message {
	return []proto.Message{
		&hbasepb.GetRequest{Region: spec("usertable,,1.abc."), Get: &hbasepb.Get{Row: []byte("user1")}},
		&hbasepb.GetRequest{Region: spec("r"), Get: &hbasepb.Get{
			Row: []byte("user2"), Column: []*hbasepb.Column{{Family: []byte("f"), Qualifier: [][]byte{[]byte("q0"), {}}}, {Family: []byte("g")}},
			TimeRange: &hbasepb.TimeRange{From: proto.Uint64(0), To: proto.Uint64(1 << 62)}, MaxVersions: proto.Uint32(3),
			CacheBlocks: proto.Bool(true), ExistenceOnly: proto.Bool(false), Consistency: hbasepb.Consistency_STRONG.Enum()}},
		&hbasepb.MutateRequest{Region: spec("r"), Mutation: &hbasepb.MutationProto{Row: []byte("user3"),
			MutateType: hbasepb.MutationProto_PUT.Enum(), AssociatedCellCount: proto.Int32(10),
			Durability: hbasepb.MutationProto_SYNC_WAL.Enum()}},
		&hbasepb.MutateRequest{Region: spec("r"), NonceGroup: proto.Uint64(7), Mutation: &hbasepb.MutationProto{Row: []byte("user4"),
			MutateType: hbasepb.MutationProto_INCREMENT.Enum(), AssociatedCellCount: proto.Int32(1), Nonce: proto.Uint64(1 << 63),
			Timestamp: proto.Uint64(5)}},
		&hbasepb.GetResponse{Result: &hbasepb.Result{AssociatedCellCount: proto.Int32(10)}},
		&hbasepb.GetResponse{Result: &hbasepb.Result{Exists: proto.Bool(true), Stale: proto.Bool(false), Partial: proto.Bool(true)}},
		&hbasepb.GetResponse{},
		&hbasepb.MutateResponse{Processed: proto.Bool(true)},
		// A Go client's scanner open (YCSB's scan), next and close.
		&hbasepb.ScanRequest{Region: spec("usertable,user5,1.abc."), Scan: &hbasepb.Scan{
			Column: []*hbasepb.Column{{Family: []byte("family")}}, StartRow: []byte("user6284781860667377211"),
			TimeRange: &hbasepb.TimeRange{From: proto.Uint64(0), To: proto.Uint64(1<<63 - 1)}, Caching: proto.Uint32(57)},
			NumberOfRows: proto.Uint32(57), ClientHandlesPartials: proto.Bool(true), ClientHandlesHeartbeats: proto.Bool(true),
			LimitOfRows: proto.Uint32(57)},
		// YCSB's scan as its hbase2 binding sends it: caching and a
		// PageFilter, no limit.
		&hbasepb.ScanRequest{Region: spec("usertable,user5,1.abc."), Scan: &hbasepb.Scan{
			Column: []*hbasepb.Column{{Family: []byte("family")}}, StartRow: []byte("user6284781860667377211"),
			Filter:  &hbasepb.Filter{Name: proto.String("org.apache.hadoop.hbase.filter.PageFilter"), SerializedFilter: []byte{0x08, 0x39}},
			Caching: proto.Uint32(57)},
			NumberOfRows: proto.Uint32(57), ClientHandlesPartials: proto.Bool(true), ClientHandlesHeartbeats: proto.Bool(true)},
		&hbasepb.ScanRequest{Region: spec("r"), Scan: &hbasepb.Scan{Filter: &hbasepb.Filter{Name: proto.String("")}}},
		&hbasepb.ScanRequest{ScannerId: proto.Uint64(1 << 40), NextCallSeq: proto.Uint64(3), NumberOfRows: proto.Uint32(100),
			ClientHandlesPartials: proto.Bool(true), ClientHandlesHeartbeats: proto.Bool(true)},
		&hbasepb.ScanRequest{ScannerId: proto.Uint64(9), CloseScanner: proto.Bool(true)},
		// Every field a hand-encoded scan may carry.
		&hbasepb.ScanRequest{Region: spec("r"), Scan: &hbasepb.Scan{
			Column:   []*hbasepb.Column{{Family: []byte("f"), Qualifier: [][]byte{[]byte("q")}}, {Family: []byte{}}},
			StartRow: []byte{}, StopRow: []byte("z"), TimeRange: &hbasepb.TimeRange{To: proto.Uint64(5)}, MaxVersions: proto.Uint32(2),
			CacheBlocks: proto.Bool(false), BatchSize: proto.Uint32(3), MaxResultSize: proto.Uint64(1 << 21), StoreLimit: proto.Uint32(4),
			StoreOffset: proto.Uint32(5), LoadColumnFamiliesOnDemand: proto.Bool(true), Small: proto.Bool(false),
			Reversed: proto.Bool(true), Consistency: hbasepb.Consistency_TIMELINE.Enum(), Caching: proto.Uint32(6),
			AllowPartialResults: proto.Bool(true), MvccReadPoint: proto.Uint64(7), IncludeStartRow: proto.Bool(false),
			IncludeStopRow: proto.Bool(true), ReadType: hbasepb.Scan_PREAD.Enum(), NeedCursorResult: proto.Bool(true),
			QueryMetricsEnabled: proto.Bool(false)},
			ScannerId: proto.Uint64(1), NumberOfRows: proto.Uint32(0), CloseScanner: proto.Bool(false), NextCallSeq: proto.Uint64(0),
			TrackScanMetrics: proto.Bool(true), Renew: proto.Bool(false), LimitOfRows: proto.Uint32(1 << 31)},
		&hbasepb.MutateResponse{Processed: proto.Bool(true), Result: &hbasepb.Result{AssociatedCellCount: proto.Int32(-1)}},
	}
}

// TestFastPathsTaken: the ordinary messages take the fast paths, and
// encode to the very bytes the protobuf runtime produces.
func TestFastPathsTaken(t *testing.T) {
	for _, m := range ordinaryMessages() {
		b, ok := appendMessageFast(nil, m)
		if !ok {
			t.Fatalf("%T %v: no fast encoding", m, m)
		}
		want, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, want) {
			t.Fatalf("%T %v: fast %x; protobuf %x", m, m, b, want)
		}
		var got proto.Message
		switch m.(type) {
		case *hbasepb.GetRequest:
			got, ok = DecodeGetRequest(b)
		case *hbasepb.MutateRequest:
			got, ok = DecodeMutateRequest(b)
		case *hbasepb.ScanRequest:
			got, ok = DecodeScanRequest(b)
		default:
			got = m.ProtoReflect().New().Interface()
			ok = decodeResponseFast(b, got)
		}
		if !ok || !proto.Equal(got, m) {
			t.Fatalf("%T %v: fast decoding ok=%v, %v", m, m, ok, got)
		}
	}
}

// TestFastPathsDeclined: what the fast paths do not handle is left to the
// protobuf runtime, which then sees the same message.
func TestFastPathsDeclined(t *testing.T) {
	for _, m := range []proto.Message{
		&hbasepb.GetRequest{Region: spec("r"), Get: &hbasepb.Get{Row: []byte("x"), Filter: &hbasepb.Filter{Name: proto.String("f")}}},
		&hbasepb.GetRequest{Region: spec("r")}, // get missing: required
		&hbasepb.GetRequest{Region: &hbasepb.RegionSpecifier{Value: []byte("r")}, Get: &hbasepb.Get{Row: []byte("x")}},
		&hbasepb.MutateRequest{Region: spec("r"), Mutation: &hbasepb.MutationProto{Row: []byte("x")}, Condition: &hbasepb.Condition{Row: []byte("x")}},
		&hbasepb.MutateRequest{Region: spec("r"), Mutation: &hbasepb.MutationProto{Row: []byte("x"),
			ColumnValue: []*hbasepb.MutationProto_ColumnValue{{Family: []byte("f")}}}},
		&hbasepb.GetResponse{Result: &hbasepb.Result{Cell: []*hbasepb.Cell{{Row: []byte("x")}}}},
		&hbasepb.ScanRequest{Region: spec("r"), Scan: &hbasepb.Scan{Filter: &hbasepb.Filter{}}}, // name missing: required
		&hbasepb.ScanRequest{Scan: &hbasepb.Scan{Column: []*hbasepb.Column{{}}}},                // family missing: required
		&hbasepb.ScanRequest{Scan: &hbasepb.Scan{Attribute: []*hbasepb.NameBytesPair{{Name: proto.String("a")}}}},
		&hbasepb.ScanRequest{Scan: &hbasepb.Scan{CfTimeRange: []*hbasepb.ColumnFamilyTimeRange{{}}}},
	} {
		if b, ok := appendMessageFast([]byte("keep"), m); ok || string(b) != "keep" {
			t.Fatalf("%T %v: fast encoding taken (%x)", m, m, b)
		}
	}
	// Decoding: a second region field, which protobuf merges.
	b, _ := proto.Marshal(&hbasepb.GetRequest{Region: spec("r"), Get: &hbasepb.Get{Row: []byte("x")}})
	r, _ := proto.Marshal(spec("s"))
	b = append(b, 0x0a, byte(len(r)))
	b = append(b, r...)
	if _, ok := DecodeGetRequest(b); ok {
		t.Fatal("repeated singular field decoded by the fast path")
	}
}

// TestFrameFastMatchesGeneric: a frame with a hand-encoded message is the
// frame the generic encoder makes, cellblock included.
func TestFrameFastMatchesGeneric(t *testing.T) {
	cells := []cell.Cell{{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 5, Type: cell.TypePut, Value: bytes.Repeat([]byte("v"), 300)}}
	for _, m := range ordinaryMessages() {
		fast, err := appendResponseFrame([]byte("x"), 9, m, cells)
		if err != nil {
			t.Fatal(err)
		}
		cbLen, _ := cellBlockLen(cells)
		slow, err := appendFrame([]byte("x"), &hbasepb.ResponseHeader{CallId: proto.Uint32(9)}, m, cells)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fast, slow) {
			t.Fatalf("%T %v (cellblock %d): fast frame %x; generic %x", m, m, cbLen, fast, slow)
		}
	}
}

func fuzzSeeds(f *testing.F) {
	for _, m := range ordinaryMessages() {
		b, _ := proto.Marshal(m)
		f.Add(b)
	}
}

// FuzzDecodeRequestFast: whatever the hand decoders accept, the protobuf
// runtime accepts and reads the same way.
func FuzzDecodeRequestFast(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		response := func(m proto.Message) func([]byte) (proto.Message, bool) {
			return func(b []byte) (proto.Message, bool) { return m, decodeResponseFast(b, m) }
		}
		decoders := []func([]byte) (proto.Message, bool){
			func(b []byte) (proto.Message, bool) { return DecodeGetRequest(b) },
			func(b []byte) (proto.Message, bool) { return DecodeMutateRequest(b) },
			func(b []byte) (proto.Message, bool) { return DecodeScanRequest(b) },
			response(&hbasepb.GetResponse{}),
			response(&hbasepb.MutateResponse{}),
		}
		for _, decode := range decoders {
			got, ok := decode(b)
			if !ok {
				continue
			}
			want := got.ProtoReflect().New().Interface()
			if err := proto.Unmarshal(b, want); err != nil {
				t.Fatalf("fast %T decoder accepted %x; protobuf: %v", got, b, err)
			}
			if !proto.Equal(got, want) {
				t.Fatalf("%x: fast %v; protobuf %v", b, got, want)
			}
		}
	})
}

// FuzzEncodeMessageFast: whatever message the hand encoders take, the
// protobuf runtime could encode too, and reads back from their bytes.
func FuzzEncodeMessageFast(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, m := range []proto.Message{&hbasepb.GetRequest{}, &hbasepb.MutateRequest{}, &hbasepb.GetResponse{}, &hbasepb.MutateResponse{},
			&hbasepb.ScanRequest{}} {
			if (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(b, m) != nil {
				continue
			}
			enc, ok := appendMessageFast(nil, m)
			if !ok {
				continue
			}
			if _, err := proto.Marshal(m); err != nil {
				t.Fatalf("fast encoder took %v, which protobuf refuses: %v", m, err)
			}
			back := m.ProtoReflect().New().Interface()
			if err := proto.Unmarshal(enc, back); err != nil {
				t.Fatalf("%v encoded to %x, unreadable: %v", m, enc, err)
			}
			if !proto.Equal(back, m) {
				t.Fatalf("%v encoded to %x, read back as %v", m, enc, back)
			}
		}
	})
}

func BenchmarkDecodeGetRequest(b *testing.B) {
	msg := &hbasepb.GetRequest{Region: spec("usertable,user5,1700000000000.0123456789abcdef0123456789abcdef."),
		Get: &hbasepb.Get{Row: []byte("user6284781860667377211"), Column: []*hbasepb.Column{{Family: []byte("family")}}}}
	enc, _ := proto.Marshal(msg)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := DecodeGetRequest(enc); !ok {
				b.Fatal("not decoded")
			}
		}
	})
	b.Run("protobuf", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var r hbasepb.GetRequest
			if err := proto.Unmarshal(enc, &r); err != nil {
				b.Fatal(err)
			}
		}
	})
}
