package filter

import "testing"

func TestComparators(t *testing.T) {
	bitAnd := must(NewBitComparator([]byte{0x0F, 0x00}, BitAnd))
	bitOr := must(NewBitComparator([]byte{0x00, 0x00}, BitOr))
	bitXor := must(NewBitComparator([]byte{0xAA}, BitXor))
	tests := []struct {
		name  string
		c     Comparator
		value []byte
		sign  int
	}{
		{"binary equal", bin("abc"), []byte("abc"), 0},
		{"binary operand smaller", bin("abc"), []byte("abd"), -1},
		{"binary operand longer", bin("abc"), []byte("ab"), 1},
		{"binary unsigned", NewBinaryComparator([]byte{0xFF}), []byte{0x01}, 1},
		{"binary empty vs empty", bin(""), nil, 0},
		{"prefix matches", NewBinaryPrefixComparator([]byte("ab")), []byte("abzzz"), 0},
		{"prefix value shorter", NewBinaryPrefixComparator([]byte("abc")), []byte("ab"), 1},
		{"prefix less", NewBinaryPrefixComparator([]byte("ab")), []byte("b"), -1},
		{"substring case-insensitive", NewSubstringComparator("WoR"), []byte("hello world"), 0},
		{"substring literal field", SubstringComparator{Substr: "LD"}, []byte("world"), 0},
		{"substring missing", NewSubstringComparator("xyz"), []byte("hello"), 1},
		{"null nil", NullComparator{}, nil, 0},
		{"null empty is not null", NullComparator{}, []byte{}, 1},
		{"null value", NullComparator{}, []byte("x"), 1},
		{"bit and hit", bitAnd, []byte{0x01, 0x00}, 0},
		{"bit and miss", bitAnd, []byte{0xF0, 0xFF}, 1},
		{"bit length mismatch", bitAnd, []byte{0x01}, 1},
		{"bit or zero", bitOr, []byte{0x00, 0x00}, 1},
		{"bit or hit", bitOr, []byte{0x00, 0x01}, 0},
		{"bit xor same", bitXor, []byte{0xAA}, 1},
		{"bit xor differs", bitXor, []byte{0xAB}, 0},
	}
	for _, tc := range tests {
		got := tc.c.Compare(tc.value)
		if sign(got) != tc.sign {
			t.Errorf("%s: Compare = %d, want sign %d", tc.name, got, tc.sign)
		}
	}
	var _ OperandComparator = NullComparator{}
	if len(NullComparator{}.Operand()) != 0 {
		t.Error("NullComparator operand must be empty")
	}
}

func sign(v int) int {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}
