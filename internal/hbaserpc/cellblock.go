package hbaserpc

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/weirdb/weir/internal/cell"
)

// KeyValueCodec is the Java class name of the one cellblock codec Weir
// speaks: cells as tag-less KeyValues, each prefixed by its int32 length.
const KeyValueCodec = "org.apache.hadoop.hbase.codec.KeyValueCodec"

// Limits HBase puts on a KeyValue's coordinates (rowLen is a Java short,
// famLen a Java byte, both signed).
const (
	MaxRowLength    = cell.MaxKeyValueRowLength
	MaxFamilyLength = cell.MaxKeyValueFamilyLength
)

// Fixed sizes of the KeyValue layout:
//
//	int32 L | int32 keyLen | int32 valueLen | int16 rowLen | row |
//	int8 famLen | family | qualifier | int64 ts | int8 type | value
const (
	kvLenPrefix  = 4                                     // int32 L
	kvLensSize   = 8                                     // keyLen + valueLen
	kvKeyFixed   = 2 + 1 + 8 + 1                         // rowLen, famLen, ts, type
	minKVSize    = kvLensSize + kvKeyFixed               // L of an all-empty cell
	minCellBytes = kvLenPrefix + kvLensSize + kvKeyFixed // smallest encoded cell
)

// CellBlockSize returns the encoded size of cells as a KeyValueCodec
// cellblock, or an error if a cell cannot be encoded (row longer than
// MaxRowLength, family longer than MaxFamilyLength, or a cell or block whose
// length does not fit the format's 32-bit lengths).
func CellBlockSize(cells []cell.Cell) (int, error) {
	total := 0
	for i := range cells {
		n, err := encodedCellSize(&cells[i])
		if err != nil {
			return 0, fmt.Errorf("hbaserpc: cell %d: %w", i, err)
		}
		total += n
		if total > math.MaxInt32 {
			return 0, fmt.Errorf("hbaserpc: cellblock larger than %d bytes", math.MaxInt32)
		}
	}
	return total, nil
}

// encodedCellSize is the size of one cell including its int32 length prefix.
func encodedCellSize(c *cell.Cell) (int, error) {
	if len(c.Row) > MaxRowLength {
		return 0, fmt.Errorf("row length %d exceeds %d", len(c.Row), MaxRowLength)
	}
	if len(c.Family) > MaxFamilyLength {
		return 0, fmt.Errorf("family length %d exceeds %d", len(c.Family), MaxFamilyLength)
	}
	n := int64(kvLenPrefix+minKVSize) + int64(len(c.Row)) + int64(len(c.Family)) +
		int64(len(c.Qualifier)) + int64(len(c.Value))
	if n-kvLenPrefix > math.MaxInt32 {
		return 0, fmt.Errorf("cell of %d bytes does not fit a KeyValue", n)
	}
	return int(n), nil
}

// AppendCellBlock appends cells to dst in KeyValueCodec format (no tags) and
// returns the extended slice. It fails, leaving dst's contents unchanged, if
// CellBlockSize would.
func AppendCellBlock(dst []byte, cells []cell.Cell) ([]byte, error) {
	size, err := CellBlockSize(cells)
	if err != nil {
		return dst, err
	}
	if cap(dst)-len(dst) < size {
		nb := make([]byte, len(dst), len(dst)+size)
		copy(nb, dst)
		dst = nb
	}
	for i := range cells {
		dst = appendCell(dst, &cells[i])
	}
	return dst, nil
}

// appendCell encodes one cell whose lengths encodedCellSize has checked.
func appendCell(dst []byte, c *cell.Cell) []byte {
	return cell.AppendKeyValue(dst, c.Row, c.Family, c.Qualifier, c.Timestamp, c.Type, c.Value)
}

// CellBlockError describes a malformed cellblock: which cell, at which byte
// offset of the block, and what was wrong.
type CellBlockError struct {
	Cell   int    // index of the offending cell
	Offset int    // byte offset of that cell's length prefix
	Reason string // what was wrong
}

func (e *CellBlockError) Error() string {
	return fmt.Sprintf("hbaserpc: malformed cellblock: cell %d at offset %d: %s", e.Cell, e.Offset, e.Reason)
}

// CountCells walks the int32 length prefixes of a KeyValueCodec cellblock
// and returns the number of cells, checking only that the prefixes tile b
// exactly and that each is at least the size of an empty KeyValue.
func CountCells(b []byte) (int, error) {
	n := 0
	for off := 0; off < len(b); n++ {
		l, err := cellLen(b, off, n)
		if err != nil {
			return 0, err
		}
		off += kvLenPrefix + l
	}
	return n, nil
}

func cellLen(b []byte, off, idx int) (int, error) {
	if len(b)-off < kvLenPrefix {
		return 0, &CellBlockError{idx, off, fmt.Sprintf("truncated length prefix (%d bytes left)", len(b)-off)}
	}
	l := int64(int32(binary.BigEndian.Uint32(b[off:])))
	if l < minKVSize {
		return 0, &CellBlockError{idx, off, fmt.Sprintf("length %d below the minimum KeyValue size %d", l, minKVSize)}
	}
	if l > int64(len(b)-off-kvLenPrefix) {
		return 0, &CellBlockError{idx, off, fmt.Sprintf("length %d exceeds the %d bytes left", l, len(b)-off-kvLenPrefix)}
	}
	return int(l), nil
}

