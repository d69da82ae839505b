package filter

import (
	"testing"

	"github.com/weirdb/weir/internal/cell"
)

var scvTable = []cell.Cell{
	kv("r1", "f", "a", 1, "1"), kv("r1", "f", "b", 1, "x"),
	kv("r2", "f", "a", 1, "2"), kv("r2", "f", "b", 1, "y"),
	kv("r3", "f", "b", 1, "z"), // no f:a
	kv("r4", "f", "a", 2, "2"), kv("r4", "f", "a", 1, "1"), kv("r4", "f", "b", 1, "w"),
	kv("r5", "f", "b", 1, "v"), kv("r5", "g", "a", 1, "1"), // g:a is another column
}

func scvf(ifMissing, latestOnly bool) *SingleColumnValueFilter {
	f := must(NewSingleColumnValueFilter([]byte("f"), []byte("a"), Equal, bin("1")))
	f.FilterIfMissing, f.LatestVersionOnly = ifMissing, latestOnly
	return f
}

func TestSingleColumnValueFilter(t *testing.T) {
	excl := must(NewSingleColumnValueExcludeFilter([]byte("f"), []byte("a"), Equal, bin("1")))
	exclAll := must(NewSingleColumnValueExcludeFilter([]byte("f"), []byte("a"), Equal, bin("1")))
	exclAll.LatestVersionOnly = false
	less := must(NewSingleColumnValueFilter([]byte("f"), []byte("a"), Less, bin("2")))
	less.FilterIfMissing = true
	runScanCases(t, []scanCase{
		{"keep missing, latest only", scvf(false, true), scvTable, []string{
			"r1: f:a@1=1 f:b@1=x", "r3: f:b@1=z", "r5: f:b@1=v g:a@1=1"}},
		{"drop missing, latest only", scvf(true, true), scvTable, []string{"r1: f:a@1=1 f:b@1=x"}},
		// Any matching version keeps the row, with all its versions.
		{"keep missing, all versions", scvf(false, false), scvTable, []string{
			"r1: f:a@1=1 f:b@1=x", "r3: f:b@1=z", "r4: f:a@2=2 f:a@1=1 f:b@1=w", "r5: f:b@1=v g:a@1=1"}},
		{"drop missing, all versions", scvf(true, false), scvTable, []string{
			"r1: f:a@1=1 f:b@1=x", "r4: f:a@2=2 f:a@1=1 f:b@1=w"}},
		{"less keeps values below operand", less, scvTable, []string{"r1: f:a@1=1 f:b@1=x"}},
		{"exclude drops tested column", excl, scvTable, []string{"r1: f:b@1=x", "r3: f:b@1=z", "r5: f:b@1=v g:a@1=1"}},
		{"exclude all versions", exclAll, scvTable, []string{"r1: f:b@1=x", "r3: f:b@1=z", "r4: f:b@1=w", "r5: f:b@1=v g:a@1=1"}},
	})
}

func TestSingleColumnValueFilterEssentialFamily(t *testing.T) {
	tests := []struct {
		ifMissing bool
		family    string
		want      bool
	}{
		{false, "f", true}, {false, "g", true}, {true, "f", true}, {true, "g", false},
	}
	for _, tc := range tests {
		if got := scvf(tc.ifMissing, true).IsFamilyEssential([]byte(tc.family)); got != tc.want {
			t.Errorf("filterIfMissing=%v family %s: %v, want %v", tc.ifMissing, tc.family, got, tc.want)
		}
	}
}
