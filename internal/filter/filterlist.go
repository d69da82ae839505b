package filter

import (
	"fmt"

	"github.com/weirdb/weir/internal/cell"
)

// Operator is a FilterList's combination rule, numbered as HBase's
// protobuf FilterList.Operator; the zero value is invalid so that an unset
// operator is caught.
type Operator uint8

// FilterList operators.
const (
	// MustPassAll (AND): a cell or row passes when every filter passes it.
	MustPassAll Operator = 1
	// MustPassOne (OR): a cell or row passes when some filter passes it.
	MustPassOne Operator = 2
)

func (op Operator) String() string {
	switch op {
	case MustPassAll:
		return "MUST_PASS_ALL"
	case MustPassOne:
		return "MUST_PASS_ONE"
	}
	return fmt.Sprintf("Operator(%d)", uint8(op))
}

// FilterList combines Filters with HBase 2.x's FilterListWithAND or
// FilterListWithOR semantics. Lists nest. An empty list includes
// everything.
//
// AND merges verdicts by taking the largest step (e.g. Include with
// NextCol gives NextCol), stops asking filters once the merged verdict no
// longer includes the cell, seeks to the largest hint, and transforms a
// cell through every filter in order.
//
// OR merges by the smallest step, does not show a filter the cells its
// last verdict skips (HBASE-17678: a filter that said NextCol is not shown
// the rest of that column, and its NextCol still counts), seeks only when every live filter has a
// hint (to the smallest), and transforms a cell only through the filters
// that included it.
type FilterList struct {
	Operator Operator
	Filters  []Filter

	// AND: filters whose verdict on the current cell was a seek.
	seekHintFilters []int
	// OR, per filter: whether it included the current cell, and its last
	// verdict and cell (prevSet false: none to honour).
	included []bool
	prevRC   []ReturnCode
	prevSet  []bool
	prevCell []cell.Cell
}

// NewFilterList returns a validated list.
func NewFilterList(op Operator, filters ...Filter) (*FilterList, error) {
	l := &FilterList{Operator: op, Filters: filters}
	return l, l.Validate()
}

// Validate checks the operator and, recursively, the filters.
func (l *FilterList) Validate() error {
	if l.Operator != MustPassAll && l.Operator != MustPassOne {
		return invalidf("filter list operator %v is not MUST_PASS_ALL or MUST_PASS_ONE", l.Operator)
	}
	for i, f := range l.Filters {
		if f == nil {
			return invalidf("filter list entry %d is nil", i)
		}
		if err := validateFilter(f); err != nil {
			return fmt.Errorf("filter list entry %d: %w", i, err)
		}
	}
	return nil
}

func (l *FilterList) or() bool { return l.Operator == MustPassOne }

func (l *FilterList) ensureState() {
	if n := len(l.Filters); len(l.included) != n {
		l.included = make([]bool, n)
		l.prevRC = make([]ReturnCode, n)
		l.prevSet = make([]bool, n)
		l.prevCell = make([]cell.Cell, n)
	}
}

func (l *FilterList) Reset() {
	l.ensureState()
	for i, f := range l.Filters {
		f.Reset()
		l.included[i] = false
		l.prevSet[i] = false
		l.prevCell[i] = cell.Cell{}
	}
	l.seekHintFilters = l.seekHintFilters[:0]
}

func (l *FilterList) FilterAllRemaining() bool {
	if len(l.Filters) == 0 {
		return false
	}
	for _, f := range l.Filters {
		if f.FilterAllRemaining() != l.or() {
			// AND: one finished filter ends the list; OR: one live keeps it.
			return !l.or()
		}
	}
	return l.or()
}

// FilterRowKey asks every filter, even after the answer is known, because
// filters such as PrefixFilter update their row state here.
func (l *FilterList) FilterRowKey(first *cell.Cell) bool {
	if len(l.Filters) == 0 {
		return false
	}
	if l.or() {
		skip := true
		for _, f := range l.Filters {
			if !f.FilterAllRemaining() && !f.FilterRowKey(first) {
				skip = false
			}
		}
		return skip
	}
	skip := false
	for _, f := range l.Filters {
		if f.FilterAllRemaining() || f.FilterRowKey(first) {
			skip = true
		}
	}
	return skip
}

func (l *FilterList) FilterCell(c *cell.Cell) ReturnCode {
	if len(l.Filters) == 0 {
		return Include
	}
	l.ensureState()
	if l.or() {
		return l.filterCellOR(c)
	}
	return l.filterCellAND(c)
}

