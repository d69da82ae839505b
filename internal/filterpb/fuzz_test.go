package filterpb

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
)

// FuzzDecodeFilter feeds arbitrary serialized_filter bytes under every
// known class name: decoding must never panic, and a filter it accepts
// must re-encode and run over a few cells without panicking.
func FuzzDecodeFilter(f *testing.F) {
	classIndex := map[string]uint8{}
	for i, c := range FilterClasses {
		classIndex[c] = uint8(i)
	}
	for _, tc := range filterCases() {
		pb := tc.pb(f)
		f.Add(classIndex[pb.GetName()], pb.GetSerializedFilter())
	}
	f.Add(uint8(0), []byte{0x08, 0xff})
	f.Fuzz(func(t *testing.T, idx uint8, data []byte) {
		class := FilterClasses[int(idx)%len(FilterClasses)]
		flt, err := DecodeFilter(&hbasepb.Filter{Name: proto.String(class), SerializedFilter: data})
		if err != nil {
			return
		}
		if _, err := EncodeFilter(flt); err != nil {
			t.Fatalf("decoded %s does not re-encode: %v", class, err)
		}
		run(flt, testCells)
	})
}
