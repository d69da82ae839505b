package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// The byte-exact layout is specified in docs/format/keys.md; keep the two in
// step. In short, a cell's key is
//
//	table(4, big-endian) | esc(row) 00 01 | esc(family) 00 01 | tag(1)
//	  [ esc(qualifier) 00 01 ]   (only when tag = 0x01)
//	  | ^timestamp(8, big-endian) | 255-type(1)
//
// where esc doubles every 0x00 as 00 FF. The escape is order preserving and
// prefix free, so rows sort in HBase's unsigned-byte order, a row's cells are
// one contiguous range, and a region [start, end) is the contiguous range
// [RowPrefix(start), RowPrefix(end)).

// ErrCorruptKey is returned (wrapped) when a key does not follow the layout.
var ErrCorruptKey = errors.New("storage: corrupt key")

const (
	// TableIDLen is the size of the table id that prefixes every key.
	TableIDLen = 4
	// MetaTableID is reserved for the store's own metadata keys.
	MetaTableID uint32 = 0

	escByte  = 0x00
	escZero  = 0xFF // 00 FF encodes a literal 0x00
	escTerm  = 0x01 // 00 01 ends an escaped segment
	tagFam   = 0x00 // family-level delete markers
	tagCol   = 0x01 // a column: an escaped qualifier follows
	tsLen    = 8
	typeLen  = 1
	typeBase = 255
)

// Family-level cell type codes (DeleteFamily, DeleteFamilyVersion): these
// keys carry tag 0x00 and no qualifier so they sort ahead of the family's
// columns. The numbers are HBase's KeyValue.Type codes.
const (
	typeDeleteFamilyVersion = 10
	typeDeleteFamily        = 14
)

func isFamilyType(t uint8) bool { return t == typeDeleteFamily || t == typeDeleteFamilyVersion }

// AppendTablePrefix appends the 4-byte id that starts every key of a table.
func AppendTablePrefix(dst []byte, table uint32) []byte {
	return binary.BigEndian.AppendUint32(dst, table)
}

// TableUpperBound returns the exclusive upper bound of a table's keys. The
// last table id (math.MaxUint32) has none: its rows may start with any
// number of 0xFF bytes, so no finite key sorts after all of them, and nil
// (Pebble's "unbounded") is returned.
func TableUpperBound(table uint32) []byte {
	if table == ^uint32(0) {
		return nil
	}
	return AppendTablePrefix(nil, table+1)
}

func appendEscaped(dst, b []byte) []byte {
	for {
		i := bytes.IndexByte(b, escByte)
		if i < 0 {
			dst = append(dst, b...)
			break
		}
		dst = append(dst, b[:i+1]...)
		dst = append(dst, escZero)
		b = b[i+1:]
	}
	return append(dst, escByte, escTerm)
}

// AppendRowPrefix appends the prefix shared by every key of row: all of the
// row's cells, and nothing else, start with it.
func AppendRowPrefix(dst []byte, table uint32, row []byte) []byte {
	return appendEscaped(AppendTablePrefix(dst, table), row)
}

// RowUpperBound returns the exclusive upper bound of a row's keys, given
// its prefix (from AppendRowPrefix). It reuses dst.
func RowUpperBound(dst, rowPrefix []byte) []byte {
	dst = append(dst[:0], rowPrefix...)
	dst[len(dst)-1]++ // 00 01 -> 00 02: above the row, below any longer row (00 FF)
	return dst
}

// RegionLowerBound is the inclusive lower key of the rows >= startRow of a
// table; an empty startRow means the table's first row.
func RegionLowerBound(table uint32, startRow []byte) []byte {
	if len(startRow) == 0 {
		return AppendTablePrefix(nil, table)
	}
	return AppendRowPrefix(nil, table, startRow)
}

// RegionUpperBound is the exclusive upper key of the rows < endRow of a
// table; an empty endRow means past the table's last row (nil, unbounded,
// for the last table id: see TableUpperBound).
func RegionUpperBound(table uint32, endRow []byte) []byte {
	if len(endRow) == 0 {
		return TableUpperBound(table)
	}
	return AppendRowPrefix(nil, table, endRow)
}

// AppendFamilyPrefix appends the prefix of every key of one family of a row.
func AppendFamilyPrefix(dst, rowPrefix, family []byte) []byte {
	return appendEscaped(append(dst, rowPrefix...), family)
}

// AppendColumnPrefix appends the prefix of every version of one column.
func AppendColumnPrefix(dst, familyPrefix, qualifier []byte) []byte {
	dst = append(append(dst, familyPrefix...), tagCol)
	return appendEscaped(dst, qualifier)
}

