package filter

import (
	"bytes"
	"slices"

	"github.com/weirdb/weir/internal/cell"
)

// ColumnPrefixFilter keeps cells whose qualifier starts with Prefix,
// seeking to the prefix from smaller qualifiers and skipping the rest of
// the family's row past it. A nil Prefix keeps everything.
type ColumnPrefixFilter struct {
	filterBase
	Prefix []byte
}

// NewColumnPrefixFilter returns a ColumnPrefixFilter.
func NewColumnPrefixFilter(prefix []byte) *ColumnPrefixFilter {
	return &ColumnPrefixFilter{Prefix: prefix}
}

func (f *ColumnPrefixFilter) FilterCell(c *cell.Cell) ReturnCode {
	if f.Prefix == nil {
		return Include
	}
	q := c.Qualifier
	if len(q) < len(f.Prefix) {
		if bytes.Compare(q, f.Prefix[:len(q)]) <= 0 {
			return SeekNextUsingHint
		}
		return NextRow
	}
	switch cmp := bytes.Compare(q[:len(f.Prefix)], f.Prefix); {
	case cmp < 0:
		return SeekNextUsingHint
	case cmp > 0:
		return NextRow
	}
	return Include
}

func (f *ColumnPrefixFilter) NextCellHint(c *cell.Cell) (cell.Cell, bool) {
	return firstOnRowCol(c, f.Prefix), true
}

// MultipleColumnPrefixFilter keeps cells whose qualifier starts with one of
// Prefixes, seeking between them.
//
// Like HBase it only tests the largest prefix not greater than the
// qualifier: with overlapping prefixes ("a", "ab") a qualifier such as "ac"
// is sought past although "a" matches it. This is kept for fidelity.
type MultipleColumnPrefixFilter struct {
	filterBase
	Prefixes [][]byte

	sorted [][]byte // sorted, deduplicated Prefixes, built on first use
	ready  bool
	hint   []byte
}

// NewMultipleColumnPrefixFilter returns a MultipleColumnPrefixFilter.
func NewMultipleColumnPrefixFilter(prefixes ...[]byte) *MultipleColumnPrefixFilter {
	return &MultipleColumnPrefixFilter{Prefixes: prefixes}
}

func (f *MultipleColumnPrefixFilter) prefixes() [][]byte {
	if !f.ready {
		f.sorted = slices.Clone(f.Prefixes)
		slices.SortFunc(f.sorted, bytes.Compare)
		f.sorted = slices.CompactFunc(f.sorted, bytes.Equal)
		f.ready = true
	}
	return f.sorted
}

func (f *MultipleColumnPrefixFilter) FilterCell(c *cell.Cell) ReturnCode {
	sorted := f.prefixes()
	if len(sorted) == 0 {
		return Include
	}
	q := c.Qualifier
	// n is the number of prefixes <= q.
	n, found := slices.BinarySearchFunc(sorted, q, bytes.Compare)
	if found {
		n++
	}
	if n == 0 {
		f.hint = sorted[0]
		return SeekNextUsingHint
	}
	largest := sorted[n-1]
	if bytes.HasPrefix(q, largest) {
		return Include
	}
	if n == len(sorted) {
		return NextRow
	}
	f.hint = sorted[n]
	return SeekNextUsingHint
}

func (f *MultipleColumnPrefixFilter) NextCellHint(c *cell.Cell) (cell.Cell, bool) {
	if f.hint == nil {
		return cell.Cell{}, false
	}
	return firstOnRowCol(c, f.hint), true
}

// ColumnRangeFilter keeps cells whose qualifier lies between MinColumn and
// MaxColumn, each bound inclusive or not; a nil bound is open. It seeks to
// MinColumn from below and skips the family's row past MaxColumn. A minimum
// above the maximum is not an error (HBase accepts it): nothing passes.
type ColumnRangeFilter struct {
	filterBase
	MinColumn    []byte
	MinInclusive bool
	MaxColumn    []byte
	MaxInclusive bool
}

// NewColumnRangeFilter returns a ColumnRangeFilter.
func NewColumnRangeFilter(minColumn []byte, minInclusive bool, maxColumn []byte, maxInclusive bool) *ColumnRangeFilter {
	return &ColumnRangeFilter{MinColumn: minColumn, MinInclusive: minInclusive, MaxColumn: maxColumn, MaxInclusive: maxInclusive}
}

