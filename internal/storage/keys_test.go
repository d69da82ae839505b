package storage

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"
)

// HBase KeyValue.Type codes used by the tests.
const (
	typePut          uint8 = 4
	typeDelete       uint8 = 8
	typeDeleteColumn uint8 = 12
)

var cellTypes = []uint8{typePut, typeDelete, typeDeleteFamilyVersion, typeDeleteColumn, typeDeleteFamily}

// testCell is a cell's coordinates, the model the encoding must agree with.
type testCell struct {
	table     uint32
	row       []byte
	family    []byte
	qualifier []byte
	ts        int64
	typ       uint8
}

func (c testCell) String() string {
	return fmt.Sprintf("{t=%d r=%q f=%q q=%q ts=%d type=%d}", c.table, c.row, c.family, c.qualifier, c.ts, c.typ)
}

func (c testCell) key() []byte {
	return AppendCellKey(nil, c.table, c.row, c.family, c.qualifier, c.ts, c.typ)
}

// compareHBase is the order the encoding must reproduce: table, row, family,
// family-level markers before the family's columns, qualifier, timestamp
// descending, type code descending. All byte strings compare unsigned.
func compareHBase(a, b testCell) int {
	if a.table != b.table {
		if a.table < b.table {
			return -1
		}
		return 1
	}
	if c := bytes.Compare(a.row, b.row); c != 0 {
		return c
	}
	if c := bytes.Compare(a.family, b.family); c != 0 {
		return c
	}
	af, bf := isFamilyType(a.typ), isFamilyType(b.typ)
	if af != bf {
		if af {
			return -1
		}
		return 1
	}
	if !af { // family-level markers have no qualifier
		if c := bytes.Compare(a.qualifier, b.qualifier); c != 0 {
			return c
		}
	}
	if a.ts != b.ts {
		if a.ts > b.ts {
			return -1
		}
		return 1
	}
	if a.typ != b.typ {
		if a.typ > b.typ {
			return -1
		}
		return 1
	}
	return 0
}

// alphabet is biased towards the bytes the escaping treats specially.
var alphabet = []byte{0x00, 0x00, 0x01, 0x02, 'a', 'b', 0xFE, 0xFF, 0xFF}

func randBytes(rng *rand.Rand, maxLen int) []byte {
	b := make([]byte, rng.Intn(maxLen+1))
	for i := range b {
		b[i] = alphabet[rng.Intn(len(alphabet))]
	}
	return b
}

func randTS(rng *rand.Rand) int64 {
	switch rng.Intn(5) {
	case 0:
		return 0
	case 1:
		return math.MaxInt64
	case 2:
		return int64(rng.Intn(4))
	default:
		return rng.Int63()
	}
}

func randCell(rng *rand.Rand) testCell {
	c := testCell{
		table:  []uint32{0, 1, 256, math.MaxUint32}[rng.Intn(4)],
		row:    randBytes(rng, 4),
		family: randBytes(rng, 2),
		ts:     randTS(rng),
		typ:    cellTypes[rng.Intn(len(cellTypes))],
	}
	if !isFamilyType(c.typ) {
		c.qualifier = randBytes(rng, 3)
	}
	return c
}

