package filter

import (
	"testing"

	"github.com/weirdb/weir/internal/cell"
)

var tsTable = []cell.Cell{
	kv("r1", "f", "a", 5, "a5"), kv("r1", "f", "a", 4, "a4"), kv("r1", "f", "a", 3, "a3"),
	kv("r1", "f", "a", 2, "a2"), kv("r1", "f", "a", 1, "a1"),
	kv("r1", "f", "b", 3, "b3"), kv("r1", "f", "b", 2, "b2"),
	kv("r2", "f", "a", 9, "x"),
}

func TestKeyFilters(t *testing.T) {
	runScanCases(t, []scanCase{
		{"key only", NewKeyOnlyFilter(false), table[:3], []string{"r1: f:a@1= f:b@1= g:a@1="}},
		{"key only len as val", NewKeyOnlyFilter(true), []cell.Cell{kv("r", "f", "q", 1, "hello"), kv("r", "f", "z", 1, "")},
			[]string{"r: f:q@1=\x00\x00\x00\x05 f:z@1=\x00\x00\x00\x00"}},
		{"first key only", NewFirstKeyOnlyFilter(), table, []string{"r1: f:a@1=1", "r2: f:a@1=4", "r3: f:b@1=6"}},
		{"timestamps", must(NewTimestampsFilter([]int64{4, 2}, false)), tsTable, []string{"r1: f:a@4=a4 f:a@2=a2 f:b@2=b2"}},
		{"timestamps with hints", must(NewTimestampsFilter([]int64{2, 4, 4}, true)), tsTable, []string{"r1: f:a@4=a4 f:a@2=a2 f:b@2=b2"}},
		{"timestamps none", must(NewTimestampsFilter(nil, true)), tsTable, []string{}},
		{"timestamps literal", &TimestampsFilter{Timestamps: []int64{9, 3}}, tsTable, []string{"r1: f:a@3=a3 f:b@3=b3", "r2: f:a@9=x"}},
	})
}

func TestTimestampsFilterHints(t *testing.T) {
	f := must(NewTimestampsFilter([]int64{2, 4}, true))
	c := kv("r", "f", "q", 3, "")
	if rc := f.FilterCell(&c); rc != SeekNextUsingHint {
		t.Fatalf("rc = %v", rc)
	}
	h, ok := f.NextCellHint(&c)
	if !ok || h.Timestamp != 2 || string(h.Qualifier) != "q" || h.Type != typeMaximum {
		t.Fatalf("hint = %v, %v", h, ok)
	}
	c.Timestamp = 1
	if rc := f.FilterCell(&c); rc != NextCol {
		t.Fatalf("below the smallest timestamp: rc = %v", rc)
	}
	noHint := must(NewTimestampsFilter([]int64{2, 4}, false))
	c.Timestamp = 3
	if rc := noHint.FilterCell(&c); rc != Skip {
		t.Fatalf("without hints: rc = %v", rc)
	}
	if _, ok := noHint.NextCellHint(&c); ok {
		t.Fatal("a filter without hints gave one")
	}
}
