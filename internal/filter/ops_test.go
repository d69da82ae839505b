package filter

import (
	"errors"
	"testing"
)

func TestCompareOpMatchesAndFiltersOut(t *testing.T) {
	// results are comparator.Compare(value): <0 means operand < value.
	tests := []struct {
		op         CompareOp
		lt, eq, gt bool // Matches for results -1, 0, 1
	}{
		{Less, true, false, false},
		{LessOrEqual, true, true, false},
		{Equal, false, true, false},
		{NotEqual, true, false, true},
		{GreaterOrEqual, false, true, true},
		{Greater, false, false, true},
		{NoOp, false, false, false},
	}
	for _, tc := range tests {
		for i, r := range []int{-1, 0, 1} {
			want := []bool{tc.lt, tc.eq, tc.gt}[i]
			if got := tc.op.Matches(r); got != want {
				t.Errorf("%v.Matches(%d) = %v, want %v", tc.op, r, got, want)
			}
			// The filter reads the op with the cell on the left.
			wantOut := !tc.op.Matches(-r) || tc.op == NoOp
			if got := tc.op.FiltersOut(r); got != wantOut {
				t.Errorf("%v.FiltersOut(%d) = %v, want %v", tc.op, r, got, wantOut)
			}
		}
	}
	if CompareOp(7).Valid() || !NoOp.Valid() {
		t.Error("Valid is wrong")
	}
}

// TestCompareDirection pins HBase's direction: the comparator's operand is
// on the left. A ValueFilter LESS "5" keeps values below "5"; a
// checkAndMutate LESS "5" succeeds when the stored value is above "5".
func TestCompareDirection(t *testing.T) {
	c := bin("5")
	if Less.FiltersOut(c.Compare([]byte("3"))) {
		t.Error("LESS 5 should keep a cell with value 3")
	}
	if !Less.FiltersOut(c.Compare([]byte("7"))) {
		t.Error("LESS 5 should drop a cell with value 7")
	}
	if !Less.Matches(c.Compare([]byte("7"))) || Less.Matches(c.Compare([]byte("3"))) {
		t.Error("checkAndMutate LESS 5 should match stored 7 and not stored 3")
	}
}

func TestConstructorsRejectBadParameters(t *testing.T) {
	tests := []struct {
		name string
		err  error
	}{
		{"negative page", second(NewPageFilter(-1))},
		{"nil comparator", second(NewValueFilter(Equal, nil))},
		{"unknown op", second(NewRowFilter(CompareOp(9), bin("x")))},
		{"scvf noop", second(NewSingleColumnValueFilter([]byte("f"), []byte("q"), NoOp, bin("x")))},
		{"scvf nil comparator", second(NewSingleColumnValueFilter([]byte("f"), []byte("q"), Equal, nil))},
		{"scvef nil comparator", second(NewSingleColumnValueExcludeFilter([]byte("f"), []byte("q"), Equal, nil))},
		{"list zero operator", second(NewFilterList(0, NewKeyOnlyFilter(false)))},
		{"list nil entry", second(NewFilterList(MustPassAll, nil))},
		{"list nested invalid", second(NewFilterList(MustPassAll, &PageFilter{PageSize: -3}))},
		{"negative column count", second(NewColumnCountGetFilter(-1))},
		{"negative pagination limit", second(NewColumnPaginationFilter(-1, 0))},
		{"negative pagination offset", second(NewColumnPaginationFilter(1, -1))},
		{"nil column offset", second(NewColumnPaginationFilterAt(1, nil))},
		{"negative timestamp", second(NewTimestampsFilter([]int64{1, -2}, false))},
		{"nil while match", second(NewWhileMatchFilter(nil))},
		{"nil skip", second(NewSkipFilter(nil))},
		{"bit op", second(NewBitComparator([]byte{1}, 0))},
		{"bad regex", second(NewRegexStringComparator("(", DefaultRegexFlags))},
		{"regex in filter", (&ValueFilter{CompareFilter: CompareFilter{Op: Equal, Comparator: &RegexStringComparator{Pattern: "(?=x)"}}}).Validate()},
	}
	for _, tc := range tests {
		if !errors.Is(tc.err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", tc.name, tc.err)
		}
	}
	if _, err := NewColumnPaginationFilterAt(1, []byte{}); err != nil {
		t.Errorf("empty column offset: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }
