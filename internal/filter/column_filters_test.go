package filter

import (
	"testing"

	"github.com/weirdb/weir/internal/cell"
)

var colTable = []cell.Cell{
	kv("r1", "f", "a", 1, "1"), kv("r1", "f", "b1", 1, "2"), kv("r1", "f", "b2", 1, "3"),
	kv("r1", "f", "c", 1, "4"), kv("r1", "f", "d", 1, "5"),
	kv("r1", "g", "a", 1, "6"), kv("r1", "g", "b", 1, "7"),
	kv("r2", "f", "b", 1, "8"), kv("r2", "f", "c", 1, "9"),
}

var versionTable = []cell.Cell{
	kv("r1", "f", "a", 2, "a2"), kv("r1", "f", "a", 1, "a1"),
	kv("r1", "f", "b", 2, "b2"), kv("r1", "f", "b", 1, "b1"),
	kv("r1", "f", "c", 2, "c2"), kv("r1", "f", "d", 2, "d2"),
	kv("r2", "f", "x", 1, "x1"), kv("r2", "f", "y", 1, "y1"), kv("r2", "f", "z", 1, "z1"),
}

func TestColumnFilters(t *testing.T) {
	runScanCases(t, []scanCase{
		{"column prefix", NewColumnPrefixFilter([]byte("b")), colTable, []string{
			"r1: f:b1@1=2 f:b2@1=3 g:b@1=7", "r2: f:b@1=8"}},
		{"column prefix longer than qualifier", NewColumnPrefixFilter([]byte("bb")), colTable, []string{}},
		{"multiple prefixes", NewMultipleColumnPrefixFilter([]byte("c"), []byte("a")), colTable, []string{
			"r1: f:a@1=1 f:c@1=4 g:a@1=6", "r2: f:c@1=9"}},
		{"multiple prefixes none", NewMultipleColumnPrefixFilter(), colTable[:2], []string{"r1: f:a@1=1 f:b1@1=2"}},
		// HBase tests only the largest prefix <= the qualifier: "ab"
		// hides "a" from "ac".
		{"overlapping prefixes quirk", NewMultipleColumnPrefixFilter([]byte("a"), []byte("ab")),
			[]cell.Cell{kv("r", "f", "aa", 1, ""), kv("r", "f", "ab", 1, ""), kv("r", "f", "ac", 1, "")},
			[]string{"r: f:aa@1= f:ab@1="}},
		{"range [b1, c)", NewColumnRangeFilter([]byte("b1"), true, []byte("c"), false), colTable, []string{
			"r1: f:b1@1=2 f:b2@1=3"}},
		{"range [b, c)", NewColumnRangeFilter([]byte("b"), true, []byte("c"), false), colTable, []string{
			"r1: f:b1@1=2 f:b2@1=3 g:b@1=7", "r2: f:b@1=8"}},
		{"range (b1, c]", NewColumnRangeFilter([]byte("b1"), false, []byte("c"), true), colTable, []string{
			"r1: f:b2@1=3 f:c@1=4", "r2: f:c@1=9"}},
		{"range open min", NewColumnRangeFilter(nil, false, []byte("a"), true), colTable, []string{
			"r1: f:a@1=1 g:a@1=6"}},
		{"range open max", NewColumnRangeFilter([]byte("c"), true, nil, false), colTable, []string{
			"r1: f:c@1=4 f:d@1=5", "r2: f:c@1=9"}},
		{"range min above max", NewColumnRangeFilter([]byte("d"), true, []byte("a"), true), colTable, []string{}},
		// Newest versions of the first two columns, then the scan ends.
		{"column count get", must(NewColumnCountGetFilter(2)), versionTable, []string{"r1: f:a@2=a2 f:b@2=b2"}},
		{"column count get zero", must(NewColumnCountGetFilter(0)), versionTable, []string{}},
		{"pagination limit 2 offset 1", must(NewColumnPaginationFilter(2, 1)), versionTable, []string{
			"r1: f:b@2=b2 f:c@2=c2", "r2: f:y@1=y1 f:z@1=z1"}},
		{"pagination offset past row", must(NewColumnPaginationFilter(2, 3)), versionTable, []string{"r1: f:d@2=d2"}},
		{"pagination limit 0", must(NewColumnPaginationFilter(0, 0)), versionTable, []string{}},
		// Columns are counted across the families of a row.
		{"pagination across families", must(NewColumnPaginationFilter(2, 1)), colTable, []string{
			"r1: f:b1@1=2 f:b2@1=3", "r2: f:c@1=9"}},
		{"pagination from qualifier", must(NewColumnPaginationFilterAt(2, []byte("b"))), versionTable, []string{
			"r1: f:b@2=b2 f:c@2=c2", "r2: f:x@1=x1 f:y@1=y1"}},
		{"pagination from missing qualifier", must(NewColumnPaginationFilterAt(1, []byte("bb"))), versionTable, []string{
			"r1: f:c@2=c2", "r2: f:x@1=x1"}},
	})
}
