package cell

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestAppendKeyValue checks the byte layout of one KeyValue, appended
// after existing bytes, and that Size plus KeyValueOverhead is its length.
func TestAppendKeyValue(t *testing.T) {
	c := Cell{Row: []byte("row"), Family: []byte("f"), Qualifier: []byte("qq"), Timestamp: 0x0102030405060708, Type: TypeDeleteColumn, Value: []byte("value")}
	got := AppendKeyValue([]byte("x"), c.Row, c.Family, c.Qualifier, c.Timestamp, c.Type, c.Value)
	want := []byte("x" +
		"\x00\x00\x00\x1f" + // L = 8 + keyLen + valueLen = 8 + 18 + 5
		"\x00\x00\x00\x12" + // keyLen = 2 + 3 + 1 + 1 + 2 + 8 + 1
		"\x00\x00\x00\x05" + // valueLen
		"\x00\x03row" + "\x01f" + "qq" +
		"\x01\x02\x03\x04\x05\x06\x07\x08" + "\x0c" + "value")
	if !bytes.Equal(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if n := len(got) - 1; n != c.Size()+KeyValueOverhead {
		t.Fatalf("encoded %d bytes, Size %d + overhead %d", n, c.Size(), KeyValueOverhead)
	}
}

// TestAppendKeyValueWithHead checks that encoding through a row and
// family head gives AppendKeyValue's bytes, for empty and full-length
// coordinates, into a buffer that has to grow and one that has room.
func TestAppendKeyValueWithHead(t *testing.T) {
	for _, c := range []Cell{
		{Row: []byte("row"), Family: []byte("f"), Qualifier: []byte("qq"), Timestamp: 7, Type: TypePut, Value: []byte("value")},
		{Row: []byte("r"), Family: nil, Qualifier: nil, Timestamp: 0, Type: TypeDeleteFamily, Value: nil},
		{Row: bytes.Repeat([]byte("r"), MaxKeyValueRowLength), Family: bytes.Repeat([]byte("f"), MaxKeyValueFamilyLength),
			Qualifier: []byte("q"), Timestamp: -1, Type: TypeDelete, Value: bytes.Repeat([]byte("v"), 300)},
	} {
		want := AppendKeyValue([]byte("x"), c.Row, c.Family, c.Qualifier, c.Timestamp, c.Type, c.Value)
		head := AppendKeyValueHead(nil, c.Row, c.Family)
		for _, dst := range [][]byte{[]byte("x"), append(make([]byte, 0, 1<<17), 'x')} {
			if got := AppendKeyValueWithHead(dst, head, c.Qualifier, c.Timestamp, c.Type, c.Value); !bytes.Equal(got, want) {
				t.Fatalf("row of %d bytes: got %q\nwant %q", len(c.Row), got, want)
			}
		}
	}
}

func TestCheckKeyValue(t *testing.T) {
	for _, tc := range []struct {
		row, fam, qual, val int
		want                string // "" = fits
	}{
		{MaxKeyValueRowLength, MaxKeyValueFamilyLength, 10, 10, ""},
		{MaxKeyValueRowLength + 1, 1, 0, 0, "row length"},
		{1, MaxKeyValueFamilyLength + 1, 0, 0, "family length"},
		{1, 1, 1 << 30, 1 << 30, "cell of"},
	} {
		err := CheckKeyValue(tc.row, tc.fam, tc.qual, tc.val)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", tc, err)
			}
			continue
		}
		if !errors.Is(err, ErrKeyValueTooLarge) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want ErrKeyValueTooLarge about %q", tc, err, tc.want)
		}
	}
}

// TestDecodeKeyValue decodes what AppendKeyValue wrote, one KeyValue after
// another, and names what is wrong with truncated or inconsistent bytes.
func TestDecodeKeyValue(t *testing.T) {
	cells := []Cell{
		{Row: []byte("row"), Family: []byte("f"), Qualifier: []byte("qq"), Timestamp: 7, Type: TypePut, Value: []byte("value")},
		{Row: []byte("r"), Family: nil, Qualifier: nil, Timestamp: 0, Type: TypeDeleteFamily, Value: nil},
		{Row: bytes.Repeat([]byte("r"), MaxKeyValueRowLength), Family: bytes.Repeat([]byte("f"), MaxKeyValueFamilyLength),
			Qualifier: []byte("q"), Timestamp: 1 << 40, Type: TypeDelete, Value: bytes.Repeat([]byte("v"), 300)},
	}
	var block []byte
	for _, c := range cells {
		block = AppendKeyValue(block, c.Row, c.Family, c.Qualifier, c.Timestamp, c.Type, c.Value)
	}
	for i, rest := 0, block; len(rest) > 0; i++ {
		c, n, err := DecodeKeyValue(rest)
		if err != nil {
			t.Fatalf("cell %d: %v", i, err)
		}
		if want := cells[i]; Compare(&c, &want) != 0 || !bytes.Equal(c.Value, want.Value) {
			t.Fatalf("cell %d: got %v, want %v", i, c, want)
		}
		rest = rest[n:]
	}
	one := AppendKeyValue(nil, []byte("row"), []byte("f"), []byte("q"), 1, TypePut, []byte("v"))
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"short", one[:11], "shorter than the lengths"},
		{"truncated", one[:len(one)-1], "length"},
		{"row past key", func() []byte { b := bytes.Clone(one); b[12], b[13] = 0, 200; return b }(), "row of 200 bytes"},
		{"family past key", func() []byte { b := bytes.Clone(one); b[17] = 100; return b }(), "family of 100 bytes"},
	} {
		_, _, err := DecodeKeyValue(tc.b)
		if !errors.Is(err, ErrCorruptKeyValue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrCorruptKeyValue naming %q", tc.name, err, tc.want)
		}
	}
}

// FuzzDecodeKeyValue: DecodeKeyValue never panics, stays within its input,
// and what it decodes encodes back to the same bytes.
func FuzzDecodeKeyValue(f *testing.F) {
	f.Add(AppendKeyValue(nil, []byte("row"), []byte("f"), []byte("q"), 1, TypePut, []byte("v")))
	f.Add(AppendKeyValue(nil, nil, nil, nil, 0, TypeDeleteFamily, nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, n, err := DecodeKeyValue(b)
		if err != nil {
			return
		}
		if n <= 0 || n > len(b) {
			t.Fatalf("consumed %d of %d bytes", n, len(b))
		}
		if got := AppendKeyValue(nil, c.Row, c.Family, c.Qualifier, c.Timestamp, c.Type, c.Value); !bytes.Equal(got, b[:n]) {
			t.Fatalf("re-encoded %x, decoded from %x", got, b[:n])
		}
	})
}
