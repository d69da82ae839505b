package filter

import (
	"errors"

	"github.com/weirdb/weir/internal/cell"
)

// ErrInvalid is returned (wrapped) by constructors and Validate methods when a
// filter's parameters make no sense.
var ErrInvalid = errors.New("filter: invalid filter")

// ReturnCode is a filter's verdict on one cell, with HBase's Filter.ReturnCode
// meanings.
type ReturnCode uint8

const (
	// Include the cell.
	Include ReturnCode = iota
	// IncludeAndNextCol includes the cell and skips the column's other versions.
	IncludeAndNextCol
	// Skip the cell and go on with the next one.
	Skip
	// NextCol skips the rest of this column.
	NextCol
	// NextRow skips the rest of the row.
	NextRow
	// SeekNextUsingHint skips to the cell returned by NextCellHint.
	SeekNextUsingHint
	// IncludeAndSeekNextRow includes the cell and skips the rest of the row.
	IncludeAndSeekNextRow
)

func (rc ReturnCode) String() string {
	switch rc {
	case Include:
		return "INCLUDE"
	case IncludeAndNextCol:
		return "INCLUDE_AND_NEXT_COL"
	case Skip:
		return "SKIP"
	case NextCol:
		return "NEXT_COL"
	case NextRow:
		return "NEXT_ROW"
	case SeekNextUsingHint:
		return "SEEK_NEXT_USING_HINT"
	case IncludeAndSeekNextRow:
		return "INCLUDE_AND_SEEK_NEXT_ROW"
	}
	return "ReturnCode(?)"
}

// Filter is HBase's server-side filter contract. The region calls it, for
// each row, in this order (as HBase 2.6's RegionScannerImpl does):
//
//  1. FilterAllRemaining: true ends the scan.
//  2. FilterRowKey with the row's first cell: true skips the row.
//  3. FilterCell for each cell that survived time range, delete, TTL and
//     version checks, then TransformCell for the cells it includes;
//     FilterAllRemaining is consulted again after each cell.
//  4. If HasFilterRow: FilterRowCells on the row's cells, then, if the row
//     is not empty, FilterRow: true drops the row.
//  5. Reset before the next row.
//
// A Filter carries per-scan state (page counts, seen columns): a value is
// used by one scan at a time and is not safe for concurrent use. Decoders
// build a fresh tree per request. Cells passed in alias the region's
// buffers and must not be retained without cell.Clone.
type Filter interface {
	// Reset clears per-row state.
	Reset()
	// FilterAllRemaining reports whether the scan should end now.
	FilterAllRemaining() bool
	// FilterRowKey reports whether the row of first should be skipped.
	FilterRowKey(first *cell.Cell) bool
	// FilterCell returns the verdict on c.
	FilterCell(c *cell.Cell) ReturnCode
	// TransformCell may rewrite an included cell (KeyOnlyFilter drops values).
	TransformCell(c cell.Cell) cell.Cell
	// HasFilterRow reports whether FilterRowCells/FilterRow must see whole
	// rows; if so the region never splits a row into partial results.
	HasFilterRow() bool
	// FilterRowCells may edit the row's included cells (in place or not) and
	// returns the cells to keep.
	FilterRowCells(cells []cell.Cell) []cell.Cell
	// FilterRow reports, after the row's cells were seen, whether to drop it.
	FilterRow() bool
	// NextCellHint returns where to seek after SeekNextUsingHint on c. ok is
	// false if the filter has no hint, in which case the region skips c.
	NextCellHint(c *cell.Cell) (hint cell.Cell, ok bool)
	// IsFamilyEssential reports whether the family must be read to decide
	// on a row (joined scans); filters that look at no family return true.
	IsFamilyEssential(family []byte) bool
}

// CompareOp is HBase's CompareOperator.
type CompareOp uint8

const (
	Less CompareOp = iota
	LessOrEqual
	Equal
	NotEqual
	GreaterOrEqual
	Greater
	NoOp
)

func (op CompareOp) String() string {
	switch op {
	case Less:
		return "LESS"
	case LessOrEqual:
		return "LESS_OR_EQUAL"
	case Equal:
		return "EQUAL"
	case NotEqual:
		return "NOT_EQUAL"
	case GreaterOrEqual:
		return "GREATER_OR_EQUAL"
	case Greater:
		return "GREATER"
	case NoOp:
		return "NO_OP"
	}
	return "CompareOp(?)"
}

// Comparator is HBase's ByteArrayComparable: Compare(value) compares the
// comparator's own operand with value and returns <0, 0 or >0, as Java's
// compareTo(byte[], int, int) does. Implementations are immutable and safe
// for concurrent use.
type Comparator interface {
	Compare(value []byte) int
}
