package filter

import "github.com/weirdb/weir/internal/cell"

// WhileMatchFilter ends the whole scan at the first cell or row its
// wrapped filter does not fully accept: any verdict but Include, a true
// FilterRowKey or a true FilterRow. Cells already included in that row are
// still returned. Like HBase it forwards neither FilterRowCells nor
// NextCellHint.
type WhileMatchFilter struct {
	filterBase
	Filter Filter

	filterAllRemaining bool
}

// NewWhileMatchFilter wraps f, which must not be nil.
func NewWhileMatchFilter(f Filter) (*WhileMatchFilter, error) {
	w := &WhileMatchFilter{Filter: f}
	return w, w.Validate()
}

// Validate checks the wrapped filter.
func (f *WhileMatchFilter) Validate() error {
	if f.Filter == nil {
		return invalidf("while match filter wraps a nil filter")
	}
	return validateFilter(f.Filter)
}

func (f *WhileMatchFilter) Reset() { f.Filter.Reset() }

func (f *WhileMatchFilter) FilterAllRemaining() bool {
	return f.filterAllRemaining || f.Filter.FilterAllRemaining()
}

func (f *WhileMatchFilter) FilterRowKey(first *cell.Cell) bool {
	if f.FilterAllRemaining() {
		return true
	}
	v := f.Filter.FilterRowKey(first)
	f.filterAllRemaining = f.filterAllRemaining || v
	return v
}

func (f *WhileMatchFilter) FilterCell(c *cell.Cell) ReturnCode {
	rc := f.Filter.FilterCell(c)
	f.filterAllRemaining = f.filterAllRemaining || rc != Include
	return rc
}

func (f *WhileMatchFilter) TransformCell(c cell.Cell) cell.Cell { return f.Filter.TransformCell(c) }

func (f *WhileMatchFilter) HasFilterRow() bool { return true }

func (f *WhileMatchFilter) FilterRow() bool {
	v := f.Filter.FilterRow()
	f.filterAllRemaining = f.filterAllRemaining || v
	return v
}

func (f *WhileMatchFilter) IsFamilyEssential(family []byte) bool {
	return f.Filter.IsFamilyEssential(family)
}

// SkipFilter drops a whole row when its wrapped filter gives any cell of
// it a verdict other than Include. Like HBase it forwards neither
// FilterRowKey, FilterRowCells nor NextCellHint.
type SkipFilter struct {
	filterBase
	Filter Filter

	filterRow bool
}

// NewSkipFilter wraps f, which must not be nil.
func NewSkipFilter(f Filter) (*SkipFilter, error) {
	s := &SkipFilter{Filter: f}
	return s, s.Validate()
}

// Validate checks the wrapped filter.
func (f *SkipFilter) Validate() error {
	if f.Filter == nil {
		return invalidf("skip filter wraps a nil filter")
	}
	return validateFilter(f.Filter)
}

func (f *SkipFilter) Reset() {
	f.Filter.Reset()
	f.filterRow = false
}

func (f *SkipFilter) FilterCell(c *cell.Cell) ReturnCode {
	rc := f.Filter.FilterCell(c)
	f.filterRow = f.filterRow || rc != Include
	return rc
}

func (f *SkipFilter) TransformCell(c cell.Cell) cell.Cell { return f.Filter.TransformCell(c) }

func (f *SkipFilter) HasFilterRow() bool { return true }

func (f *SkipFilter) FilterRow() bool { return f.filterRow }

func (f *SkipFilter) IsFamilyEssential(family []byte) bool {
	return f.Filter.IsFamilyEssential(family)
}

// validateFilter runs f's Validate method if it has one, so that nested
// trees built as literals are checked from the root.
func validateFilter(f Filter) error {
	if v, ok := f.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}