// AppendCellKey appends the full key of a cell. typ is the HBase type code;
// the family-level types (DeleteFamily, DeleteFamilyVersion) ignore
// qualifier, which must be empty. ts must be >= 0.
func AppendCellKey(dst []byte, table uint32, row, family, qualifier []byte, ts int64, typ uint8) []byte {
	return appendCellSuffix(AppendRowPrefix(dst, table, row), family, qualifier, ts, typ)
}

// AppendCellKeyInRow is AppendCellKey for a row whose prefix
// (AppendRowPrefix) is at hand.
func AppendCellKeyInRow(dst, rowPrefix, family, qualifier []byte, ts int64, typ uint8) []byte {
	return appendCellSuffix(append(dst, rowPrefix...), family, qualifier, ts, typ)
}

// appendCellSuffix appends what follows a cell key's row prefix.
func appendCellSuffix(dst, family, qualifier []byte, ts int64, typ uint8) []byte {
	dst = appendEscaped(dst, family)
	if isFamilyType(typ) {
		dst = append(dst, tagFam)
	} else {
		dst = append(dst, tagCol)
		dst = appendEscaped(dst, qualifier)
	}
	return AppendVersionSuffix(dst, ts, typ)
}

// IsRowKey reports whether key is a row prefix alone (AppendRowPrefix),
// which the store uses as the key of a row's image: it sorts before every
// cell key of the row and has the row's Split.
func IsRowKey(key []byte) bool {
	n := len(key)
	return n >= TableIDLen+2 && key[n-2] == escByte && key[n-1] == escTerm && RowPrefixLen(key) == n
}

// AppendVersionSuffix appends the timestamp and type that end a cell key.
func AppendVersionSuffix(dst []byte, ts int64, typ uint8) []byte {
	dst = binary.BigEndian.AppendUint64(dst, ^uint64(ts))
	return append(dst, typeBase-typ)
}

// CellKey is a decoded cell key. Its slices alias the encoded key when the
// segment held no escaped zero, and fresh memory otherwise.
type CellKey struct {
	Table     uint32
	Row       []byte
	Family    []byte
	Qualifier []byte
	Timestamp int64
	Type      uint8
	// RowPrefixLen is the length of the key's row prefix (table + row).
	RowPrefixLen int
	// ColumnPrefixLen is the length up to the timestamp (the column's prefix,
	// or the family marker's prefix).
	ColumnPrefixLen int
}

// unescape decodes one escaped segment at the start of b and returns it and
// the number of bytes consumed. scratch may be used for the result.
func unescape(b []byte) (seg []byte, n int, err error) {
	i := bytes.IndexByte(b, escByte)
	if i < 0 || i+1 >= len(b) {
		return nil, 0, fmt.Errorf("%w: unterminated segment", ErrCorruptKey)
	}
	if b[i+1] == escTerm {
		return b[:i:i], i + 2, nil // common case: no zero inside, alias
	}
	var out []byte
	for {
		if i+1 >= len(b) {
			return nil, 0, fmt.Errorf("%w: unterminated segment", ErrCorruptKey)
		}
		switch b[i+1] {
		case escTerm:
			out = append(out, b[n:i]...)
			return out, i + 2, nil
		case escZero:
			out = append(out, b[n:i+1]...)
			n = i + 2
		default:
			return nil, 0, fmt.Errorf("%w: bad escape 00 %02x", ErrCorruptKey, b[i+1])
		}
		j := bytes.IndexByte(b[n:], escByte)
		if j < 0 {
			return nil, 0, fmt.Errorf("%w: unterminated segment", ErrCorruptKey)
		}
		i = n + j
	}
}

// DecodeCellKey parses a key written by AppendCellKey.
func DecodeCellKey(key []byte) (CellKey, error) {
	var k CellKey
	if len(key) < TableIDLen {
		return k, fmt.Errorf("%w: %d bytes, shorter than a table id", ErrCorruptKey, len(key))
	}
	row, n, err := unescape(key[TableIDLen:])
	if err != nil {
		return k, fmt.Errorf("row: %w", err)
	}
	k, err = DecodeCellKeyInRow(key, TableIDLen+n)
	k.Row = row
	return k, err
}