// DecodeCellBlock decodes a KeyValueCodec cellblock. The returned cells'
// byte slices alias b (with capacity clipped, so appending to one never
// overwrites another). maxCells > 0 bounds the number of cells accepted.
// Every length is checked against the others and against len(b); a
// malformed block yields a *CellBlockError. The type byte is passed through
// unchecked (see cell.Type.Valid).
func DecodeCellBlock(b []byte, maxCells int) ([]cell.Cell, error) {
	return decodeCellBlockInto(nil, b, maxCells)
}

// decodeCellBlockInto is DecodeCellBlock into dst's array when it is large
// enough (a lending caller's reused slice), else into a new one.
func decodeCellBlockInto(dst []cell.Cell, b []byte, maxCells int) ([]cell.Cell, error) {
	if len(b) == 0 {
		return nil, nil
	}
	// One pass: the slice is sized from the first cell's length (the
	// cells of a block are mostly alike), so the block is read once.
	l0, err := cellLen(b, 0, 0)
	if err != nil {
		return nil, err
	}
	est := len(b)/(kvLenPrefix+l0) + 1
	if maxCells > 0 {
		est = min(est, maxCells)
	}
	cells := dst[:0]
	if cap(cells) < est {
		cells = make([]cell.Cell, 0, est)
	}
	for off := 0; off < len(b); {
		i := len(cells)
		if maxCells > 0 && i == maxCells {
			break // the careful loop below says why
		}
		if i == cap(cells) {
			cells = append(cells, cell.Cell{})[:i]
		}
		n, ok := cell.DecodeKeyValueTo(b[off:], &cells[:i+1][i])
		if !ok {
			break // malformed: the careful loop below says how
		}
		cells, off = cells[:i+1], off+n
		if off == len(b) {
			return cells, nil
		}
	}
	return decodeCellBlockCareful(cells, b, maxCells)
}

// decodeCellBlockCareful is decodeCellBlockInto making each check in
// turn, to say what is wrong with a malformed block or one over maxCells
// (the fast loop only sees that something is). dst has room for the
// block's cells.
func decodeCellBlockCareful(dst []cell.Cell, b []byte, maxCells int) ([]cell.Cell, error) {
	cells := dst[:0]
	for off := 0; off < len(b); {
		i := len(cells)
		l, err := cellLen(b, off, i)
		if err != nil {
			return nil, err
		}
		if maxCells > 0 && i == maxCells {
			n, err := CountCells(b)
			if err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("hbaserpc: cellblock holds %d cells, more than the limit %d", n, maxCells)
		}
		cells = append(cells, cell.Cell{})
		if err := decodeKV(b[off+kvLenPrefix:off+kvLenPrefix+l], &cells[i]); err != nil {
			return nil, &CellBlockError{i, off, err.Error()}
		}
		off += kvLenPrefix + l
	}
	return cells, nil
}

// decodeKV decodes one KeyValue (after its L prefix); kv holds exactly L
// bytes, at least minKVSize.
func decodeKV(kv []byte, c *cell.Cell) error {
	keyLen := int64(int32(binary.BigEndian.Uint32(kv)))
	valLen := int64(int32(binary.BigEndian.Uint32(kv[4:])))
	if keyLen < kvKeyFixed {
		return fmt.Errorf("key length %d below the minimum %d", keyLen, kvKeyFixed)
	}
	if valLen < 0 {
		return fmt.Errorf("negative value length %d", valLen)
	}
	if kvLensSize+keyLen+valLen != int64(len(kv)) {
		return fmt.Errorf("key length %d + value length %d do not add up to the cell length %d", keyLen, valLen, len(kv)-kvLensSize)
	}
	key := kv[kvLensSize : kvLensSize+keyLen]
	rowLen := int64(int16(binary.BigEndian.Uint16(key)))
	if rowLen < 0 {
		return fmt.Errorf("negative row length %d", rowLen)
	}
	// key = rowLen(2) row famLen(1) family qualifier ts(8) type(1)
	if 2+rowLen+1+8+1 > keyLen {
		return fmt.Errorf("row length %d overruns the key of %d bytes", rowLen, keyLen)
	}
	famAt := 2 + rowLen
	famLen := int64(int8(key[famAt]))
	if famLen < 0 {
		return fmt.Errorf("negative family length %d", famLen)
	}
	qualLen := keyLen - (kvKeyFixed + rowLen + famLen)
	if qualLen < 0 {
		return fmt.Errorf("family length %d overruns the key of %d bytes", famLen, keyLen)
	}
	p := famAt + 1
	c.Row = key[2:famAt:famAt]
	c.Family = key[p : p+famLen : p+famLen]
	p += famLen
	c.Qualifier = key[p : p+qualLen : p+qualLen]
	p += qualLen
	c.Timestamp = int64(binary.BigEndian.Uint64(key[p:]))
	c.Type = cell.Type(key[p+8])
	c.Value = kv[kvLensSize+keyLen : len(kv) : len(kv)]
	return nil
}
