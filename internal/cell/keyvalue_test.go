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
