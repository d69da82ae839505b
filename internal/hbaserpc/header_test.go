package hbaserpc

import (
	"bytes"
	"testing"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// frameHeader returns the header bytes and the rest of an encoded frame.
func frameHeader(t *testing.T, frame []byte) (hdr, rest []byte) {
	t.Helper()
	hdr, rest, err := consumeDelimited(frame[4:])
	if err != nil {
		t.Fatal(err)
	}
	return hdr, rest
}

// The hand-written encoders produce the bytes the protobuf runtime
// produces for the same header, frame for frame.
func TestHeaderEncodersMatchProto(t *testing.T) {
	cells := []cell.Cell{{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 7, Type: cell.TypePut, Value: []byte("v")}}
	msg := getReq("row")
	for _, tc := range []struct {
		name  string
		h     requestHeader
		cells []cell.Cell
		msg   proto.Message
	}{
		{name: "plain", h: requestHeader{callID: 0, method: "Get"}, msg: msg},
		{name: "timeout", h: requestHeader{callID: 1 << 31, method: "Multi", timeoutMs: 60000}, msg: msg},
		{name: "cells", h: requestHeader{callID: 300, method: "Mutate"}, cells: cells, msg: msg},
		{name: "empty-msg", h: requestHeader{callID: 5, method: "GetClusterId", timeoutMs: 1}},
	} {
		t.Run("request/"+tc.name, func(t *testing.T) {
			got, err := appendRequestFrame([]byte("prefix"), tc.h, tc.msg, tc.cells)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(got, []byte("prefix")) {
				t.Fatal("dst not appended to")
			}
			got = got[len("prefix"):]
			ph := &hbasepb.RequestHeader{CallId: proto.Uint32(tc.h.callID), MethodName: proto.String(tc.h.method), RequestParam: proto.Bool(true)}
			if tc.h.timeoutMs > 0 {
				ph.Timeout = proto.Uint32(tc.h.timeoutMs)
			}
			m := tc.msg
			if m == nil {
				m = emptyMsg
			}
			want, err := appendFrame(nil, ph, m, tc.cells)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("frame\n got %x\nwant %x", got, want)
			}
			// And the server's parser reads it back.
			hb, _ := frameHeader(t, got)
			call, _, err := parseRequest(got[4:], nil)
			if err != nil {
				t.Fatal(err)
			}
			var back hbasepb.RequestHeader
			if err := proto.Unmarshal(hb, &back); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(call.Header, &back) || call.ID != tc.h.callID || call.Method != tc.h.method {
				t.Fatalf("parsed %v (id %d, method %q); want %v", call.Header, call.ID, call.Method, &back)
			}
		})
	}
	for _, tc := range []struct {
		name  string
		id    uint32
		cells []cell.Cell
	}{{name: "plain", id: 9}, {name: "cells", id: 1 << 20, cells: cells}} {
		t.Run("response/"+tc.name, func(t *testing.T) {
			resp := &hbasepb.GetResponse{Result: &hbasepb.Result{AssociatedCellCount: proto.Int32(int32(len(tc.cells)))}}
			got, err := appendResponseFrame(nil, tc.id, resp, tc.cells)
			if err != nil {
				t.Fatal(err)
			}
			want, err := appendFrame(nil, &hbasepb.ResponseHeader{CallId: proto.Uint32(tc.id)}, resp, tc.cells)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("frame\n got %x\nwant %x", got, want)
			}
			h, _, err := parseResponseHeader(got[4:])
			if err != nil {
				t.Fatal(err)
			}
			if h.callID != tc.id || h.exception != nil {
				t.Fatalf("parsed %+v", h)
			}
			if cb, _ := cellBlockLen(tc.cells); h.cbLen != uint32(cb) {
				t.Fatalf("cellblock length %d; want %d", h.cbLen, cb)
			}
		})
	}
}

// Headers the fast parsers do not handle (trace info, attributes, an
// exception, unknown fields) still parse, through the protobuf runtime.
func TestHeaderParsersFallBack(t *testing.T) {
	req := &hbasepb.RequestHeader{
		CallId:     proto.Uint32(3),
		MethodName: proto.String("Scan"),
		TraceInfo:  &hbasepb.RPCTInfo{Headers: map[string]string{"traceparent": "00-1"}},
		Attribute:  []*hbasepb.NameBytesPair{{Name: proto.String("a"), Value: []byte("b")}},
		Priority:   proto.Uint32(200),
	}
	hb, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	hb = protowire.AppendTag(hb, 99, protowire.VarintType) // an unknown field
	hb = protowire.AppendVarint(hb, 1)
	call, _, err := parseRequest(protowire.AppendBytes(nil, hb), nil)
	if err != nil {
		t.Fatal(err)
	}
	var want hbasepb.RequestHeader
	if err := proto.Unmarshal(hb, &want); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(call.Header, &want) || call.ID != 3 || call.Method != "Scan" {
		t.Fatalf("parsed %v; want %v", call.Header, &want)
	}

	resp := &hbasepb.ResponseHeader{CallId: proto.Uint32(4), Exception: &hbasepb.ExceptionResponse{ExceptionClassName: proto.String(RegionMoved)}}
	rb, err := proto.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	h, _, err := parseResponseHeader(protowire.AppendBytes(nil, rb))
	if err != nil {
		t.Fatal(err)
	}
	if h.callID != 4 || h.exception.GetExceptionClassName() != RegionMoved {
		t.Fatalf("parsed %+v", h)
	}

	if _, _, err := parseRequest(protowire.AppendBytes(nil, protowire.AppendTag(nil, reqMethodName, protowire.BytesType)), nil); err == nil {
		t.Fatal("truncated header parsed")
	}
	noID, _ := proto.Marshal(&hbasepb.RequestHeader{MethodName: proto.String("Get")})
	if _, _, err := parseRequest(protowire.AppendBytes(nil, noID), nil); err == nil {
		t.Fatal("header without call id parsed")
	}
}

