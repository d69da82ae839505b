package filter

import (
	"testing"

	"github.com/weirdb/weir/internal/cell"
)

func TestFilterListScans(t *testing.T) {
	and := func(fs ...Filter) *FilterList { return must(NewFilterList(MustPassAll, fs...)) }
	or := func(fs ...Filter) *FilterList { return must(NewFilterList(MustPassOne, fs...)) }
	row := func(op CompareOp, s string) Filter { return must(NewRowFilter(op, bin(s))) }
	qual := func(s string) Filter { return must(NewQualifierFilter(Equal, bin(s))) }
	val := func(op CompareOp, s string) Filter { return must(NewValueFilter(op, bin(s))) }
	prefix := func(s string) Filter { return NewColumnPrefixFilter([]byte(s)) }
	hintTable := []cell.Cell{
		kv("r", "f", "a", 1, "1"), kv("r", "f", "b", 1, "2"), kv("r", "f", "c", 1, "3"),
		kv("r", "f", "d1", 1, "4"), kv("r", "f", "e", 1, "5"),
	}
	runScanCases(t, []scanCase{
		{"and row and qualifier", and(row(GreaterOrEqual, "r2"), qual("a")), table, []string{"r2: f:a@1=4"}},
		{"or row or qualifier", or(row(Equal, "r1"), qual("c")), table, []string{r1All, "r2: f:c@1=5"}},
		{"nested or of ands", or(and(row(Equal, "r1"), qual("b")), and(row(Equal, "r3"), qual("b"))), table, []string{
			"r1: f:b@1=2", r3All}},
		{"and of ors", and(or(qual("a"), qual("c")), or(row(Equal, "r2"), val(Equal, "3"))), table, []string{
			"r1: g:a@1=3", r2All}},
		// AND: the larger step wins and the hint is the furthest one.
		{"and hints take max", and(NewColumnRangeFilter([]byte("c"), true, nil, false), prefix("d")), hintTable, []string{"r: f:d1@1=4"}},
		// OR: a filter that asked to seek is not shown the cells before its
		// hint, but its seek still counts when merging.
		{"or hints take min", or(prefix("b"), prefix("d")), hintTable, []string{"r: f:b@1=2 f:d1@1=4"}},
		{"or with all-version pagination", or(must(NewColumnPaginationFilter(1, 0)), qual("c")), versionTable, []string{
			"r1: f:a@2=a2 f:c@2=c2", "r2: f:x@1=x1"}},
		// AND: later filters only see cells earlier ones include, so the
		// page counts only rows the value filter keeps.
		{"and page after value", and(val(NotEqual, "4"), must(NewPageFilter(2))), table, []string{r1All, "r2: f:c@1=5"}},
		{"and while match", and(must(NewWhileMatchFilter(row(Less, "r3"))), NewKeyOnlyFilter(true)), table, []string{
			"r1: f:a@1=\x00\x00\x00\x01 f:b@1=\x00\x00\x00\x01 g:a@1=\x00\x00\x00\x01",
			"r2: f:a@1=\x00\x00\x00\x01 f:c@1=\x00\x00\x00\x01"}},
		{"or while match keeps scanning", or(must(NewWhileMatchFilter(row(Less, "r2"))), row(Equal, "r3")), table, []string{r1All, r3All}},
		{"or skip and row", or(must(NewSkipFilter(val(NotEqual, "0"))), row(Equal, "r2")), zeroTable, []string{
			"r1: f:a@1=1 f:b@1=2", "r2: f:a@1=1 f:b@1=0", "r3: f:a@1=3"}},
		{"and skip and row", and(must(NewSkipFilter(val(NotEqual, "0"))), row(NotEqual, "r3")), zeroTable, []string{
			"r1: f:a@1=1 f:b@1=2"}},
		// Transforms: AND through all filters, OR only through those that
		// included the cell.
		{"and transform chain", and(NewKeyOnlyFilter(true), qual("a")), table[:3], []string{
			"r1: f:a@1=\x00\x00\x00\x01 g:a@1=\x00\x00\x00\x01"}},
		{"or transform only includers", or(qual("a"), and(qual("b"), NewKeyOnlyFilter(false))), table[:3], []string{
			"r1: f:a@1=1 f:b@1= g:a@1=3"}},
		{"and exclude filter row cells", and(must(NewSingleColumnValueExcludeFilter([]byte("f"), []byte("a"), Equal, bin("1"))), NewKeyOnlyFilter(false)),
			scvTable, []string{"r1: f:b@1=", "r3: f:b@1=", "r5: f:b@1= g:a@1="}},
		{"and prefix filters all see row keys", and(NewPrefixFilter([]byte("r2")), row(NotEqual, "r2x")), prefixTable, []string{"r2: f:q@1=3"}},
		// OR's FilterRow stops at the first filter keeping the row, so the
		// second page does not count r1 and lets three rows through.
		{"or of pages", or(must(NewPageFilter(1)), must(NewPageFilter(2))), table, []string{r1All, r2All, r3All}},
	})
}