func TestCellKeyRoundTrip(t *testing.T) {
	tests := []testCell{
		{table: 1, row: []byte("row"), family: []byte("cf"), qualifier: []byte("q"), ts: 42, typ: typePut},
		{table: 0, row: nil, family: nil, qualifier: nil, ts: 0, typ: typePut},
		{table: 7, row: []byte{0x00}, family: []byte{0x00}, qualifier: []byte{0x00}, ts: 1, typ: typeDelete},
		{table: 7, row: []byte{0x00, 0x00}, family: []byte{0x00, 0x01}, qualifier: []byte{0x01, 0x00}, ts: 1, typ: typeDeleteColumn},
		{table: 7, row: []byte{0x01}, family: []byte{0xFF}, qualifier: []byte{0xFF, 0x00, 0xFF}, ts: math.MaxInt64, typ: typePut},
		{table: 7, row: []byte{0xFF, 0xFF}, family: []byte("f"), qualifier: []byte{}, ts: 5, typ: typePut},
		{table: 7, row: []byte("r\x00\x01\xff"), family: []byte("f\x00"), qualifier: []byte("\x00\x00\x01"), ts: 9, typ: typePut},
		{table: math.MaxUint32, row: []byte("r"), family: []byte("f"), ts: 3, typ: typeDeleteFamily},
		{table: math.MaxUint32, row: []byte("r\x00"), family: []byte("\x00f"), ts: 3, typ: typeDeleteFamilyVersion},
		{table: 2, row: []byte("a"), family: []byte("f"), qualifier: []byte(""), ts: 0, typ: typeDeleteColumn},
	}
	for _, tc := range tests {
		t.Run(tc.String(), func(t *testing.T) {
			key := tc.key()
			k, err := DecodeCellKey(key)
			if err != nil {
				t.Fatalf("DecodeCellKey(%x): %v", key, err)
			}
			checkDecoded(t, tc, key, k)
			// Appending to a non-empty dst leaves the prefix alone.
			dst := AppendCellKey([]byte("prefix"), tc.table, tc.row, tc.family, tc.qualifier, tc.ts, tc.typ)
			if !bytes.Equal(dst, append([]byte("prefix"), key...)) {
				t.Fatalf("AppendCellKey with a non-empty dst = %x", dst)
			}
		})
	}
}

func checkDecoded(t *testing.T, want testCell, key []byte, k CellKey) {
	t.Helper()
	wantQ := want.qualifier
	if isFamilyType(want.typ) {
		wantQ = nil
	}
	if k.Table != want.table || !bytes.Equal(k.Row, want.row) || !bytes.Equal(k.Family, want.family) ||
		!bytes.Equal(k.Qualifier, wantQ) || k.Timestamp != want.ts || k.Type != want.typ {
		t.Fatalf("DecodeCellKey(%x) = {t=%d r=%q f=%q q=%q ts=%d type=%d}, want %v",
			key, k.Table, k.Row, k.Family, k.Qualifier, k.Timestamp, k.Type, want)
	}
	rp := AppendRowPrefix(nil, want.table, want.row)
	if k.RowPrefixLen != len(rp) || !bytes.Equal(key[:k.RowPrefixLen], rp) {
		t.Fatalf("RowPrefixLen = %d, want %d (row prefix %x)", k.RowPrefixLen, len(rp), rp)
	}
	if n := RowPrefixLen(key); n != k.RowPrefixLen {
		t.Fatalf("RowPrefixLen(%x) = %d, DecodeCellKey says %d", key, n, k.RowPrefixLen)
	}
	fp := AppendFamilyPrefix(nil, rp, want.family)
	var cp []byte
	if isFamilyType(want.typ) {
		cp = append(fp, tagFam)
	} else {
		cp = AppendColumnPrefix(nil, fp, want.qualifier)
	}
	if k.ColumnPrefixLen != len(cp) || !bytes.Equal(key[:k.ColumnPrefixLen], cp) {
		t.Fatalf("ColumnPrefixLen = %d, want %d (column prefix %x)", k.ColumnPrefixLen, len(cp), cp)
	}
	if !bytes.Equal(AppendVersionSuffix(cp, want.ts, want.typ), key) {
		t.Fatalf("column prefix + version suffix != key %x", key)
	}
}

// TestCellKeyRoundTripRandom round-trips random cells and checks that decoded
// slices do not alias each other in a way that breaks a second decode.
func TestCellKeyRoundTripRandom(t *testing.T) {
	seed := rand.Int63()
	rng := rand.New(rand.NewSource(seed))
	for range 5000 {
		c := randCell(rng)
		key := c.key()
		k, err := DecodeCellKey(key)
		if err != nil {
			t.Fatalf("seed %d: DecodeCellKey(%x) of %v: %v", seed, key, c, err)
		}
		checkDecoded(t, c, key, k)
		if t.Failed() {
			t.Fatalf("seed %d", seed)
		}
	}
}

