package master

import (
	"bytes"
	"slices"
	"testing"
)

// TestMetaRowOrder: rows sort as in HBase's hbase:meta, and decode back.
func TestMetaRowOrder(t *testing.T) {
	want := []string{
		"t",             // a table state row comes before the table's regions
		"t,,",           // the scan start for table t
		"t,,1700.abc.",  // t's first region
		"t,a,b,1700.x.", // start key "a,b": commas inside the key
		"t,g,1700.y.",
		"t\x00x", // a longer table name: its 0x00 sorts below the stop row's ' '
		"t ,,",   // the scan stop for table t
		"t0,,1.z.",
		"u",
	}
	got := slices.Clone(want)
	slices.SortFunc(got, func(a, b string) int {
		var o metaRowOrder
		return bytes.Compare(o.Encode(nil, []byte(a)), o.Encode(nil, []byte(b)))
	})
	if !slices.Equal(got, want) {
		t.Fatalf("meta order:\n got %q\nwant %q", got, want)
	}
	for _, r := range want {
		var o metaRowOrder
		if d := o.Decode(o.Encode(nil, []byte(r))); string(d) != r {
			t.Errorf("round trip of %q gave %q", r, d)
		}
	}
}