// Method names are interned per connection, up to a bound.
func TestMethodNamesIntern(t *testing.T) {
	var names methodNames
	a := names.intern([]byte("Get"))
	if b := names.intern([]byte("Get")); a != b || len(names.m) != 1 {
		t.Fatalf("interned %q %q, %d names", a, b, len(names.m))
	}
	if n := testing.AllocsPerRun(100, func() { names.intern([]byte("Get")) }); n != 0 {
		t.Fatalf("%v allocations per interned lookup", n)
	}
	for i := range 2 * maxInternedNames {
		names.intern([]byte{byte(i), byte(i >> 8)})
	}
	if len(names.m) > maxInternedNames {
		t.Fatalf("%d names interned; bound is %d", len(names.m), maxInternedNames)
	}
}

// FuzzRequestHeader: whatever the fast parser accepts, the protobuf runtime
// reads the same way.
func FuzzRequestHeader(f *testing.F) {
	for _, h := range []*hbasepb.RequestHeader{
		{CallId: proto.Uint32(1), MethodName: proto.String("Get"), RequestParam: proto.Bool(true), Timeout: proto.Uint32(100)},
		{CallId: proto.Uint32(2), CellBlockMeta: &hbasepb.CellBlockMeta{Length: proto.Uint32(40)}, Priority: proto.Uint32(5)},
		{CallId: proto.Uint32(3), CellBlockMeta: &hbasepb.CellBlockMeta{}},
	} {
		b, _ := proto.Marshal(h)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, hb []byte) {
		var p parsedRequest
		if !p.parseFast(hb, &methodNames{}) {
			return
		}
		var want hbasepb.RequestHeader
		if err := proto.Unmarshal(hb, &want); err != nil {
			t.Fatalf("fast parser accepted %x; protobuf: %v", hb, err)
		}
		if !proto.Equal(&p.hdr, &want) {
			t.Fatalf("%x: fast %v; protobuf %v", hb, &p.hdr, &want)
		}
	})
}

// FuzzResponseHeader: as FuzzRequestHeader, for response headers.
func FuzzResponseHeader(f *testing.F) {
	for _, h := range []*hbasepb.ResponseHeader{
		{CallId: proto.Uint32(1)},
		{CallId: proto.Uint32(2), CellBlockMeta: &hbasepb.CellBlockMeta{Length: proto.Uint32(1 << 20)}},
	} {
		b, _ := proto.Marshal(h)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, hb []byte) {
		h, ok := parseResponseHeaderFast(hb)
		if !ok {
			return
		}
		var want hbasepb.ResponseHeader
		if err := proto.Unmarshal(hb, &want); err != nil {
			t.Fatalf("fast parser accepted %x; protobuf: %v", hb, err)
		}
		if h.callID != want.GetCallId() || h.cbLen != want.GetCellBlockMeta().GetLength() || want.GetException() != nil {
			t.Fatalf("%x: fast %+v; protobuf %v", hb, h, &want)
		}
	})
}

// TestHeaderParsersTakeFastPath: ordinary headers, the ones every call
// carries, are decoded by hand; without this the fuzz targets above would
// pass for parsers that decline everything.
func TestHeaderParsersTakeFastPath(t *testing.T) {
	hb, err := proto.Marshal(&hbasepb.RequestHeader{CallId: proto.Uint32(7), MethodName: proto.String("Get"),
		RequestParam: proto.Bool(true), CellBlockMeta: &hbasepb.CellBlockMeta{Length: proto.Uint32(40)},
		Priority: proto.Uint32(5), Timeout: proto.Uint32(9)})
	if err != nil {
		t.Fatal(err)
	}
	var p parsedRequest
	if !p.parseFast(hb, &methodNames{}) || p.callID != 7 || p.method != "Get" || !p.param || p.cbLen != 40 || p.prio != 5 || p.timeout != 9 {
		t.Fatalf("request header %x: fast parser declined or misread it: %v", hb, &p.hdr)
	}
	rb, err := proto.Marshal(&hbasepb.ResponseHeader{CallId: proto.Uint32(3), CellBlockMeta: &hbasepb.CellBlockMeta{Length: proto.Uint32(12)}})
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := parseResponseHeaderFast(rb); !ok || h.callID != 3 || h.cbLen != 12 {
		t.Fatalf("response header %x: fast parser declined or misread it: %+v %v", rb, h, ok)
	}
}
