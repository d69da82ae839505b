package filter

import (
	"testing"

	"github.com/weirdb/weir/internal/cell"
)

var stopTable = []cell.Cell{
	kv("r1", "f", "a", 1, "1"), kv("r1", "f", "b", 1, "2"),
	kv("r2", "f", "a", 1, "3"), kv("r2", "f", "b", 1, "stop"), kv("r2", "f", "c", 1, "4"),
	kv("r3", "f", "a", 1, "5"),
}

var zeroTable = []cell.Cell{
	kv("r1", "f", "a", 1, "1"), kv("r1", "f", "b", 1, "2"),
	kv("r2", "f", "a", 1, "1"), kv("r2", "f", "b", 1, "0"),
	kv("r3", "f", "a", 1, "3"),
	kv("r4", "f", "a", 1, "0"),
}

func TestWrapperFilters(t *testing.T) {
	notStop := func() Filter { return must(NewValueFilter(NotEqual, bin("stop"))) }
	runScanCases(t, []scanCase{
		// The cells of r2 before "stop" are still returned; then the scan ends.
		{"while match value", must(NewWhileMatchFilter(notStop())), stopTable, []string{
			"r1: f:a@1=1 f:b@1=2", "r2: f:a@1=3"}},
		{"while match row", must(NewWhileMatchFilter(must(NewRowFilter(Less, bin("r3"))))), table, []string{r1All, r2All}},
		{"while match always", must(NewWhileMatchFilter(NewKeyOnlyFilter(false))), table[:2], []string{"r1: f:a@1= f:b@1="}},
		{"skip drops whole rows", must(NewSkipFilter(must(NewValueFilter(NotEqual, bin("0"))))), zeroTable, []string{
			"r1: f:a@1=1 f:b@1=2", "r3: f:a@1=3"}},
		{"skip transforms", must(NewSkipFilter(NewKeyOnlyFilter(true))), table[:1], []string{"r1: f:a@1=\x00\x00\x00\x01"}},
	})
}

func TestWhileMatchEndsScan(t *testing.T) {
	w := must(NewWhileMatchFilter(must(NewValueFilter(NotEqual, bin("stop")))))
	scan(t, w, stopTable)
	if !w.FilterAllRemaining() {
		t.Fatal("WhileMatchFilter should be done")
	}
	if w.FilterRowKey(&stopTable[5]) != true {
		t.Fatal("a finished WhileMatchFilter must skip rows")
	}
}