// DecodeCellKeyInRow parses a key written by AppendCellKey whose row prefix
// (table and row, as RowPrefixLen gives it) is known to be
// key[:rowPrefixLen]: it leaves Row nil and decodes only what follows, so
// reading a row's cells does not decode the row again for each.
func DecodeCellKeyInRow(key []byte, rowPrefixLen int) (CellKey, error) {
	var k CellKey
	if len(key) < TableIDLen || rowPrefixLen < TableIDLen || rowPrefixLen > len(key) {
		return k, fmt.Errorf("%w: row prefix of %d bytes in a %d-byte key", ErrCorruptKey, rowPrefixLen, len(key))
	}
	k.Table = binary.BigEndian.Uint32(key)
	off := rowPrefixLen
	k.RowPrefixLen = off
	var n int
	var err error
	if k.Family, n, err = unescape(key[off:]); err != nil {
		return k, fmt.Errorf("family: %w", err)
	}
	off += n
	return k, DecodeColumn(key, off, &k)
}

// DecodeColumn decodes what follows a cell key's family prefix, which ends
// at off: the column tag, the qualifier, the timestamp and the type. It
// sets k's Qualifier, Timestamp, Type and ColumnPrefixLen only, so that a
// reader that has matched the family prefix already (the next cell of the
// same family) skips decoding the row and family again.
func DecodeColumn(key []byte, off int, k *CellKey) error {
	// The common case first: a column (not a family marker) whose
	// qualifier holds no zero byte. Its segment then ends just before the
	// 9-byte version suffix, so the qualifier is located from the key's end
	// and only checked for zeros; anything else, corrupt keys included,
	// takes the general decoding below, which also words the errors.
	if end := len(key) - tsLen - typeLen; off >= 0 && off+3 <= end &&
		key[off] == tagCol && key[end-2] == escByte && key[end-1] == escTerm {
		q := key[off+1 : end-2 : end-2]
		ts := ^binary.BigEndian.Uint64(key[end:])
		typ := typeBase - key[end+tsLen]
		if ts <= 1<<63-1 && !isFamilyType(typ) && bytes.IndexByte(q, escByte) < 0 {
			k.Qualifier, k.ColumnPrefixLen, k.Timestamp, k.Type = q, end, int64(ts), typ
			return nil
		}
	}
	return decodeColumn(key, off, k)
}

// decodeColumn is DecodeColumn's general case.
func decodeColumn(key []byte, off int, k *CellKey) error {
	if off >= len(key) {
		return fmt.Errorf("%w: missing column tag", ErrCorruptKey)
	}
	tag := key[off]
	off++
	k.Qualifier = nil
	switch tag {
	case tagFam:
	case tagCol:
		var n int
		var err error
		if k.Qualifier, n, err = unescape(key[off:]); err != nil {
			return fmt.Errorf("qualifier: %w", err)
		}
		off += n
	default:
		return fmt.Errorf("%w: bad column tag %02x", ErrCorruptKey, tag)
	}
	k.ColumnPrefixLen = off
	if len(key)-off != tsLen+typeLen {
		return fmt.Errorf("%w: %d bytes after the column, want %d", ErrCorruptKey, len(key)-off, tsLen+typeLen)
	}
	ts := ^binary.BigEndian.Uint64(key[off:])
	if ts > 1<<63-1 {
		return fmt.Errorf("%w: negative timestamp", ErrCorruptKey)
	}
	k.Timestamp = int64(ts)
	k.Type = typeBase - key[off+tsLen]
	if isFamilyType(k.Type) != (tag == tagFam) {
		return fmt.Errorf("%w: type %d does not match column tag %02x", ErrCorruptKey, k.Type, tag)
	}
	return nil
}

// RowPrefixLen returns the length of key's table+row prefix, or len(key) if
// key is not a cell key. It is Pebble's Split: bloom filters and prefix
// iteration work per row, like HBase's ROW bloom filter.
func RowPrefixLen(key []byte) int {
	if len(key) < TableIDLen {
		return len(key)
	}
	for off := TableIDLen; ; {
		i := bytes.IndexByte(key[off:], escByte)
		if i < 0 || off+i+1 >= len(key) {
			return len(key)
		}
		if key[off+i+1] == escTerm {
			return off + i + 2
		}
		off += i + 2
	}
}

// DecodeRow returns the table and row of any key that starts with a row
// prefix (a cell key, or a row prefix itself).
func DecodeRow(key []byte) (table uint32, row []byte, err error) {
	if len(key) < TableIDLen {
		return 0, nil, fmt.Errorf("%w: %d bytes, shorter than a table id", ErrCorruptKey, len(key))
	}
	row, _, err = unescape(key[TableIDLen:])
	if err != nil {
		return 0, nil, fmt.Errorf("row: %w", err)
	}
	return binary.BigEndian.Uint32(key), row, nil
}
