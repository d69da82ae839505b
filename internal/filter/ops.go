package filter

// Valid reports whether op is one of HBase's seven compare operators.
func (op CompareOp) Valid() bool { return op <= NoOp }

// Matches reports whether compareResult, the result of
// comparator.Compare(existingValue), satisfies op the way
// HRegion.checkAndMutate decides it. The comparator's operand is on the
// left: Less matches when the operand sorts before the existing value, i.e.
// when the stored value is greater. NoOp never matches (HBase throws).
func (op CompareOp) Matches(compareResult int) bool {
	switch op {
	case Less:
		return compareResult < 0
	case LessOrEqual:
		return compareResult <= 0
	case Equal:
		return compareResult == 0
	case NotEqual:
		return compareResult != 0
	case GreaterOrEqual:
		return compareResult >= 0
	case Greater:
		return compareResult > 0
	}
	return false
}

// FiltersOut is CompareFilter's rule: it reports whether a cell whose
// compared bytes gave compareResult (comparator.Compare(cellBytes)) must be
// dropped. A filter reads the op with the cell on the left ("keep cells
// LESS than the operand") while checkAndMutate reads it with the operand on
// the left, so for the six real operators FiltersOut(r) == !Matches(-r):
// Less keeps a cell whose bytes are less than the operand (compareResult
// > 0). NoOp filters every cell out, as CompareFilter's compareRow,
// compareFamily, ... do.
func (op CompareOp) FiltersOut(compareResult int) bool {
	switch op {
	case Less:
		return compareResult <= 0
	case LessOrEqual:
		return compareResult < 0
	case Equal:
		return compareResult != 0
	case NotEqual:
		return compareResult == 0
	case GreaterOrEqual:
		return compareResult > 0
	case Greater:
		return compareResult >= 0
	}
	return true
}
