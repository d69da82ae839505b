package filter

import (
	"testing"

	"github.com/weirdb/weir/internal/cell"
)

var prefixTable = []cell.Cell{
	kv("a1", "f", "q", 1, "1"), kv("r", "f", "q", 1, "2"), kv("r2", "f", "q", 1, "3"),
	kv("r2x", "f", "q", 1, "4"), kv("r3", "f", "q", 1, "5"), kv("s", "f", "q", 1, "6"),
}

func TestRowFilters(t *testing.T) {
	seq := func(vals ...float32) func() float32 {
		return func() float32 { v := vals[0]; vals = vals[1:]; return v }
	}
	// The row SCVF drops must not count towards the page.
	pageAfterSCVF := must(NewFilterList(MustPassAll, scvf(false, true), must(NewPageFilter(1))))
	pageAfterSCVF2 := must(NewFilterList(MustPassAll, scvf(false, true), must(NewPageFilter(2))))
	runScanCases(t, []scanCase{
		{"page 2 of 3 rows", must(NewPageFilter(2)), table, []string{r1All, r2All}},
		{"page 0", must(NewPageFilter(0)), table, []string{}},
		{"page larger than table", must(NewPageFilter(10)), table, []string{r1All, r2All, r3All}},
		{"page counts rows kept by others", pageAfterSCVF, scvTable, []string{"r1: f:a@1=1 f:b@1=x"}},
		{"page 2 counts rows kept by others", pageAfterSCVF2, scvTable, []string{"r1: f:a@1=1 f:b@1=x", "r3: f:b@1=z"}},
		{"prefix", NewPrefixFilter([]byte("r2")), prefixTable, []string{"r2: f:q@1=3", "r2x: f:q@1=4"}},
		{"prefix literal", &PrefixFilter{Prefix: []byte("r2")}, prefixTable, []string{"r2: f:q@1=3", "r2x: f:q@1=4"}},
		{"nil prefix drops all", NewPrefixFilter(nil), prefixTable, []string{}},
		{"empty prefix keeps all", NewPrefixFilter([]byte{}), table, []string{r1All, r2All, r3All}},
		{"inclusive stop", NewInclusiveStopFilter([]byte("r2")), table, []string{r1All, r2All}},
		{"inclusive stop before all", NewInclusiveStopFilter([]byte("a")), table, []string{}},
		{"random", must(NewRandomRowFilter(0.5, seq(0.1, 0.9, 0.3))), table, []string{r1All, r3All}},
		{"random never", must(NewRandomRowFilter(-1, nil)), table, []string{}},
		{"random always", must(NewRandomRowFilter(2, nil)), table, []string{r1All, r2All, r3All}},
	})
}

func TestPrefixFilterEndsScan(t *testing.T) {
	f := NewPrefixFilter([]byte("r2"))
	rows := scan(t, f, prefixTable)
	if len(rows) != 2 || !f.FilterAllRemaining() {
		t.Fatalf("rows %v, FilterAllRemaining %v: the scan should end after r3", render(rows), f.FilterAllRemaining())
	}
}

func TestPageFilterEndsScan(t *testing.T) {
	f := must(NewPageFilter(1))
	if f.FilterAllRemaining() {
		t.Fatal("done before any row")
	}
	scan(t, f, table)
	if !f.FilterAllRemaining() {
		t.Fatal("not done after a page")
	}
}
