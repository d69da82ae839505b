package hbaserpc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/cell"
)

func testCells() []cell.Cell {
	return []cell.Cell{
		{Row: []byte("row1"), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 42, Type: cell.TypePut, Value: []byte("v")},
		{Row: []byte{0x00, 0xFF, 0x00}, Family: []byte{0xFF}, Qualifier: nil, Timestamp: -1, Type: cell.TypeDeleteFamily, Value: nil},
		{Row: []byte("r"), Family: []byte("cf"), Qualifier: []byte{0x00}, Timestamp: cell.LatestTimestamp, Type: cell.TypeDelete, Value: []byte{0xFF, 0x00, 0xFF}},
		{Row: []byte{}, Family: []byte{}, Qualifier: []byte{}, Timestamp: 0, Type: cell.TypeDeleteColumn, Value: []byte{}},
		{Row: bytes.Repeat([]byte{0xAB}, MaxRowLength), Family: bytes.Repeat([]byte{'x'}, MaxFamilyLength), Qualifier: []byte("big"), Timestamp: 7, Type: cell.TypePut, Value: bytes.Repeat([]byte{0}, 100000)},
	}
}

func cellsEqual(t *testing.T, got, want []cell.Cell) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d cells, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := &got[i], &want[i]
		if !bytes.Equal(g.Row, w.Row) || !bytes.Equal(g.Family, w.Family) || !bytes.Equal(g.Qualifier, w.Qualifier) ||
			g.Timestamp != w.Timestamp || g.Type != w.Type || !bytes.Equal(g.Value, w.Value) {
			t.Fatalf("cell %d: got %v, want %v", i, g, w)
		}
	}
}

func TestCellBlockRoundTrip(t *testing.T) {
	cells := testCells()
	b, err := AppendCellBlock([]byte("prefix"), cells)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("prefix")) {
		t.Fatal("prefix lost")
	}
	b = b[len("prefix"):]
	size, _ := CellBlockSize(cells)
	if len(b) != size {
		t.Fatalf("encoded %d bytes, CellBlockSize says %d", len(b), size)
	}
	if n, err := CountCells(b); err != nil || n != len(cells) {
		t.Fatalf("CountCells = %d, %v", n, err)
	}
	got, err := DecodeCellBlock(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	cellsEqual(t, got, cells)
	// Appending to a decoded slice must not clobber its neighbours.
	_ = append(got[0].Row, 'X')
	_ = append(got[0].Value, 'X')
	if !bytes.Equal(got[1].Row, cells[1].Row) {
		t.Fatal("append through a decoded cell overwrote the next one")
	}
	if _, err := DecodeCellBlock(b, 2); err == nil {
		t.Fatal("maxCells not enforced")
	}
	if got, err := DecodeCellBlock(nil, 0); err != nil || got != nil {
		t.Fatalf("empty block: %v, %v", got, err)
	}
}

// TestCellBlockGolden pins the byte layout to KeyValueCodec's.
func TestCellBlockGolden(t *testing.T) {
	c := []cell.Cell{{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 1, Type: cell.TypePut, Value: []byte("v")}}
	b, err := AppendCellBlock(nil, c)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{
		0, 0, 0, 24, // L = 8 + keyLen + valueLen
		0, 0, 0, 15, // keyLen = 2+1+1+1+1+8+1
		0, 0, 0, 1, // valueLen
		0, 1, 'r', // rowLen, row
		1, 'f', // famLen, family
		'q',
		0, 0, 0, 0, 0, 0, 0, 1, // ts
		4,   // Put
		'v', // value
	}
	if !bytes.Equal(b, want) {
		t.Fatalf("got  %x\nwant %x", b, want)
	}
}

func TestAppendCellBlockLimits(t *testing.T) {
	for _, c := range []cell.Cell{
		{Row: make([]byte, MaxRowLength+1)},
		{Row: []byte("r"), Family: make([]byte, MaxFamilyLength+1)},
	} {
		if _, err := AppendCellBlock(nil, []cell.Cell{c}); err == nil {
			t.Fatal("oversized coordinate accepted")
		}
	}
}

func TestDecodeCellBlockMalformed(t *testing.T) {
	good, _ := AppendCellBlock(nil, testCells()[:1])
	mut := func(f func(b []byte) []byte) []byte {
		return f(append([]byte(nil), good...))
	}
	put32 := func(off int, v int32) func([]byte) []byte {
		return func(b []byte) []byte { binary.BigEndian.PutUint32(b[off:], uint32(v)); return b }
	}
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"truncated prefix", good[:2], "truncated length prefix"},
		{"truncated cell", good[:len(good)-1], "exceeds the"},
		{"negative L", mut(put32(0, -5)), "below the minimum"},
		{"huge L", mut(put32(0, 1<<30)), "exceeds the"},
		{"trailing garbage", append(append([]byte(nil), good...), 1, 2), "truncated length prefix"},
		{"negative keyLen", mut(put32(4, -1)), "key length"},
		{"negative valueLen", mut(put32(8, -1)), "negative value length"},
		{"lengths lie", mut(put32(8, 5)), "do not add up"},
		{"keyLen too big", mut(put32(4, 100)), "do not add up"},
		{"negative rowLen", mut(func(b []byte) []byte { b[12] = 0x80; return b }), "negative row length"},
		{"rowLen overruns", mut(func(b []byte) []byte { b[13] = 200; return b }), "overruns"},
		{"negative famLen", mut(func(b []byte) []byte { b[14+4] = 0xF0; return b }), "negative family length"},
		{"famLen overruns", mut(func(b []byte) []byte { b[14+4] = 100; return b }), "overruns"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeCellBlock(tc.b, 0)
			if err == nil {
				t.Fatal("no error")
			}
			var cbe *CellBlockError
			if !errors.As(err, &cbe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want a CellBlockError containing %q", err, tc.want)
			}
		})
	}
}

func FuzzDecodeCellBlock(f *testing.F) {
	good, _ := AppendCellBlock(nil, testCells()[:4])
	f.Add(good)
	f.Add(good[:10])
	f.Add([]byte{0, 0, 0, 20, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4})
	f.Add(append(append([]byte(nil), good...), good[:20]...))
	f.Fuzz(func(t *testing.T, b []byte) {
		cells, err := DecodeCellBlock(b, 0)
		// The fast loop and the careful one agree on every input: the
		// same cells, or the same error.
		careful, cerr := decodeCellBlockCareful(nil, b, 0)
		if (err == nil) != (cerr == nil) || err != nil && err.Error() != cerr.Error() {
			t.Fatalf("fast loop: %v, careful loop: %v", err, cerr)
		}
		for _, limit := range []int{1, 3} {
			_, lerr := DecodeCellBlock(b, limit)
			_, clerr := decodeCellBlockCareful(nil, b, limit)
			if (lerr == nil) != (clerr == nil) || lerr != nil && lerr.Error() != clerr.Error() {
				t.Fatalf("limit %d: fast loop: %v, careful loop: %v", limit, lerr, clerr)
			}
		}
		if err != nil {
			return
		}
		cellsEqual(t, cells, careful)
		// Whatever decodes must re-encode to the same bytes.
		re, err := AppendCellBlock(nil, cells)
		if err != nil {
			t.Fatalf("decoded cells do not re-encode: %v", err)
		}
		if !bytes.Equal(re, b) {
			t.Fatalf("re-encoding differs:\n%x\n%x", re, b)
		}
	})
}
