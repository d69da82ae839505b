package hbaserpc

import (
	"testing"

	"github.com/weirdb/weir/internal/hbasepb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// TestRecycledDecodesMatchFresh: a call's header and request decoded into
// memory a previous call used and gave back hold exactly what a fresh
// decode holds, whatever that previous call carried (no field left over
// from it), in every order of the ordinary Gets and Mutates.
func TestRecycledDecodesMatchFresh(t *testing.T) {
	var params [][]byte
	for _, m := range ordinaryMessages() {
		switch m.(type) {
		case *hbasepb.GetRequest, *hbasepb.MutateRequest:
			b, err := proto.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			params = append(params, b)
		}
	}
	hdrs := []*hbasepb.RequestHeader{
		{CallId: proto.Uint32(1), MethodName: proto.String("Get"), RequestParam: proto.Bool(true), Priority: proto.Uint32(200), Timeout: proto.Uint32(60000)},
		{CallId: proto.Uint32(2), MethodName: proto.String("Mutate"), RequestParam: proto.Bool(true),
			CellBlockMeta: &hbasepb.CellBlockMeta{Length: proto.Uint32(40)}},
	}
	for round := range 3 {
		for i, pa := range params {
			for j, pb := range params {
				h := hdrs[(i+j+round)%len(hdrs)]
				hb, err := proto.Marshal(h)
				if err != nil {
					t.Fatal(err)
				}
				frame := append(protowire.AppendVarint(nil, uint64(len(hb))), hb...)
				call, _, err := parseRequest(frame, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !proto.Equal(call.Header, h) {
					t.Fatalf("round %d, %d then %d: header %v, want %v", round, i, j, call.Header, h)
				}
				for _, p := range [][]byte{pa, pb} {
					call.Param = p
					var got, want proto.Message
					if g, ok := call.DecodeGet(); ok {
						w, _ := DecodeGetRequest(p)
						got, want = g, w
					} else if m, ok := call.DecodeMutate(); ok {
						w, _ := DecodeMutateRequest(p)
						got, want = m, w
					} else {
						t.Fatalf("param %x: neither fast decoder took it", p)
					}
					if !proto.Equal(got, want) {
						t.Fatalf("round %d, %d then %d: recycled decode %v, fresh %v", round, i, j, got, want)
					}
				}
				call.recycle()
			}
		}
	}
}
