package filter

import "github.com/weirdb/weir/internal/cell"

// CompareFilter is the configuration shared by RowFilter, FamilyFilter,
// QualifierFilter and ValueFilter: a part of the cell is compared with
// Comparator.Compare(part) and the cell is dropped when Op.FiltersOut says
// so (see CompareOp.FiltersOut for the direction).
type CompareFilter struct {
	Op         CompareOp
	Comparator Comparator
}

// Validate checks the operator and the comparator.
func (f *CompareFilter) Validate() error {
	if !f.Op.Valid() {
		return invalidf("compare operator %d is unknown", f.Op)
	}
	if f.Comparator == nil {
		return invalidf("compare filter has a nil comparator")
	}
	if v, ok := f.Comparator.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}

// filtersOut reports whether the compared bytes drop the cell. NoOp drops
// everything without consulting the comparator.
func (f *CompareFilter) filtersOut(b []byte) bool {
	if f.Op == NoOp || f.Comparator == nil {
		return true
	}
	return f.Op.FiltersOut(f.Comparator.Compare(b))
}

// RowFilter drops rows whose key fails the comparison. It decides in
// FilterRowKey; cells of a dropped row get NextRow.
type RowFilter struct {
	filterBase
	CompareFilter
	filterOutRow bool
}

// NewRowFilter returns a validated RowFilter.
func NewRowFilter(op CompareOp, cmp Comparator) (*RowFilter, error) {
	f := &RowFilter{CompareFilter: CompareFilter{Op: op, Comparator: cmp}}
	return f, f.Validate()
}

func (f *RowFilter) Reset() { f.filterOutRow = false }

func (f *RowFilter) FilterRowKey(first *cell.Cell) bool {
	if f.filtersOut(first.Row) {
		f.filterOutRow = true
	}
	return f.filterOutRow
}

func (f *RowFilter) FilterCell(*cell.Cell) ReturnCode {
	if f.filterOutRow {
		return NextRow
	}
	return Include
}

func (f *RowFilter) FilterRow() bool { return f.filterOutRow }

// FamilyFilter drops the cells of families that fail the comparison. It
// answers NextRow, which in HBase ends only the current family's part of
// the row (each family is its own store scanner).
type FamilyFilter struct {
	filterBase
	CompareFilter
}

// NewFamilyFilter returns a validated FamilyFilter.
func NewFamilyFilter(op CompareOp, cmp Comparator) (*FamilyFilter, error) {
	f := &FamilyFilter{CompareFilter: CompareFilter{Op: op, Comparator: cmp}}
	return f, f.Validate()
}

func (f *FamilyFilter) FilterCell(c *cell.Cell) ReturnCode {
	if len(c.Family) > 0 && f.filtersOut(c.Family) {
		return NextRow
	}
	return Include
}

// QualifierFilter drops cells whose qualifier fails the comparison.
type QualifierFilter struct {
	filterBase
	CompareFilter
}

// NewQualifierFilter returns a validated QualifierFilter.
func NewQualifierFilter(op CompareOp, cmp Comparator) (*QualifierFilter, error) {
	f := &QualifierFilter{CompareFilter: CompareFilter{Op: op, Comparator: cmp}}
	return f, f.Validate()
}

func (f *QualifierFilter) FilterCell(c *cell.Cell) ReturnCode {
	if f.filtersOut(c.Qualifier) {
		return Skip
	}
	return Include
}

// ValueFilter drops cells whose value fails the comparison.
type ValueFilter struct {
	filterBase
	CompareFilter
}

// NewValueFilter returns a validated ValueFilter.
func NewValueFilter(op CompareOp, cmp Comparator) (*ValueFilter, error) {
	f := &ValueFilter{CompareFilter: CompareFilter{Op: op, Comparator: cmp}}
	return f, f.Validate()
}

func (f *ValueFilter) FilterCell(c *cell.Cell) ReturnCode {
	if f.filtersOut(c.Value) {
		return Skip
	}
	return Include
}
