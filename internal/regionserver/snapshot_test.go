package regionserver

import (
	"encoding/json"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/meta"
)

func orderParam(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	p, err := proto.Marshal(wrapperspb.Bytes(b))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDecodeSnapshotOrder checks that the master's orders are parsed into
// their types and that malformed ones are refused before anything runs.
func TestDecodeSnapshotOrder(t *testing.T) {
	rr := func(s, e string) meta.RowRange { return meta.RowRange{Start: []byte(s), End: []byte(e)} }
	for _, tc := range []struct {
		name   string
		method string
		req    any
		raw    []byte // sent instead of req when set
		want   any    // the decoded order; nil: an error of class class
		class  string
	}{
		{"take", meta.SnapshotTakeImage, meta.ImageRequest{Snapshot: "s1", TableID: 3, Flush: true},
			nil, takeImageOrder{Snapshot: "s1", TableID: 3, Flush: true}, ""},
		{"delete", meta.SnapshotDeleteImage, meta.ImageRequest{Snapshot: "s-1.x"}, nil, deleteImageOrder{Snapshot: "s-1.x"}, ""},
		{"clear", meta.SnapshotClearTable, meta.ClearTableRequest{TableID: 9}, nil, meta.ClearTableRequest{TableID: 9}, ""},
		{"take without table", meta.SnapshotTakeImage, meta.ImageRequest{Snapshot: "s1"}, nil, nil, hbaserpc.DoNotRetryIOException},
		{"path in the name", meta.SnapshotDeleteImage, meta.ImageRequest{Snapshot: "../store"}, nil, nil, hbaserpc.DoNotRetryIOException},
		{"empty name", meta.SnapshotTakeImage, meta.ImageRequest{TableID: 1}, nil, nil, hbaserpc.DoNotRetryIOException},
		{"clear table 0", meta.SnapshotClearTable, meta.ClearTableRequest{}, nil, nil, hbaserpc.DoNotRetryIOException},
		{"copy into itself", meta.SnapshotCopyImage, meta.CopyImageRequest{Snapshot: "s", SrcTableID: 2, DstTableID: 2},
			nil, nil, hbaserpc.DoNotRetryIOException},
		{"copy with an empty range", meta.SnapshotCopyImage, meta.CopyImageRequest{Snapshot: "s", SrcTableID: 2, DstTableID: 3,
			Ranges: []meta.RowRange{rr("m", "m")}}, nil, nil, hbaserpc.DoNotRetryIOException},
		{"copy with overlapping ranges", meta.SnapshotCopyImage, meta.CopyImageRequest{Snapshot: "s", SrcTableID: 2, DstTableID: 3,
			Ranges: []meta.RowRange{rr("", "m"), rr("k", "")}}, nil, nil, hbaserpc.DoNotRetryIOException},
		{"copy after an unbounded range", meta.SnapshotCopyImage, meta.CopyImageRequest{Snapshot: "s", SrcTableID: 2, DstTableID: 3,
			Ranges: []meta.RowRange{rr("a", ""), rr("z", "")}}, nil, nil, hbaserpc.DoNotRetryIOException},
		{"not a BytesValue", meta.SnapshotTakeImage, nil, []byte{0xff, 0xff}, nil, hbaserpc.DoNotRetryIOException},
		{"unknown method", "Frob", meta.ImageRequest{Snapshot: "s"}, nil, nil, hbaserpc.UnsupportedOperation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.raw
			if p == nil {
				p = orderParam(t, tc.req)
			}
			got, err := decodeSnapshotOrder(tc.method, p)
			if tc.want == nil {
				var re *hbaserpc.Error
				if !errors.As(err, &re) || re.Class != tc.class {
					t.Fatalf("decodeSnapshotOrder = %#v, %v; want a %s", got, err, tc.class)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(tc.want)
			if string(gj) != string(wj) || (got == nil) != (tc.want == nil) {
				t.Fatalf("decoded %T %s, want %T %s", got, gj, tc.want, wj)
			}
		})
	}
	ok := meta.CopyImageRequest{Snapshot: "s", SrcTableID: 2, DstTableID: 3, Ranges: []meta.RowRange{rr("", "g"), rr("g", "p"), rr("p", "")}}
	if got, err := decodeSnapshotOrder(meta.SnapshotCopyImage, orderParam(t, ok)); err != nil || len(got.(meta.CopyImageRequest).Ranges) != 3 {
		t.Fatalf("a table's three regions: %v, %v", got, err)
	}
}

// FuzzDecodeSnapshotOrder: no request makes the decoder panic, and what it
// accepts names a valid snapshot (a path component of the data directory).
func FuzzDecodeSnapshotOrder(f *testing.F) {
	f.Add(meta.SnapshotCopyImage, []byte(`{"snapshot":"s","src_table_id":1,"dst_table_id":2,"ranges":[{"start":"","end":"Zw=="},{"start":"Zw==","end":""}]}`))
	f.Add(meta.SnapshotTakeImage, []byte(`{"snapshot":"s","table_id":1}`))
	f.Add(meta.SnapshotDeleteImage, []byte(`{"snapshot":".."}`))
	f.Add(meta.SnapshotClearTable, []byte(`{"table_id":4}`))
	f.Fuzz(func(t *testing.T, method string, body []byte) {
		p, err := proto.Marshal(wrapperspb.Bytes(body))
		if err != nil {
			t.Skip()
		}
		got, err := decodeSnapshotOrder(method, p)
		if err != nil {
			return
		}
		var name string
		switch r := got.(type) {
		case takeImageOrder:
			name = r.Snapshot
		case deleteImageOrder:
			name = r.Snapshot
		case meta.CopyImageRequest:
			name = r.Snapshot
		case meta.ClearTableRequest:
			if r.TableID == 0 {
				t.Fatal("accepted table id 0")
			}
			return
		default:
			t.Fatalf("decoded to %T", got)
		}
		if err := meta.ValidateSnapshotName(name); err != nil {
			t.Fatalf("accepted snapshot name %q: %v", name, err)
		}
	})
}
