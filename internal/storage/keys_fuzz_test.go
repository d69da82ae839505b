package storage

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"testing"
)

// FuzzDecodeCellKey: arbitrary bytes never panic the decoder, a failure
// always wraps ErrCorruptKey, and a key that decodes is the one and only
// encoding of what it decodes to.
func FuzzDecodeCellKey(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 1})
	f.Add([]byte{0, 0, 0, 1, 'r', 0, 5})
	f.Add(AppendCellKey(nil, 1, []byte("row"), []byte("cf"), []byte("q"), 42, typePut))
	f.Add(AppendCellKey(nil, 0, []byte{0}, []byte{0, 0}, []byte{0xFF, 0}, 0, typeDelete))
	f.Add(AppendCellKey(nil, math.MaxUint32, nil, nil, nil, math.MaxInt64, typeDeleteFamily))
	f.Add(AppendCellKey(nil, 9, []byte("\x00\x01"), []byte("f"), nil, 1, typeDeleteFamilyVersion))
	f.Fuzz(func(t *testing.T, key []byte) {
		n := RowPrefixLen(key) // must not panic on any input
		if n < 0 || n > len(key) {
			t.Fatalf("RowPrefixLen(%x) = %d, out of [0, %d]", key, n, len(key))
		}
		k, err := DecodeCellKey(key)
		if err != nil {
			if !errors.Is(err, ErrCorruptKey) {
				t.Fatalf("DecodeCellKey(%x): %v does not wrap ErrCorruptKey", key, err)
			}
			return
		}
		if k.Timestamp < 0 {
			t.Fatalf("DecodeCellKey(%x): negative timestamp %d", key, k.Timestamp)
		}
		re := AppendCellKey(nil, k.Table, k.Row, k.Family, k.Qualifier, k.Timestamp, k.Type)
		if !bytes.Equal(re, key) {
			t.Fatalf("DecodeCellKey(%x) re-encodes to %x", key, re)
		}
		if n != k.RowPrefixLen {
			t.Fatalf("RowPrefixLen(%x) = %d, DecodeCellKey says %d", key, n, k.RowPrefixLen)
		}
		if k.ColumnPrefixLen != len(key)-tsLen-typeLen {
			t.Fatalf("ColumnPrefixLen = %d for a %d-byte key", k.ColumnPrefixLen, len(key))
		}
		in, err := DecodeCellKeyInRow(key, k.RowPrefixLen)
		if k.Row = nil; err != nil || !reflect.DeepEqual(in, k) {
			t.Fatalf("DecodeCellKeyInRow(%x, %d) = %+v, %v; DecodeCellKey gives %+v", key, k.RowPrefixLen, in, err, k)
		}
	})
}

// FuzzCellKeyRoundTrip: every cell round-trips through its key, and the
// key's Split (RowPrefixLen) is exactly its row prefix.
func FuzzCellKeyRoundTrip(f *testing.F) {
	f.Add(uint32(1), []byte("row"), []byte("cf"), []byte("q"), int64(42), uint8(0))
	f.Add(uint32(0), []byte{}, []byte{}, []byte{}, int64(0), uint8(1))
	f.Add(uint32(7), []byte{0, 0}, []byte{0, 1}, []byte{1, 0, 0xFF}, int64(math.MaxInt64), uint8(2))
	f.Add(uint32(math.MaxUint32), []byte{0xFF}, []byte{0}, []byte("ignored"), int64(1), uint8(4))
	f.Add(uint32(3), []byte("a\x00"), []byte("\xff"), []byte{}, int64(-5), uint8(3))
	f.Fuzz(func(t *testing.T, table uint32, row, family, qualifier []byte, ts int64, typeIdx uint8) {
		if ts < 0 {
			ts = -(ts + 1) // fold onto [0, MaxInt64]
		}
		c := testCell{table: table, row: row, family: family, qualifier: qualifier, ts: ts,
			typ: cellTypes[int(typeIdx)%len(cellTypes)]}
		key := c.key()
		k, err := DecodeCellKey(key)
		if err != nil {
			t.Fatalf("DecodeCellKey(key(%v)) = %v", c, err)
		}
		checkDecoded(t, c, key, k)
	})
}

