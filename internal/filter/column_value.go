package filter

import (
	"bytes"

	"github.com/weirdb/weir/internal/cell"
)

// SingleColumnValueFilter keeps or drops whole rows by the value of one
// column (Family:Qualifier). If the column is found and its value passes
// the comparison the row is kept; if found and failing, dropped; if absent,
// dropped only when FilterIfMissing. With LatestVersionOnly only the first
// version seen decides; otherwise any passing version keeps the row.
type SingleColumnValueFilter struct {
	filterBase
	Family     []byte
	Qualifier  []byte
	Op         CompareOp
	Comparator Comparator
	// FilterIfMissing drops rows that lack the column (HBase default false).
	FilterIfMissing bool
	// LatestVersionOnly tests only the newest version (HBase default true;
	// NewSingleColumnValueFilter sets it).
	LatestVersionOnly bool

	foundColumn   bool
	matchedColumn bool
}

// NewSingleColumnValueFilter returns a validated filter with HBase's
// defaults: FilterIfMissing false, LatestVersionOnly true.
func NewSingleColumnValueFilter(family, qualifier []byte, op CompareOp, cmp Comparator) (*SingleColumnValueFilter, error) {
	f := &SingleColumnValueFilter{
		Family: family, Qualifier: qualifier, Op: op, Comparator: cmp,
		LatestVersionOnly: true,
	}
	return f, f.Validate()
}

// Validate checks the operator and comparator. NoOp is rejected: HBase
// accepts it at construction but throws on the first cell it tests.
func (f *SingleColumnValueFilter) Validate() error {
	if !f.Op.Valid() || f.Op == NoOp {
		return invalidf("single column value filter operator %v is not a comparison", f.Op)
	}
	if f.Comparator == nil {
		return invalidf("single column value filter has a nil comparator")
	}
	if v, ok := f.Comparator.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}

func (f *SingleColumnValueFilter) Reset() {
	f.foundColumn = false
	f.matchedColumn = false
}

func (f *SingleColumnValueFilter) FilterCell(c *cell.Cell) ReturnCode {
	switch {
	case f.matchedColumn:
		return Include
	case f.LatestVersionOnly && f.foundColumn:
		// Found but failed: nothing else in the row can save it.
		return NextRow
	}
	if !f.matchingColumn(c) {
		return Include
	}
	f.foundColumn = true
	if f.Comparator == nil || f.Op.FiltersOut(f.Comparator.Compare(c.Value)) {
		if f.LatestVersionOnly {
			return NextRow
		}
		return Include
	}
	f.matchedColumn = true
	return Include
}

func (f *SingleColumnValueFilter) matchingColumn(c *cell.Cell) bool {
	return bytes.Equal(c.Family, f.Family) && bytes.Equal(c.Qualifier, f.Qualifier)
}

func (f *SingleColumnValueFilter) HasFilterRow() bool { return true }

func (f *SingleColumnValueFilter) FilterRow() bool {
	if f.foundColumn {
		return !f.matchedColumn
	}
	return f.FilterIfMissing
}

// IsFamilyEssential: only the tested family is needed to decide when rows
// lacking it are dropped.
func (f *SingleColumnValueFilter) IsFamilyEssential(family []byte) bool {
	return !f.FilterIfMissing || bytes.Equal(family, f.Family)
}

// SingleColumnValueExcludeFilter is SingleColumnValueFilter that also
// removes the tested column from the rows it keeps.
type SingleColumnValueExcludeFilter struct {
	SingleColumnValueFilter
}

// NewSingleColumnValueExcludeFilter returns a validated filter with HBase's
// defaults, as NewSingleColumnValueFilter.
func NewSingleColumnValueExcludeFilter(family, qualifier []byte, op CompareOp, cmp Comparator) (*SingleColumnValueExcludeFilter, error) {
	f, err := NewSingleColumnValueFilter(family, qualifier, op, cmp)
	if f == nil {
		return nil, err
	}
	return &SingleColumnValueExcludeFilter{SingleColumnValueFilter: *f}, err
}

func (f *SingleColumnValueExcludeFilter) FilterRowCells(cells []cell.Cell) []cell.Cell {
	out := cells[:0]
	for i := range cells {
		if !f.matchingColumn(&cells[i]) {
			out = append(out, cells[i])
		}
	}
	return out
}