// TestCellKeyOrder checks that bytes.Compare on encoded keys is HBase's cell
// order, for random cells whose rows, families and qualifiers are often
// prefixes of each other and full of 0x00, 0x01 and 0xFF.
func TestCellKeyOrder(t *testing.T) {
	seed := rand.Int63()
	rng := rand.New(rand.NewSource(seed))
	for round := range 20 {
		cells := make([]testCell, 500)
		for i := range cells {
			cells[i] = randCell(rng)
			// Reuse coordinates often so ties on row/family/qualifier happen.
			if i > 0 && rng.Intn(3) == 0 {
				p := cells[rng.Intn(i)]
				cells[i].table, cells[i].row = p.table, p.row
				if rng.Intn(2) == 0 {
					cells[i].family = p.family
					if rng.Intn(2) == 0 && !isFamilyType(cells[i].typ) {
						cells[i].qualifier = p.qualifier
					}
				}
			}
		}
		byModel := slices.Clone(cells)
		slices.SortStableFunc(byModel, compareHBase)
		for i := 1; i < len(byModel); i++ {
			a, b := byModel[i-1], byModel[i]
			want := compareHBase(a, b)
			if got := bytes.Compare(a.key(), b.key()); got != want {
				t.Fatalf("seed %d round %d: bytes.Compare(key(%v), key(%v)) = %d, HBase order says %d",
					seed, round, a, b, got, want)
			}
		}
		// And pairwise on a sample, which also catches non-adjacent mistakes.
		for range 2000 {
			a, b := cells[rng.Intn(len(cells))], cells[rng.Intn(len(cells))]
			if got, want := bytes.Compare(a.key(), b.key()), compareHBase(a, b); got != want {
				t.Fatalf("seed %d: bytes.Compare(key(%v), key(%v)) = %d, want %d", seed, a, b, got, want)
			}
		}
	}
}

func TestFamilyMarkersSortFirst(t *testing.T) {
	row, fam := []byte("r"), []byte("f")
	// Family-level markers come before every column of the family, even an
	// empty-qualifier column at the newest timestamp, and after the previous
	// family's columns.
	ordered := [][]byte{
		AppendCellKey(nil, 1, row, []byte("e"), []byte("\xff\xff"), 0, typePut),
		AppendCellKey(nil, 1, row, fam, nil, 9, typeDeleteFamily),
		AppendCellKey(nil, 1, row, fam, nil, 9, typeDeleteFamilyVersion),
		AppendCellKey(nil, 1, row, fam, nil, 3, typeDeleteFamily),
		AppendCellKey(nil, 1, row, fam, nil, 0, typeDeleteFamilyVersion),
		AppendCellKey(nil, 1, row, fam, nil, math.MaxInt64, typeDeleteColumn),
		AppendCellKey(nil, 1, row, fam, nil, math.MaxInt64, typePut),
		AppendCellKey(nil, 1, row, fam, []byte{0x00}, 5, typePut),
		AppendCellKey(nil, 1, row, []byte("f\x00"), nil, 5, typeDeleteFamily),
	}
	for i := 1; i < len(ordered); i++ {
		if bytes.Compare(ordered[i-1], ordered[i]) >= 0 {
			t.Errorf("key %d (%x) does not sort before key %d (%x)", i-1, ordered[i-1], i, ordered[i])
		}
	}
	// A family-level type ignores the qualifier it is given.
	if a, b := AppendCellKey(nil, 1, row, fam, []byte("q"), 1, typeDeleteFamily),
		AppendCellKey(nil, 1, row, fam, nil, 1, typeDeleteFamily); !bytes.Equal(a, b) {
		t.Errorf("DeleteFamily key depends on the qualifier: %x vs %x", a, b)
	}
}

// boundRows are rows that are prefixes of each other and differ only in the
// bytes the escaping treats specially.
var boundRows = [][]byte{
	{}, []byte("a"), []byte("a\x00"), []byte("a\x00\x00"), []byte("a\x00\x01"), []byte("a\x00\xff"),
	[]byte("a\x01"), []byte("a\xff"), []byte("ab"), []byte("b"), {0x00}, {0x00, 0x00}, {0x01}, {0xFF}, {0xFF, 0xFF},
}

func inRange(key, lower, upper []byte) bool {
	return bytes.Compare(key, lower) >= 0 && (upper == nil || bytes.Compare(key, upper) < 0)
}

