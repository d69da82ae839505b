package regionserver

import (
	"testing"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/meta"
)

func TestTableNamesCache(t *testing.T) {
	var tn tableNames
	spec := func(name []byte) *hbasepb.RegionSpecifier {
		return &hbasepb.RegionSpecifier{Type: hbasepb.RegionSpecifier_REGION_NAME.Enum(), Value: name}
	}
	want := []meta.TableName{{Namespace: "default", Qualifier: "t"}, {Namespace: "ns", Qualifier: "t"}}
	for round := 0; round < 2; round++ { // parsed, then cached
		for _, table := range want {
			for _, start := range []string{"", "row,with,commas"} {
				name, _ := meta.RegionName(table, []byte(start), 42)
				if got, ok := tn.tableOf(spec(name)); !ok || got != table {
					t.Fatalf("round %d: %q: %v %v, want %v", round, name, got, ok, table)
				}
			}
		}
	}
	if n := len(*tn.m.Load()); n != 2 {
		t.Fatalf("%d cached tables, want 2", n)
	}
	for _, bad := range [][]byte{nil, []byte("no-comma"), []byte("bad:name:x,,1"), []byte("t2,row,notanumber")} {
		if got, ok := tn.tableOf(spec(bad)); ok {
			t.Errorf("%q: got %v, want not ok", bad, got)
		}
	}
	enc := &hbasepb.RegionSpecifier{Type: hbasepb.RegionSpecifier_ENCODED_REGION_NAME.Enum(), Value: []byte("abc")}
	if _, ok := tn.tableOf(enc); ok {
		t.Error("an encoded region name gave a table")
	}
}