// FuzzDecodeColumn: from any offset, arbitrary bytes never panic the
// column decoder and a failure wraps ErrCorruptKey; from the end of a
// valid key's family prefix it decodes what DecodeCellKey does.
func FuzzDecodeColumn(f *testing.F) {
	f.Add(AppendCellKey(nil, 1, []byte("row"), []byte("cf"), []byte("q"), 42, typePut), 0)
	f.Add(AppendCellKey(nil, 2, []byte{0}, []byte{0, 0}, []byte{0xFF, 0}, 7, typeDelete), 11)
	f.Add(AppendCellKey(nil, 3, []byte("r"), []byte("f"), nil, 1, typeDeleteFamily), 9)
	f.Add([]byte{0, 0, 0, 1, 'r', 0, 1, 'f', 0, 1, 1, 'q', 0}, 10)
	// A family marker's type behind a column tag, and a timestamp with the
	// sign bit set: both valid-looking to the fast path's framing.
	f.Add([]byte{0, 0, 0, 1, 'r', 0, 1, 'f', 0, 1, 1, 'q', 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0, 255 - typeDeleteFamily}, 10)
	f.Add([]byte{0, 0, 0, 1, 'r', 0, 1, 'f', 0, 1, 1, 'q', 0, 1, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0, 255 - typePut}, 10)
	f.Fuzz(func(t *testing.T, key []byte, off int) {
		if off >= 0 && off <= len(key) {
			var k CellKey
			err := DecodeColumn(key, off, &k)
			if err != nil && !errors.Is(err, ErrCorruptKey) {
				t.Fatalf("DecodeColumn(%x, %d): %v does not wrap ErrCorruptKey", key, off, err)
			}
			// The fast path agrees with the general decoding, errors too.
			var g CellKey
			gerr := decodeColumn(key, off, &g)
			if (err == nil) != (gerr == nil) || err == nil && (!bytes.Equal(k.Qualifier, g.Qualifier) ||
				(k.Qualifier == nil) != (g.Qualifier == nil) || k.Timestamp != g.Timestamp || k.Type != g.Type ||
				k.ColumnPrefixLen != g.ColumnPrefixLen) {
				t.Fatalf("DecodeColumn(%x, %d) = %+v, %v; the general decoding gives %+v, %v", key, off, k, err, g, gerr)
			}
		}
		want, err := DecodeCellKey(key)
		if err != nil {
			return
		}
		famEnd := want.RowPrefixLen + len(appendEscaped(nil, want.Family))
		var k CellKey
		if err := DecodeColumn(key, famEnd, &k); err != nil {
			t.Fatalf("DecodeColumn(%x, %d) = %v; DecodeCellKey decodes it", key, famEnd, err)
		}
		if !bytes.Equal(k.Qualifier, want.Qualifier) || k.Timestamp != want.Timestamp || k.Type != want.Type ||
			k.ColumnPrefixLen != want.ColumnPrefixLen {
			t.Fatalf("DecodeColumn(%x, %d) = %+v, DecodeCellKey = %+v", key, famEnd, k, want)
		}
	})
}

// FuzzDecodeRow: arbitrary bytes never panic DecodeRow, a failure wraps
// ErrCorruptKey, and a key it decodes starts with exactly the row prefix of
// what it decodes to, the prefix Split (RowPrefixLen) finds; on a cell key
// it agrees with DecodeCellKey.
func FuzzDecodeRow(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{0, 0, 0, 1})
	f.Add([]byte{0, 0, 0, 1, 'r', 0})
	f.Add([]byte{0, 0, 0, 1, 'r', 0, 5})
	f.Add([]byte{0, 0, 0, 1, 'r', 0, 0xFF})
	f.Add(AppendRowPrefix(nil, 1, []byte("row")))
	f.Add(AppendRowPrefix(nil, math.MaxUint32, []byte{0, 0xFF, 0}))
	f.Add(AppendCellKey(nil, 1, []byte("row"), []byte("cf"), []byte("q"), 42, typePut))
	f.Add(AppendCellKey(nil, 9, []byte("\x00\x01"), []byte("f"), nil, 1, typeDeleteFamilyVersion))
	f.Add(RowUpperBound(nil, AppendRowPrefix(nil, 2, []byte("r"))))
	f.Fuzz(func(t *testing.T, key []byte) {
		table, row, err := DecodeRow(key)
		if err != nil {
			if !errors.Is(err, ErrCorruptKey) {
				t.Fatalf("DecodeRow(%x): %v does not wrap ErrCorruptKey", key, err)
			}
			return
		}
		prefix := AppendRowPrefix(nil, table, row)
		if !bytes.HasPrefix(key, prefix) {
			t.Fatalf("DecodeRow(%x) = %d, %x, whose row prefix %x does not start the key", key, table, row, prefix)
		}
		if n := RowPrefixLen(key); n != len(prefix) {
			t.Fatalf("DecodeRow(%x) = %d, %x: row prefix of %d bytes, RowPrefixLen says %d", key, table, row, len(prefix), n)
		}
		if IsRowKey(key) != (len(key) == len(prefix)) {
			t.Fatalf("IsRowKey(%x) = %v for a %d-byte row prefix", key, IsRowKey(key), len(prefix))
		}
		if k, err := DecodeCellKey(key); err == nil && (k.Table != table || !bytes.Equal(k.Row, row)) {
			t.Fatalf("DecodeRow(%x) = %d, %x; DecodeCellKey = %d, %x", key, table, row, k.Table, k.Row)
		}
	})
}

// FuzzRowPrefixRoundTrip: the row prefix of any row decodes back to it
// whatever follows it (the escape is prefix free), so every key of the
// row, and the row's image key, yields the row.
func FuzzRowPrefixRoundTrip(f *testing.F) {
	f.Add(uint32(1), []byte("row"), []byte{})
	f.Add(uint32(0), []byte{}, []byte{0})
	f.Add(uint32(math.MaxUint32), []byte{0, 0, 0xFF, 1}, []byte{0, 1})
	f.Add(uint32(7), []byte("a\x00"), []byte("\x00\xffcf\x00\x01"))
	f.Fuzz(func(t *testing.T, table uint32, row, rest []byte) {
		key := append(AppendRowPrefix(nil, table, row), rest...)
		gotTable, gotRow, err := DecodeRow(key)
		if err != nil || gotTable != table || !bytes.Equal(gotRow, row) {
			t.Fatalf("DecodeRow(%x) = %d, %x, %v; want %d, %x", key, gotTable, gotRow, err, table, row)
		}
	})
}