// boundKeys returns, for each of the rows, cells at the extremes of the
// row's key range in table, plus cells of the neighbouring tables.
func boundCells(tables []uint32) []testCell {
	var cells []testCell
	for _, tbl := range tables {
		for _, r := range boundRows {
			for _, fq := range [][2][]byte{{nil, nil}, {{0x00}, {0x00}}, {{0xFF, 0xFF}, {0xFF, 0xFF}}} {
				cells = append(cells,
					testCell{table: tbl, row: r, family: fq[0], qualifier: fq[1], ts: math.MaxInt64, typ: typePut},
					testCell{table: tbl, row: r, family: fq[0], qualifier: fq[1], ts: 0, typ: 0},
					testCell{table: tbl, row: r, family: fq[0], ts: math.MaxInt64, typ: typeDeleteFamily},
				)
			}
		}
	}
	return cells
}

func TestRegionBounds(t *testing.T) {
	for _, table := range []uint32{0, 1, 0x00FF00FF, math.MaxUint32 - 1, math.MaxUint32} {
		tables := []uint32{table}
		if table > 0 {
			tables = append(tables, table-1)
		}
		if table < math.MaxUint32 {
			tables = append(tables, table+1)
		}
		cells := boundCells(tables)
		for _, start := range boundRows {
			for _, end := range boundRows {
				lower, upper := RegionLowerBound(table, start), RegionUpperBound(table, end)
				for _, c := range cells {
					want := c.table == table && bytes.Compare(c.row, start) >= 0 &&
						(len(end) == 0 || bytes.Compare(c.row, end) < 0)
					if got := inRange(c.key(), lower, upper); got != want {
						t.Fatalf("table %d region [%q, %q): cell %v in range = %v, want %v (bounds %x %x)",
							table, start, end, c, got, want, lower, upper)
					}
				}
			}
			// The row's own range: [rowPrefix, RowUpperBound(rowPrefix)).
			rp := AppendRowPrefix(nil, table, start)
			ub := RowUpperBound([]byte("scratch"), rp)
			for _, c := range cells {
				want := c.table == table && bytes.Equal(c.row, start)
				if got := inRange(c.key(), rp, ub); got != want {
					t.Fatalf("table %d row %q: cell %v in [%x, %x) = %v, want %v", table, start, c, rp, ub, got, want)
				}
			}
		}
		// The table bounds hold exactly the table's keys.
		lo, hi := AppendTablePrefix(nil, table), TableUpperBound(table)
		for _, c := range cells {
			if got, want := inRange(c.key(), lo, hi), c.table == table; got != want {
				t.Fatalf("table %d: cell %v in [%x, %x) = %v, want %v", table, c, lo, hi, got, want)
			}
		}
	}
}

func TestRowPrefixLen(t *testing.T) {
	tests := []struct {
		key  []byte
		want int
	}{
		{nil, 0},
		{[]byte{0, 0, 1}, 3},
		{[]byte{0, 0, 0, 1}, 4},                      // table id only
		{[]byte{0, 0, 0, 1, 'a'}, 5},                 // unterminated
		{[]byte{0, 0, 0, 1, 'a', 0x00}, 6},           // 00 at the end
		{[]byte{0, 0, 0, 1, 'a', 0x00, 0x01}, 7},     // a row prefix
		{[]byte{0, 0, 0, 0, 0x00, 0x01, 'f', 0}, 6},  // table 0, empty row
		{[]byte{0, 0, 0, 1, 0x00, 0xFF, 0x00, 1}, 8}, // row "\x00"
	}
	for _, tc := range tests {
		if got := RowPrefixLen(tc.key); got != tc.want {
			t.Errorf("RowPrefixLen(%x) = %d, want %d", tc.key, got, tc.want)
		}
	}
	// Every row prefix is its own Split (Pebble requires it of bounds).
	for _, r := range boundRows {
		rp := AppendRowPrefix(nil, 0, r)
		if got := RowPrefixLen(rp); got != len(rp) {
			t.Errorf("RowPrefixLen(row prefix %x) = %d, want %d", rp, got, len(rp))
		}
	}
}

