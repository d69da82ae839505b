package filter

import (
	"fmt"

	"github.com/weirdb/weir/internal/cell"
)

// filterBase gives HBase's FilterBase defaults. Filters embed it and
// override what they need; it holds no state.
type filterBase struct{}

func (filterBase) Reset()                                       {}
func (filterBase) FilterAllRemaining() bool                     { return false }
func (filterBase) FilterRowKey(*cell.Cell) bool                 { return false }
func (filterBase) TransformCell(c cell.Cell) cell.Cell          { return c }
func (filterBase) HasFilterRow() bool                           { return false }
func (filterBase) FilterRowCells(cells []cell.Cell) []cell.Cell { return cells }
func (filterBase) FilterRow() bool                              { return false }
func (filterBase) NextCellHint(*cell.Cell) (cell.Cell, bool)    { return cell.Cell{}, false }
func (filterBase) IsFamilyEssential([]byte) bool                { return true }

// HBase's KeyValue.Type.Maximum and Minimum: seek keys only, never stored.
// Maximum sorts before every real type at equal coordinates, Minimum after.
const (
	typeMaximum cell.Type = 255
	typeMinimum cell.Type = 0
)

// firstOnRowCol is PrivateCellUtil.createFirstOnRowCol: the first possible
// key of column (c's family, qualifier) in c's row. The result is cloned
// because c aliases the region's buffers.
func firstOnRowCol(c *cell.Cell, qualifier []byte) cell.Cell {
	return cell.Cell{
		Row: c.Row, Family: c.Family, Qualifier: qualifier,
		Timestamp: cell.LatestTimestamp, Type: typeMaximum,
	}.Clone()
}

// firstOnRowColTS is PrivateCellUtil.createFirstOnRowColTS.
func firstOnRowColTS(c *cell.Cell, ts int64) cell.Cell {
	return cell.Cell{
		Row: c.Row, Family: c.Family, Qualifier: c.Qualifier,
		Timestamp: ts, Type: typeMaximum,
	}.Clone()
}

// lastOnRowCol is PrivateCellUtil.createLastOnRowCol.
func lastOnRowCol(c *cell.Cell) cell.Cell {
	return cell.Cell{
		Row: c.Row, Family: c.Family, Qualifier: c.Qualifier,
		Timestamp: minTimestamp, Type: typeMinimum,
	}.Clone()
}

// minTimestamp is HConstants.OLDEST_TIMESTAMP.
const minTimestamp int64 = -1 << 63

// keyClone copies c's coordinates without its value, as
// KeyValueUtil.toNewKeyCell does, for filters that remember a cell.
func keyClone(c *cell.Cell) cell.Cell {
	k := *c
	k.Value = nil
	return k.Clone()
}

// invalidf returns an ErrInvalid wrapping error naming the problem.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// emptyValue is a shared zero-length, zero-capacity value: appending to it
// always reallocates, so sharing it is safe.
var emptyValue = []byte{}

// isIncludeCode reports whether rc includes the cell.
func isIncludeCode(rc ReturnCode) bool {
	return rc == Include || rc == IncludeAndNextCol || rc == IncludeAndSeekNextRow
}