func (f *ColumnRangeFilter) FilterCell(c *cell.Cell) ReturnCode {
	cmpMin := 1
	if f.MinColumn != nil {
		cmpMin = bytes.Compare(c.Qualifier, f.MinColumn)
	}
	if cmpMin < 0 {
		return SeekNextUsingHint
	}
	if !f.MinInclusive && cmpMin == 0 {
		return NextCol
	}
	if f.MaxColumn == nil {
		return Include
	}
	cmpMax := bytes.Compare(c.Qualifier, f.MaxColumn)
	if cmpMax < 0 || (f.MaxInclusive && cmpMax == 0) {
		return Include
	}
	return NextRow
}

func (f *ColumnRangeFilter) NextCellHint(c *cell.Cell) (cell.Cell, bool) {
	return firstOnRowCol(c, f.MinColumn), true
}

// ColumnCountGetFilter keeps the first Limit columns (newest version only)
// of the first row and ends the scan after it; it is meant for Gets.
type ColumnCountGetFilter struct {
	filterBase
	Limit int

	count int
}

// NewColumnCountGetFilter returns a ColumnCountGetFilter, rejecting a
// negative limit.
func NewColumnCountGetFilter(limit int) (*ColumnCountGetFilter, error) {
	f := &ColumnCountGetFilter{Limit: limit}
	return f, f.Validate()
}

// Validate checks the limit.
func (f *ColumnCountGetFilter) Validate() error {
	if f.Limit < 0 {
		return invalidf("column count limit %d is negative", f.Limit)
	}
	return nil
}

func (f *ColumnCountGetFilter) Reset()                       { f.count = 0 }
func (f *ColumnCountGetFilter) FilterAllRemaining() bool     { return f.count > f.Limit }
func (f *ColumnCountGetFilter) FilterRowKey(*cell.Cell) bool { return f.FilterAllRemaining() }

func (f *ColumnCountGetFilter) FilterCell(*cell.Cell) ReturnCode {
	f.count++
	if f.FilterAllRemaining() {
		return NextCol
	}
	return IncludeAndNextCol
}

// ColumnPaginationFilter keeps, in each row, Limit columns (newest version
// only) starting at column number Offset, or, when ColumnOffset is non-nil,
// starting at the first qualifier >= ColumnOffset (sought by hint). Columns
// are counted across the row's families.
type ColumnPaginationFilter struct {
	filterBase
	Limit  int
	Offset int
	// ColumnOffset selects the qualifier-offset variant when non-nil.
	ColumnOffset []byte

	count int
}

// NewColumnPaginationFilter returns a validated filter paging by column
// number.
func NewColumnPaginationFilter(limit, offset int) (*ColumnPaginationFilter, error) {
	f := &ColumnPaginationFilter{Limit: limit, Offset: offset}
	return f, f.Validate()
}

// NewColumnPaginationFilterAt returns a validated filter paging from the
// qualifier columnOffset, which must not be nil.
func NewColumnPaginationFilterAt(limit int, columnOffset []byte) (*ColumnPaginationFilter, error) {
	if columnOffset == nil {
		return nil, invalidf("column pagination column offset is nil")
	}
	f := &ColumnPaginationFilter{Limit: limit, ColumnOffset: columnOffset}
	return f, f.Validate()
}

// Validate checks limit and offset.
func (f *ColumnPaginationFilter) Validate() error {
	if f.Limit < 0 {
		return invalidf("column pagination limit %d is negative", f.Limit)
	}
	if f.ColumnOffset == nil && f.Offset < 0 {
		return invalidf("column pagination offset %d is negative", f.Offset)
	}
	return nil
}

func (f *ColumnPaginationFilter) Reset() { f.count = 0 }

func (f *ColumnPaginationFilter) FilterCell(c *cell.Cell) ReturnCode {
	if f.ColumnOffset != nil {
		if f.count >= f.Limit {
			return NextRow
		}
		// Only the row's first column is compared: after it every column
		// is past the offset.
		if f.count == 0 && bytes.Compare(c.Qualifier, f.ColumnOffset) < 0 {
			return SeekNextUsingHint
		}
		f.count++
		return IncludeAndNextCol
	}
	if f.count >= f.Offset+f.Limit {
		return NextRow
	}
	rc := IncludeAndNextCol
	if f.count < f.Offset {
		rc = NextCol
	}
	f.count++
	return rc
}

func (f *ColumnPaginationFilter) NextCellHint(c *cell.Cell) (cell.Cell, bool) {
	if f.ColumnOffset == nil {
		return cell.Cell{}, false
	}
	return firstOnRowCol(c, f.ColumnOffset), true
}
