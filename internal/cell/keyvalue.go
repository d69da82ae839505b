package cell

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// HBase's KeyValue serialization, the cell format of the KeyValueCodec
// cellblock (tag-less), each cell prefixed by its int32 length L:
//
//	int32 L | int32 keyLen | int32 valueLen | int16 rowLen | row |
//	int8 famLen | family | qualifier | int64 ts | int8 type | value
//
// It lives here, not in the RPC layer, so that a region can encode the
// cells it reads straight into a response's cellblock.

// Limits HBase puts on a KeyValue's coordinates (rowLen is a Java short,
// famLen a Java byte, both signed).
const (
	MaxKeyValueRowLength    = math.MaxInt16
	MaxKeyValueFamilyLength = math.MaxInt8
)

// KeyValueOverhead is what a length-prefixed KeyValue adds to a cell's
// Size: the L prefix, keyLen, valueLen, rowLen and famLen.
const KeyValueOverhead = 4 + 4 + 4 + 2 + 1

// ErrKeyValueTooLarge is returned (wrapped) for a cell a KeyValue cannot
// hold.
var ErrKeyValueTooLarge = errors.New("cell: too large for a KeyValue")

// CheckKeyValue reports whether a cell with these lengths fits a KeyValue.
func CheckKeyValue(rowLen, famLen, qualLen, valLen int) error {
	if rowLen > MaxKeyValueRowLength {
		return fmt.Errorf("%w: row length %d exceeds %d", ErrKeyValueTooLarge, rowLen, MaxKeyValueRowLength)
	}
	if famLen > MaxKeyValueFamilyLength {
		return fmt.Errorf("%w: family length %d exceeds %d", ErrKeyValueTooLarge, famLen, MaxKeyValueFamilyLength)
	}
	if n := int64(KeyValueOverhead-4+9) + int64(rowLen) + int64(famLen) + int64(qualLen) + int64(valLen); n > math.MaxInt32 {
		return fmt.Errorf("%w: cell of %d bytes", ErrKeyValueTooLarge, n)
	}
	return nil
}

// AppendKeyValue appends one length-prefixed KeyValue to dst. The lengths
// must have passed CheckKeyValue.
func AppendKeyValue(dst, row, family, qualifier []byte, ts int64, typ Type, value []byte) []byte {
	keyLen := 2 + len(row) + 1 + len(family) + len(qualifier) + 8 + 1
	n := 4 + 8 + keyLen + len(value)
	at := len(dst)
	if cap(dst)-at < n {
		dst = growBytes(dst, n)
	}
	dst = dst[:at+n]
	b := dst[at:]
	putKeyValueLengths(b, keyLen, len(value))
	binary.BigEndian.PutUint16(b[12:], uint16(len(row)))
	p := 14 + copy(b[14:], row)
	b[p] = byte(len(family))
	p++
	p += copy(b[p:], family)
	putKeyValueTail(b[p:], qualifier, ts, typ, value)
	return dst
}

// AppendKeyValueHead appends a KeyValue key's head, the part its row and
// family make (int16 rowLen | row | int8 famLen | family), for
// AppendKeyValueWithHead. The lengths must have passed CheckKeyValue.
func AppendKeyValueHead(dst, row, family []byte) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(row)))
	dst = append(dst, row...)
	dst = append(dst, byte(len(family)))
	return append(dst, family...)
}

// AppendKeyValueWithHead is AppendKeyValue with the row and family given
// as their encoded head (AppendKeyValueHead): a reader encoding a row's
// cells copies the head as one piece per cell, not the row and family
// with their lengths each time. The lengths must have passed
// CheckKeyValue.
func AppendKeyValueWithHead(dst, head, qualifier []byte, ts int64, typ Type, value []byte) []byte {
	keyLen := len(head) + len(qualifier) + 8 + 1
	n := 4 + 8 + keyLen + len(value)
	at := len(dst)
	if cap(dst)-at < n {
		dst = growBytes(dst, n)
	}
	dst = dst[:at+n]
	b := dst[at:]
	putKeyValueLengths(b, keyLen, len(value))
	p := 12 + copy(b[12:], head)
	putKeyValueTail(b[p:], qualifier, ts, typ, value)
	return dst
}

// putKeyValueLengths writes a length-prefixed KeyValue's three lengths
// (the whole, the key, the value) at b[0:12]. The encoders size and grow
// their buffer themselves: a shared helper doing that too would no longer
// inline into them, and they run once per cell.
func putKeyValueLengths(b []byte, keyLen, valLen int) {
	binary.BigEndian.PutUint32(b, uint32(8+keyLen+valLen))
	binary.BigEndian.PutUint32(b[4:], uint32(keyLen))
	binary.BigEndian.PutUint32(b[8:], uint32(valLen))
}

// putKeyValueTail writes a KeyValue's end from b[0]: the qualifier, the
// timestamp, the type and the value.
func putKeyValueTail(b, qualifier []byte, ts int64, typ Type, value []byte) {
	p := copy(b, qualifier)
	binary.BigEndian.PutUint64(b[p:], uint64(ts))
	b[p+8] = byte(typ)
	copy(b[p+9:], value)
}

