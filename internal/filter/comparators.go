package filter

import (
	"bytes"
	"strings"
)

// OperandComparator is a Comparator that exposes its operand, as HBase's
// ByteArrayComparable.getValue does. checkAndMutate needs it: a comparator
// whose operand is empty (NullComparator, BinaryComparator of "") matches
// an absent or empty cell whatever the operator.
type OperandComparator interface {
	Comparator
	Operand() []byte
}

// BinaryComparator compares its operand with the value lexicographically as
// unsigned bytes (Bytes.compareTo).
type BinaryComparator struct {
	Value []byte
}

// NewBinaryComparator returns a BinaryComparator for v.
func NewBinaryComparator(v []byte) BinaryComparator { return BinaryComparator{Value: v} }

// Compare implements Comparator.
func (c BinaryComparator) Compare(value []byte) int { return bytes.Compare(c.Value, value) }

// Operand implements OperandComparator.
func (c BinaryComparator) Operand() []byte { return c.Value }

// BinaryPrefixComparator compares its operand with the value's prefix of the
// operand's length (or the whole value if shorter), so an operand that is a
// prefix of the value compares equal.
type BinaryPrefixComparator struct {
	Value []byte
}

// NewBinaryPrefixComparator returns a BinaryPrefixComparator for prefix.
func NewBinaryPrefixComparator(prefix []byte) BinaryPrefixComparator {
	return BinaryPrefixComparator{Value: prefix}
}

// Compare implements Comparator.
func (c BinaryPrefixComparator) Compare(value []byte) int {
	if len(value) > len(c.Value) {
		value = value[:len(c.Value)]
	}
	return bytes.Compare(c.Value, value)
}

// Operand implements OperandComparator.
func (c BinaryPrefixComparator) Operand() []byte { return c.Value }

// SubstringComparator reports 0 when the value, decoded as UTF-8 and lower
// cased, contains the (lower cased) substring, and 1 otherwise. Only Equal
// and NotEqual make sense with it.
type SubstringComparator struct {
	// Substr is lower cased on use, as HBase lower cases it on construction
	// (Locale.ROOT).
	Substr string
}

// NewSubstringComparator returns a SubstringComparator for substr, lower
// cased as HBase does.
func NewSubstringComparator(substr string) SubstringComparator {
	return SubstringComparator{Substr: strings.ToLower(substr)}
}

// Compare implements Comparator. Invalid UTF-8 becomes U+FFFD in both Java's
// decoder and strings.ToLower, so arbitrary bytes behave alike.
func (c SubstringComparator) Compare(value []byte) int {
	if strings.Contains(strings.ToLower(string(value)), strings.ToLower(c.Substr)) {
		return 0
	}
	return 1
}

// Operand implements OperandComparator.
func (c SubstringComparator) Operand() []byte { return []byte(strings.ToLower(c.Substr)) }

// NullComparator is HBase's NullComparator: compareTo(value) is 0 when the
// value is null and 1 otherwise. In HBase a cell's value is never null, so
// inside filters it never compares equal (ValueFilter(EQUAL, NullComparator)
// drops every cell, even empty ones); its use is checkAndMutate, where its
// empty operand makes an absent or empty cell match (see OperandComparator).
//
// Go cannot tell nil from empty as reliably as Java tells null from byte[0]:
// Compare treats only a nil slice as null, so callers must pass nil for
// "absent" and never for an empty value they hold.
type NullComparator struct{}

// Compare implements Comparator.
func (NullComparator) Compare(value []byte) int {
	if value == nil {
		return 0
	}
	return 1
}

// Operand implements OperandComparator: it is empty, as in HBase.
func (NullComparator) Operand() []byte { return emptyValue }

// BitOp is BitComparator's bitwise operator, numbered as HBase's protobuf
// BitComparator.BitwiseOp (zero is invalid).
type BitOp uint8

// Bitwise operators.
const (
	BitAnd BitOp = 1
	BitOr  BitOp = 2
	BitXor BitOp = 3
)

func (op BitOp) String() string {
	switch op {
	case BitAnd:
		return "AND"
	case BitOr:
		return "OR"
	case BitXor:
		return "XOR"
	}
	return "BitOp(?)"
}

// BitComparator combines its operand with the value byte by byte and
// reports 0 (equal) when some result byte is non-zero. Values of another
// length than the operand compare as 1, as in HBase.
type BitComparator struct {
	Value []byte
	Op    BitOp
}

// NewBitComparator returns a BitComparator, rejecting an unknown operator.
func NewBitComparator(v []byte, op BitOp) (BitComparator, error) {
	c := BitComparator{Value: v, Op: op}
	return c, c.Validate()
}

// Validate checks the operator.
func (c BitComparator) Validate() error {
	switch c.Op {
	case BitAnd, BitOr, BitXor:
		return nil
	}
	return invalidf("bit comparator operator %d is not AND, OR or XOR", c.Op)
}

// Compare implements Comparator.
func (c BitComparator) Compare(value []byte) int {
	if len(value) != len(c.Value) {
		return 1
	}
	for i := range value {
		var b byte
		switch c.Op {
		case BitAnd:
			b = c.Value[i] & value[i]
		case BitOr:
			b = c.Value[i] | value[i]
		case BitXor:
			b = c.Value[i] ^ value[i]
		}
		if b != 0 {
			return 0
		}
	}
	return 1
}

// Operand implements OperandComparator.
func (c BitComparator) Operand() []byte { return c.Value }