func (l *FilterList) filterCellAND(c *cell.Cell) ReturnCode {
	rc := Include
	l.seekHintFilters = l.seekHintFilters[:0]
	for i, f := range l.Filters {
		if f.FilterAllRemaining() {
			return NextRow
		}
		local := f.FilterCell(c)
		if local == SeekNextUsingHint {
			l.seekHintFilters = append(l.seekHintFilters, i)
		}
		rc = mergeAND(rc, local)
		// Later filters must not see a cell that is not included: they
		// would count it (HBASE-20565).
		if !isIncludeCode(rc) {
			return rc
		}
	}
	if len(l.seekHintFilters) > 0 {
		return SeekNextUsingHint
	}
	return rc
}

func (l *FilterList) filterCellOR(c *cell.Cell) ReturnCode {
	var rc ReturnCode
	merged := false
	for i, f := range l.Filters {
		l.included[i] = false
		if f.FilterAllRemaining() {
			continue
		}
		// A filter whose last verdict already covers c is not shown c
		// (its state must not change); that verdict stands for it.
		local, covered := l.coveredByPrev(i, c)
		if !covered {
			local = f.FilterCell(c)
		}
		l.prevRC[i] = local
		if local == Include || local == Skip {
			// The next cell always goes to this filter: no need to keep c.
			l.prevSet[i] = false
			l.prevCell[i] = cell.Cell{}
		} else {
			l.prevSet[i] = true
			l.prevCell[i] = keyClone(c)
		}
		if merged {
			rc = mergeOR(rc, local)
		} else {
			rc, merged = local, true
		}
		l.included[i] = isIncludeCode(local)
	}
	if !merged {
		// Every filter is done with the scan.
		return Skip
	}
	return rc
}

// coveredByPrev is FilterListWithOR.calculateReturnCodeByPrevCellAndRC
// (HBASE-17678, HBASE-18368): if filter i's last verdict skips past c, it
// returns that step without asking the filter. NextRow is judged per
// family, as the region applies it per store.
func (l *FilterList) coveredByPrev(i int, c *cell.Cell) (ReturnCode, bool) {
	if !l.prevSet[i] {
		return 0, false
	}
	prev := &l.prevCell[i]
	switch l.prevRC[i] {
	case SeekNextUsingHint:
		hint, ok := l.Filters[i].NextCellHint(prev)
		if ok && cell.Compare(c, &hint) < 0 {
			return SeekNextUsingHint, true
		}
	case NextCol, IncludeAndNextCol:
		if cell.SameColumn(prev, c) {
			return NextCol, true
		}
	case NextRow, IncludeAndSeekNextRow:
		if string(prev.Family) == string(c.Family) {
			return NextRow, true
		}
	}
	return 0, false
}

// mergeAND is FilterListWithAND.mergeReturnCode: the larger step wins.
func mergeAND(rc, local ReturnCode) ReturnCode {
	if rc == SeekNextUsingHint || local == SeekNextUsingHint {
		return SeekNextUsingHint
	}
	switch local {
	case Include:
		return rc
	case IncludeAndNextCol:
		switch rc {
		case Include, IncludeAndNextCol:
			return IncludeAndNextCol
		case IncludeAndSeekNextRow:
			return IncludeAndSeekNextRow
		case Skip, NextCol:
			return NextCol
		}
		return NextRow
	case IncludeAndSeekNextRow:
		switch rc {
		case Include, IncludeAndNextCol, IncludeAndSeekNextRow:
			return IncludeAndSeekNextRow
		}
		return NextRow
	case Skip:
		switch rc {
		case Include, Skip:
			return Skip
		case IncludeAndNextCol, NextCol:
			return NextCol
		}
		return NextRow
	case NextCol:
		switch rc {
		case IncludeAndSeekNextRow, NextRow:
			return NextRow
		}
		return NextCol
	}
	return NextRow
}

