package filterpb

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/filter"
	"github.com/weirdb/weir/internal/hbasepb"
)

func TestDecodeComparator(t *testing.T) {
	bac := func(v string) *hbasepb.ByteArrayComparable { return &hbasepb.ByteArrayComparable{Value: []byte(v)} }
	for _, tc := range []struct {
		class string
		m     proto.Message
		// want maps values to the sign of Compare(value).
		want map[string]int
	}{
		{ClassBinaryComparator, &hbasepb.BinaryComparator{Comparable: bac("m")}, map[string]int{"a": 1, "m": 0, "z": -1}},
		{ClassBinaryPrefixComparator, &hbasepb.BinaryPrefixComparator{Comparable: bac("ab")}, map[string]int{"abc": 0, "ab": 0, "b": -1, "aa": 1}},
		{ClassSubstringComparator, &hbasepb.SubstringComparator{Substr: proto.String("Lo")}, map[string]int{"HELLO": 0, "hi": 1}},
		{ClassRegexStringComparator, &hbasepb.RegexStringComparator{Pattern: proto.String("a.c"), PatternFlags: proto.Int32(filter.DefaultRegexFlags), Charset: proto.String("UTF-8")},
			map[string]int{"xa\ncx": 0, "abd": 1}},
		{ClassRegexStringComparator, &hbasepb.RegexStringComparator{Pattern: proto.String("^é$"), PatternFlags: proto.Int32(0), Charset: proto.String("ISO-8859-1"), Engine: proto.String("JAVA")},
			map[string]int{"\xe9": 0, "e": 1}},
		{ClassNullComparator, &hbasepb.NullComparator{}, map[string]int{"": 1, "x": 1}},
		{ClassBitComparator, &hbasepb.BitComparator{Comparable: bac("\x0f"), BitwiseOp: hbasepb.BitComparator_XOR.Enum()},
			map[string]int{"\x0f": 1, "\x01": 0, "\x0f\x00": 1}},
	} {
		t.Run(tc.class[len(filterPkg):], func(t *testing.T) {
			pb := pbComparator(t, tc.class, tc.m)
			c, err := DecodeComparator(pb)
			if err != nil {
				t.Fatal(err)
			}
			check := func(c filter.Comparator) {
				t.Helper()
				for v, want := range tc.want {
					if got := sign(c.Compare([]byte(v))); got != want {
						t.Errorf("Compare(%q) = %d, want %d", v, got, want)
					}
				}
			}
			check(c)
			enc, err := EncodeComparator(c)
			if err != nil {
				t.Fatal(err)
			}
			c2, err := DecodeComparator(enc)
			if err != nil {
				t.Fatal(err)
			}
			check(c2)
			enc2, err := EncodeComparator(c2)
			if err != nil || !proto.Equal(enc, enc2) {
				t.Fatalf("unstable encoding %v / %v (%v)", enc, enc2, err)
			}
		})
	}
	// The pointer forms encode too.
	for _, c := range []filter.Comparator{&filter.BinaryComparator{Value: []byte("x")}, &filter.NullComparator{}, &filter.BitComparator{Value: []byte{1}, Op: filter.BitOr}} {
		if _, err := EncodeComparator(c); err != nil {
			t.Errorf("%T: %v", c, err)
		}
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

func TestDecodeComparatorErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pb    *hbasepb.Comparator
		frags []string
	}{
		{"unknown class", &hbasepb.Comparator{Name: proto.String("org.apache.hadoop.hbase.filter.LongComparator")}, []string{"LongComparator", "not supported"}},
		{"corrupt", &hbasepb.Comparator{Name: proto.String(ClassBinaryComparator), SerializedComparator: []byte{0x0a, 0x05, 0x01}}, []string{"BinaryComparator"}},
		{"missing required", &hbasepb.Comparator{Name: proto.String(ClassSubstringComparator)}, []string{"SubstringComparator", "substr"}},
		{"joni engine", pbComparator(t, ClassRegexStringComparator, &hbasepb.RegexStringComparator{Pattern: proto.String("a"), PatternFlags: proto.Int32(0), Charset: proto.String("UTF-8"), Engine: proto.String("JONI")}), []string{"RegexStringComparator", "JONI"}},
		{"bad charset", pbComparator(t, ClassRegexStringComparator, &hbasepb.RegexStringComparator{Pattern: proto.String("a"), PatternFlags: proto.Int32(0), Charset: proto.String("EBCDIC")}), []string{"RegexStringComparator", "EBCDIC"}},
		{"nil", nil, []string{"missing comparator"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeComparator(tc.pb)
			wantErr(t, err, tc.frags...)
		})
	}
	if _, err := EncodeComparator(nil); err == nil {
		t.Error("encoding a nil comparator succeeded")
	}
}
