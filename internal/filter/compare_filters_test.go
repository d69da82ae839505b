package filter

import (
	"testing"
)

func TestCompareFilters(t *testing.T) {
	regex := must(NewRegexStringComparator("^[45]$", DefaultRegexFlags))
	runScanCases(t, []scanCase{
		{"row equal", must(NewRowFilter(Equal, bin("r2"))), table, []string{r2All}},
		{"row less keeps smaller keys", must(NewRowFilter(Less, bin("r2"))), table, []string{r1All}},
		{"row greater or equal", must(NewRowFilter(GreaterOrEqual, bin("r2"))), table, []string{r2All, r3All}},
		{"row not equal", must(NewRowFilter(NotEqual, bin("r2"))), table, []string{r1All, r3All}},
		{"row noop drops all", must(NewRowFilter(NoOp, bin("r2"))), table, []string{}},
		{"row prefix comparator", must(NewRowFilter(Equal, NewBinaryPrefixComparator([]byte("r")))), table, []string{r1All, r2All, r3All}},
		// NextRow from FamilyFilter ends only family f's part of the row.
		{"family equal", must(NewFamilyFilter(Equal, bin("g"))), table, []string{"r1: g:a@1=3"}},
		{"family less", must(NewFamilyFilter(Less, bin("g"))), table, []string{"r1: f:a@1=1 f:b@1=2", r2All, r3All}},
		{"qualifier equal", must(NewQualifierFilter(Equal, bin("a"))), table, []string{"r1: f:a@1=1 g:a@1=3", "r2: f:a@1=4"}},
		{"qualifier greater", must(NewQualifierFilter(Greater, bin("a"))), table, []string{"r1: f:b@1=2", "r2: f:c@1=5", r3All}},
		{"value less or equal", must(NewValueFilter(LessOrEqual, bin("2"))), table, []string{"r1: f:a@1=1 f:b@1=2"}},
		{"value regex", must(NewValueFilter(Equal, regex)), table, []string{r2All}},
		{"value substring not equal", must(NewValueFilter(NotEqual, NewSubstringComparator("5"))), table, []string{r1All, "r2: f:a@1=4", r3All}},
		{"value null comparator drops all", must(NewValueFilter(Equal, NullComparator{})), table, []string{}},
	})
}