// mergeOR is FilterListWithOR.mergeReturnCode: the smaller step wins.
func mergeOR(rc, local ReturnCode) ReturnCode {
	switch local {
	case Include:
		return Include
	case IncludeAndNextCol:
		switch rc {
		case Include, Skip, SeekNextUsingHint:
			return Include
		}
		return IncludeAndNextCol
	case IncludeAndSeekNextRow:
		switch rc {
		case Include, Skip, SeekNextUsingHint:
			return Include
		case IncludeAndNextCol, NextCol:
			return IncludeAndNextCol
		}
		return IncludeAndSeekNextRow
	case Skip:
		switch rc {
		case Include, IncludeAndNextCol, IncludeAndSeekNextRow:
			return Include
		}
		return Skip
	case NextCol:
		switch rc {
		case Include:
			return Include
		case NextCol, NextRow:
			return NextCol
		case IncludeAndNextCol, IncludeAndSeekNextRow:
			return IncludeAndNextCol
		}
		return Skip
	case NextRow:
		switch rc {
		case Skip, SeekNextUsingHint:
			return Skip
		}
		return rc
	case SeekNextUsingHint:
		switch rc {
		case Include, IncludeAndNextCol, IncludeAndSeekNextRow:
			return Include
		case Skip, NextCol, NextRow:
			return Skip
		}
		return SeekNextUsingHint
	}
	return rc
}

func (l *FilterList) TransformCell(c cell.Cell) cell.Cell {
	l.ensureState()
	for i, f := range l.Filters {
		if !l.or() || l.included[i] {
			c = f.TransformCell(c)
		}
	}
	return c
}

func (l *FilterList) HasFilterRow() bool {
	for _, f := range l.Filters {
		if f.HasFilterRow() {
			return true
		}
	}
	return false
}

func (l *FilterList) FilterRowCells(cells []cell.Cell) []cell.Cell {
	for _, f := range l.Filters {
		cells = f.FilterRowCells(cells)
	}
	return cells
}

func (l *FilterList) FilterRow() bool {
	if len(l.Filters) == 0 {
		return false
	}
	for _, f := range l.Filters {
		if f.FilterRow() != l.or() {
			// AND: one drop drops; OR: one keep keeps.
			return !l.or()
		}
	}
	return l.or()
}

// NextCellHint is the largest hint of the AND filters that asked to seek,
// or the smallest hint of all live OR filters (none if any has none).
func (l *FilterList) NextCellHint(c *cell.Cell) (cell.Cell, bool) {
	var best cell.Cell
	found := false
	if l.or() {
		for _, f := range l.Filters {
			if f.FilterAllRemaining() {
				continue
			}
			h, ok := f.NextCellHint(c)
			if !ok {
				return cell.Cell{}, false
			}
			if !found || cell.Compare(&h, &best) < 0 {
				best, found = h, true
			}
		}
		return best, found
	}
	for _, i := range l.seekHintFilters {
		f := l.Filters[i]
		if f.FilterAllRemaining() {
			continue
		}
		h, ok := f.NextCellHint(c)
		if !ok {
			continue
		}
		if !found || cell.Compare(&h, &best) > 0 {
			best, found = h, true
		}
	}
	return best, found
}

func (l *FilterList) IsFamilyEssential(family []byte) bool {
	if len(l.Filters) == 0 {
		return true
	}
	for _, f := range l.Filters {
		if f.IsFamilyEssential(family) {
			return true
		}
	}
	return false
}

// PassesAll reports whether f lets every cell and row through without
// looking at them: nil, or a FilterList (of either operator) whose entries
// all pass all, such as the empty MUST_PASS_ALL list the hbase2 binding
// of YCSB's releases after 0.17 sets on every scan. A read may then run as
// one without a filter.
func PassesAll(f Filter) bool {
	if f == nil {
		return true
	}
	l, ok := f.(*FilterList)
	if !ok {
		return false
	}
	for _, e := range l.Filters {
		if !PassesAll(e) {
			return false
		}
	}
	return true
}

// PageOnly reports the page size of a filter that only counts rows: a
// PageFilter of at least one row, alone or in a MUST_PASS_ALL list whose
// other entries pass all (PassesAll), as YCSB's HBase binding scans. A
// region may apply it as a row limit per region scanner, which is what
// the PageFilter does there, without running a filter over each row.
func PageOnly(f Filter) (int64, bool) {
	switch f := f.(type) {
	case *PageFilter:
		return f.PageSize, f.PageSize > 0
	case *FilterList:
		if f.Operator != MustPassAll {
			return 0, false
		}
		page, found := int64(0), false
		for _, e := range f.Filters {
			if PassesAll(e) {
				continue
			}
			n, ok := PageOnly(e)
			if !ok || found {
				return 0, false
			}
			page, found = n, true
		}
		return page, found
	}
	return 0, false
}