// growBytes returns dst with room for n more bytes, at least doubling.
func growBytes(dst []byte, n int) []byte {
	nb := make([]byte, len(dst), max(2*cap(dst), len(dst)+n, 4096))
	copy(nb, dst)
	return nb
}

// ErrCorruptKeyValue is returned (wrapped) by DecodeKeyValue for bytes
// that are not a length-prefixed KeyValue.
var ErrCorruptKeyValue = errors.New("cell: corrupt KeyValue")

// DecodeKeyValue decodes the length-prefixed KeyValue at the start of b, as
// AppendKeyValue writes it, and returns it and its length in b. The cell's
// slices alias b.
func DecodeKeyValue(b []byte) (Cell, int, error) {
	var c Cell
	if n, ok := DecodeKeyValueTo(b, &c); ok {
		return c, n, nil
	}
	return Cell{}, 0, keyValueError(b)
}

// Sizes of a length-prefixed KeyValue's fixed parts.
const (
	kvLenPrefix = 4             // int32 L
	kvLensSize  = 8             // int32 keyLen, int32 valueLen
	kvKeyFixed  = 2 + 1 + 8 + 1 // rowLen, famLen, ts, type
	minKeyValue = kvLenPrefix + kvLensSize + kvKeyFixed
)

// DecodeKeyValueTo is DecodeKeyValue into c, for a loop over a cellblock:
// it makes every check at once, in unsigned arithmetic, and only says
// whether they all passed (false: c is garbage, and DecodeKeyValue says
// what was wrong). Row and family lengths are HBase's signed short and
// byte: a negative one fails.
func DecodeKeyValueTo(b []byte, c *Cell) (int, bool) {
	if len(b) < minKeyValue {
		return 0, false
	}
	l := uint64(binary.BigEndian.Uint32(b))
	keyLen := uint64(binary.BigEndian.Uint32(b[4:]))
	valLen := uint64(binary.BigEndian.Uint32(b[8:]))
	// Every length is a non-negative int32 (so none of the sums below
	// overflows), the key holds at least its fixed parts, the key and the
	// value fill the cell exactly and the cell fits what is left.
	if (l|keyLen|valLen)>>31 != 0 || keyLen < kvKeyFixed || kvLensSize+keyLen+valLen != l ||
		l > uint64(len(b)-kvLenPrefix) {
		return 0, false
	}
	kv := b[kvLenPrefix : kvLenPrefix+l]
	key := kv[kvLensSize : kvLensSize+keyLen]
	rowLen := uint64(binary.BigEndian.Uint16(key))
	if rowLen>>15 != 0 || kvKeyFixed+rowLen > keyLen {
		return 0, false
	}
	famAt := 2 + rowLen
	famLen := uint64(key[famAt])
	if famLen>>7 != 0 || kvKeyFixed+rowLen+famLen > keyLen {
		return 0, false
	}
	p := famAt + 1
	qualAt := p + famLen
	tsAt := keyLen - 9
	c.Row = key[2:famAt:famAt]
	c.Family = key[p:qualAt:qualAt]
	c.Qualifier = key[qualAt:tsAt:tsAt]
	c.Timestamp = int64(binary.BigEndian.Uint64(key[tsAt:]))
	c.Type = Type(key[keyLen-1])
	c.Value = kv[kvLensSize+keyLen : l : l]
	return kvLenPrefix + int(l), true
}

// keyValueError says what is wrong with b, which DecodeKeyValueTo refused.
func keyValueError(b []byte) error {
	if len(b) < 12 {
		return fmt.Errorf("%w: %d bytes, shorter than the lengths", ErrCorruptKeyValue, len(b))
	}
	total := uint64(binary.BigEndian.Uint32(b))
	keyLen := uint64(binary.BigEndian.Uint32(b[4:]))
	valLen := uint64(binary.BigEndian.Uint32(b[8:]))
	if (total|keyLen|valLen)>>31 != 0 || total != 8+keyLen+valLen || 4+total > uint64(len(b)) {
		return fmt.Errorf("%w: length %d (key %d, value %d) in %d bytes", ErrCorruptKeyValue, total, keyLen, valLen, len(b))
	}
	if keyLen < kvKeyFixed {
		return fmt.Errorf("%w: key of %d bytes", ErrCorruptKeyValue, keyLen)
	}
	key := b[12 : 12+keyLen]
	rowLen := uint64(binary.BigEndian.Uint16(key))
	if rowLen>>15 != 0 || 2+rowLen+1+8+1 > keyLen {
		return fmt.Errorf("%w: row of %d bytes in a %d-byte key", ErrCorruptKeyValue, rowLen, keyLen)
	}
	famLen := uint64(key[2+rowLen])
	if famLen>>7 != 0 || 2+rowLen+1+famLen+8+1 > keyLen {
		return fmt.Errorf("%w: family of %d bytes in a %d-byte key", ErrCorruptKeyValue, famLen, keyLen)
	}
	return fmt.Errorf("%w: %d bytes", ErrCorruptKeyValue, len(b))
}