func TestFilterListAllRemaining(t *testing.T) {
	done := must(NewPageFilter(0))
	live := NewKeyOnlyFilter(false)
	tests := []struct {
		op   Operator
		fs   []Filter
		want bool
	}{
		{MustPassAll, nil, false},
		{MustPassOne, nil, false},
		{MustPassAll, []Filter{done, live}, true},
		{MustPassOne, []Filter{done, live}, false},
		{MustPassOne, []Filter{done, done}, true},
	}
	for _, tc := range tests {
		if got := must(NewFilterList(tc.op, tc.fs...)).FilterAllRemaining(); got != tc.want {
			t.Errorf("%v %d filters: %v, want %v", tc.op, len(tc.fs), got, tc.want)
		}
	}
}

func TestMergeReturnCodes(t *testing.T) {
	tests := []struct {
		rc, local, and, or ReturnCode
	}{
		{Include, Include, Include, Include},
		{Include, Skip, Skip, Include},
		{Skip, IncludeAndNextCol, NextCol, Include},
		{IncludeAndNextCol, NextCol, NextCol, IncludeAndNextCol},
		{NextCol, NextRow, NextRow, NextCol},
		{NextRow, NextRow, NextRow, NextRow},
		{IncludeAndSeekNextRow, Skip, NextRow, Include},
		{IncludeAndSeekNextRow, NextRow, NextRow, IncludeAndSeekNextRow},
		{IncludeAndNextCol, IncludeAndSeekNextRow, IncludeAndSeekNextRow, IncludeAndNextCol},
		{SeekNextUsingHint, Include, SeekNextUsingHint, Include},
		{SeekNextUsingHint, NextRow, SeekNextUsingHint, Skip},
		{NextCol, SeekNextUsingHint, SeekNextUsingHint, Skip},
		{SeekNextUsingHint, SeekNextUsingHint, SeekNextUsingHint, SeekNextUsingHint},
	}
	for _, tc := range tests {
		if got := mergeAND(tc.rc, tc.local); got != tc.and {
			t.Errorf("AND(%v, %v) = %v, want %v", tc.rc, tc.local, got, tc.and)
		}
		if got := mergeOR(tc.rc, tc.local); got != tc.or {
			t.Errorf("OR(%v, %v) = %v, want %v", tc.rc, tc.local, got, tc.or)
		}
	}
}

func TestFilterListEssentialAndHasFilterRow(t *testing.T) {
	l := must(NewFilterList(MustPassAll, scvf(true, true), NewKeyOnlyFilter(false)))
	if !l.HasFilterRow() || !l.IsFamilyEssential([]byte("g")) {
		t.Error("list should need whole rows and every family (KeyOnly looks at none)")
	}
	only := must(NewFilterList(MustPassOne, scvf(true, true)))
	if only.IsFamilyEssential([]byte("g")) || !only.IsFamilyEssential([]byte("f")) {
		t.Error("only the tested family is essential")
	}
	if must(NewFilterList(MustPassOne, NewKeyOnlyFilter(false))).HasFilterRow() {
		t.Error("KeyOnlyFilter needs no whole rows")
	}
}

func TestPassesAll(t *testing.T) {
	page, err := NewPageFilter(3)
	if err != nil {
		t.Fatal(err)
	}
	empty := func(op Operator, fs ...Filter) Filter { return &FilterList{Operator: op, Filters: fs} }
	for _, tc := range []struct {
		name string
		f    Filter
		want bool
	}{
		{"nil", nil, true},
		{"empty AND", empty(MustPassAll), true},
		{"empty OR", empty(MustPassOne), true},
		{"nested empty lists", empty(MustPassOne, empty(MustPassAll), empty(MustPassOne, empty(MustPassAll))), true},
		{"a PageFilter", page, false},
		{"a list with a PageFilter", empty(MustPassAll, page), false},
		{"a PageFilter deep in empty lists", empty(MustPassAll, empty(MustPassOne, page)), false},
	} {
		if got := PassesAll(tc.f); got != tc.want {
			t.Errorf("%s: PassesAll = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPageOnly(t *testing.T) {
	page := func(n int64) Filter { return &PageFilter{PageSize: n} }
	list := func(op Operator, fs ...Filter) Filter { return &FilterList{Operator: op, Filters: fs} }
	for _, tc := range []struct {
		name string
		f    Filter
		n    int64
		ok   bool
	}{
		{"nil", nil, 0, false},
		{"a PageFilter", page(7), 7, true},
		{"a PageFilter of no rows", page(0), 0, false},
		{"in an AND list", list(MustPassAll, page(3)), 3, true},
		{"with empty lists", list(MustPassAll, list(MustPassOne), page(3), list(MustPassAll)), 3, true},
		{"nested AND lists", list(MustPassAll, list(MustPassAll, page(4))), 4, true},
		{"in an OR list", list(MustPassOne, page(3)), 0, false},
		{"two PageFilters", list(MustPassAll, page(3), page(5)), 0, false},
		{"with a filter of cells", list(MustPassAll, page(3), NewPrefixFilter([]byte("a"))), 0, false},
		{"an empty list", list(MustPassAll), 0, false},
	} {
		if n, ok := PageOnly(tc.f); n != tc.n || ok != tc.ok {
			t.Errorf("%s: PageOnly = %d, %v; want %d, %v", tc.name, n, ok, tc.n, tc.ok)
		}
	}
}