func TestDecodeCorruptKey(t *testing.T) {
	valid := AppendCellKey(nil, 1, []byte("r\x00w"), []byte("f"), []byte("q\x00"), 7, typePut)
	fam := AppendCellKey(nil, 1, []byte("r"), []byte("f"), nil, 7, typeDeleteFamily)
	withTag := func(k []byte, tag byte) []byte {
		dk, err := DecodeCellKey(k)
		if err != nil {
			t.Fatal(err)
		}
		k = slices.Clone(k)
		fp := AppendFamilyPrefix(nil, k[:dk.RowPrefixLen], dk.Family)
		k[len(fp)] = tag
		return k
	}
	withType := func(k []byte, typ uint8) []byte {
		k = slices.Clone(k)
		k[len(k)-1] = typeBase - typ
		return k
	}
	negTS := slices.Clone(valid)
	negTS[len(negTS)-tsLen-typeLen] = 0x7F // ^ts with the top bit clear: ts >= 2^63
	tests := []struct {
		name string
		key  []byte
	}{
		{"empty", nil},
		{"short table", []byte{0, 0, 1}},
		{"table only", []byte{0, 0, 0, 1}},
		{"unterminated row", []byte{0, 0, 0, 1, 'r'}},
		{"row ends in 00", []byte{0, 0, 0, 1, 'r', 0}},
		{"bad row escape", []byte{0, 0, 0, 1, 'r', 0, 5, 0, 1}},
		{"bad escape after escaped zero", []byte{0, 0, 0, 1, 0, 0xFF, 0, 7}},
		{"escaped zero then unterminated", []byte{0, 0, 0, 1, 0, 0xFF, 'x'}},
		{"escaped zero then trailing 00", []byte{0, 0, 0, 1, 0, 0xFF, 0}},
		{"unterminated family", []byte{0, 0, 0, 1, 'r', 0, 1, 'f'}},
		{"missing tag", []byte{0, 0, 0, 1, 'r', 0, 1, 'f', 0, 1}},
		{"bad tag", withTag(valid, 0x02)},
		{"tag ff", withTag(valid, 0xFF)},
		{"family type with column tag", withType(valid, typeDeleteFamily)},
		{"column type with family tag", withType(fam, typePut)},
		{"negative timestamp", negTS},
		{"trailing byte", append(slices.Clone(valid), 0)},
		{"trailing bytes on family marker", append(slices.Clone(fam), 1, 2)},
	}
	for i := range len(valid) {
		tests = append(tests, struct {
			name string
			key  []byte
		}{fmt.Sprintf("truncated to %d", i), valid[:i]})
	}
	for i := range len(fam) {
		tests = append(tests, struct {
			name string
			key  []byte
		}{fmt.Sprintf("family marker truncated to %d", i), fam[:i]})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeCellKey(tc.key)
			if !errors.Is(err, ErrCorruptKey) {
				t.Fatalf("DecodeCellKey(%x) = %v, want an error wrapping ErrCorruptKey", tc.key, err)
			}
		})
	}
}

// TestRowKeys: a row prefix is a row key, and sorts before every cell key
// of its row; no cell key is one; a cell key built from its row's prefix
// is the one built from the row.
func TestRowKeys(t *testing.T) {
	seed := rand.Int63()
	rng := rand.New(rand.NewSource(seed))
	for range 5000 {
		c := randCell(rng)
		key := c.key()
		if IsRowKey(key) {
			t.Fatalf("seed %d: cell key %x taken for a row key", seed, key)
		}
		rp := key[:RowPrefixLen(key)]
		if !IsRowKey(rp) || bytes.Compare(rp, key) >= 0 {
			t.Fatalf("seed %d: row prefix %x of %x: row key %v, before the cell %v", seed, rp, key, IsRowKey(rp), bytes.Compare(rp, key) < 0)
		}
		k, err := DecodeCellKey(key)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendCellKeyInRow(nil, rp, k.Family, k.Qualifier, k.Timestamp, k.Type); !bytes.Equal(got, key) {
			t.Fatalf("seed %d: AppendCellKeyInRow %x, want %x", seed, got, key)
		}
	}
	for _, key := range [][]byte{nil, {0, 0, 0, 1}, {0, 0, 0, 1, 'a'}, {0, 0, 0, 1, 'a', 0x00}, {0, 0, 0, 1, 0x00, 0xFF}} {
		if IsRowKey(key) {
			t.Errorf("IsRowKey(%x) = true", key)
		}
	}
}
