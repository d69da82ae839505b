package filterpb

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/filter"
	"github.com/weirdb/weir/internal/hbasepb"
)

const allRows = "a1[f:q1=v1 f:q2=val2 g:q1=x] a2[f:q1=v2] b1[f:q3=v3 g:p=yy]"

type filterCase struct {
	name string
	pb   func(t testing.TB) *hbasepb.Filter
	want string
}

func filterCases() []filterCase {
	eq := hbasepb.CompareType_EQUAL
	page := func(n int64) func(t testing.TB) *hbasepb.Filter {
		return func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassPageFilter, &hbasepb.PageFilter{PageSize: proto.Int64(n)})
		}
	}
	rowEq := func(v string) func(t testing.TB) *hbasepb.Filter {
		return func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassRowFilter, &hbasepb.RowFilter{CompareFilter: cmpFilter(eq, binCmp(t, v))})
		}
	}
	scvf := func(t testing.TB, ifMissing bool) *hbasepb.SingleColumnValueFilter {
		return &hbasepb.SingleColumnValueFilter{
			ColumnFamily: []byte("f"), ColumnQualifier: []byte("q1"), CompareOp: eq.Enum(),
			Comparator: binCmp(t, "v2"), FilterIfMissing: proto.Bool(ifMissing), LatestVersionOnly: proto.Bool(true),
		}
	}
	return []filterCase{
		{"PageFilter", page(2), "a1[f:q1=v1 f:q2=val2 g:q1=x] a2[f:q1=v2]"},
		{"PrefixFilter", func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassPrefixFilter, &hbasepb.PrefixFilter{Prefix: []byte("a2")})
		}, "a2[f:q1=v2]"},
		{"RowFilter", rowEq("b1"), "b1[f:q3=v3 g:p=yy]"},
		{"FamilyFilter", func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassFamilyFilter, &hbasepb.FamilyFilter{CompareFilter: cmpFilter(eq, binCmp(t, "g"))})
		}, "a1[g:q1=x] b1[g:p=yy]"},
		{"QualifierFilter/BinaryPrefixComparator", func(t testing.TB) *hbasepb.Filter {
			c := pbComparator(t, ClassBinaryPrefixComparator, &hbasepb.BinaryPrefixComparator{Comparable: &hbasepb.ByteArrayComparable{Value: []byte("q")}})
			return pbFilter(t, ClassQualifierFilter, &hbasepb.QualifierFilter{CompareFilter: cmpFilter(eq, c)})
		}, "a1[f:q1=v1 f:q2=val2 g:q1=x] a2[f:q1=v2] b1[f:q3=v3]"},
		{"ValueFilter/SubstringComparator", func(t testing.TB) *hbasepb.Filter {
			c := pbComparator(t, ClassSubstringComparator, &hbasepb.SubstringComparator{Substr: proto.String("VAL")})
			return pbFilter(t, ClassValueFilter, &hbasepb.ValueFilter{CompareFilter: cmpFilter(eq, c)})
		}, "a1[f:q2=val2]"},
		{"ValueFilter/RegexStringComparator", func(t testing.TB) *hbasepb.Filter {
			c := pbComparator(t, ClassRegexStringComparator, &hbasepb.RegexStringComparator{
				Pattern: proto.String(`^V\d$`), PatternFlags: proto.Int32(filter.JavaCaseInsensitive), Charset: proto.String("UTF-8")})
			return pbFilter(t, ClassValueFilter, &hbasepb.ValueFilter{CompareFilter: cmpFilter(eq, c)})
		}, "a1[f:q1=v1] a2[f:q1=v2] b1[f:q3=v3]"},
		{"ValueFilter/NullComparator", func(t testing.TB) *hbasepb.Filter {
			c := pbComparator(t, ClassNullComparator, &hbasepb.NullComparator{})
			return pbFilter(t, ClassValueFilter, &hbasepb.ValueFilter{CompareFilter: cmpFilter(hbasepb.CompareType_NOT_EQUAL, c)})
		}, allRows},
		{"ValueFilter/BitComparator", func(t testing.TB) *hbasepb.Filter {
			c := pbComparator(t, ClassBitComparator, &hbasepb.BitComparator{
				Comparable: &hbasepb.ByteArrayComparable{Value: []byte{0x08}}, BitwiseOp: hbasepb.BitComparator_AND.Enum()})
			return pbFilter(t, ClassValueFilter, &hbasepb.ValueFilter{CompareFilter: cmpFilter(eq, c)})
		}, "a1[g:q1=x]"},
		{"SingleColumnValueFilter", func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassSingleColumnValueFilter, scvf(t, true))
		}, "a2[f:q1=v2]"},
		{"SingleColumnValueExcludeFilter", func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassSingleColumnValueExcludeFilter, &hbasepb.SingleColumnValueExcludeFilter{SingleColumnValueFilter: scvf(t, false)})
		}, "b1[f:q3=v3 g:p=yy]"},
		{"KeyOnlyFilter", func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassKeyOnlyFilter, &hbasepb.KeyOnlyFilter{LenAsVal: proto.Bool(false)})
		}, "a1[f:q1= f:q2= g:q1=] a2[f:q1=] b1[f:q3= g:p=]"},
		{"FirstKeyOnlyFilter", func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassFirstKeyOnlyFilter, &hbasepb.FirstKeyOnlyFilter{})
		}, "a1[f:q1=v1] a2[f:q1=v2] b1[f:q3=v3]"},
		{"ColumnPrefixFilter", func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassColumnPrefixFilter, &hbasepb.ColumnPrefixFilter{Prefix: []byte("q1")})
		}, "a1[f:q1=v1 g:q1=x] a2[f:q1=v2]"},
		{"MultipleColumnPrefixFilter", func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassMultipleColumnPrefixFilter, &hbasepb.MultipleColumnPrefixFilter{SortedPrefixes: [][]byte{[]byte("p"), []byte("q3")}})
		}, "b1[f:q3=v3 g:p=yy]"},
		{"ColumnRangeFilter", func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassColumnRangeFilter, &hbasepb.ColumnRangeFilter{
				MinColumn: []byte("q2"), MinColumnInclusive: proto.Bool(true), MaxColumn: []byte("q3"), MaxColumnInclusive: proto.Bool(true)})
		}, "a1[f:q2=val2] b1[f:q3=v3]"},
		{"ColumnCountGetFilter", func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassColumnCountGetFilter, &hbasepb.ColumnCountGetFilter{Limit: proto.Int32(1)})
		}, "a1[f:q1=v1]"}, // it ends the scan after the first row
		{"ColumnPaginationFilter/offset", func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassColumnPaginationFilter, &hbasepb.ColumnPaginationFilter{Limit: proto.Int32(1), Offset: proto.Int32(1)})
		}, "a1[f:q2=val2] b1[g:p=yy]"},
		{"ColumnPaginationFilter/column_offset", func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassColumnPaginationFilter, &hbasepb.ColumnPaginationFilter{Limit: proto.Int32(1), ColumnOffset: []byte("q2")})
		}, "a1[f:q2=val2] b1[f:q3=v3]"},
		{"InclusiveStopFilter", func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassInclusiveStopFilter, &hbasepb.InclusiveStopFilter{StopRowKey: []byte("a2")})
		}, "a1[f:q1=v1 f:q2=val2 g:q1=x] a2[f:q1=v2]"},
		{"TimestampsFilter", func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassTimestampsFilter, &hbasepb.TimestampsFilter{Timestamps: []int64{2}})
		}, "a1[f:q2=val2]"},
		{"RandomRowFilter/always", func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassRandomRowFilter, &hbasepb.RandomRowFilter{Chance: proto.Float32(2)})
		}, allRows},
		{"RandomRowFilter/never", func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassRandomRowFilter, &hbasepb.RandomRowFilter{Chance: proto.Float32(-1)})
		}, ""},
		{"WhileMatchFilter", func(t testing.TB) *hbasepb.Filter {
			inner := pbFilter(t, ClassRowFilter, &hbasepb.RowFilter{CompareFilter: cmpFilter(hbasepb.CompareType_LESS, binCmp(t, "b"))})
			return pbFilter(t, ClassWhileMatchFilter, &hbasepb.WhileMatchFilter{Filter: inner})
		}, "a1[f:q1=v1 f:q2=val2 g:q1=x] a2[f:q1=v2]"},
		{"SkipFilter", func(t testing.TB) *hbasepb.Filter {
			inner := pbFilter(t, ClassValueFilter, &hbasepb.ValueFilter{CompareFilter: cmpFilter(hbasepb.CompareType_NOT_EQUAL, binCmp(t, "x"))})
			return pbFilter(t, ClassSkipFilter, &hbasepb.SkipFilter{Filter: inner})
		}, "a2[f:q1=v2] b1[f:q3=v3 g:p=yy]"},
		{"FilterList/MUST_PASS_ALL", func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassFilterList, &hbasepb.FilterList{Operator: hbasepb.FilterList_MUST_PASS_ALL.Enum(), Filters: []*hbasepb.Filter{
				pbFilter(t, ClassPrefixFilter, &hbasepb.PrefixFilter{Prefix: []byte("a")}), page(1)(t)}})
		}, "a1[f:q1=v1 f:q2=val2 g:q1=x]"},
		{"FilterList/MUST_PASS_ONE nested", func(t testing.TB) *hbasepb.Filter {
			inner := pbFilter(t, ClassFilterList, &hbasepb.FilterList{Operator: hbasepb.FilterList_MUST_PASS_ONE.Enum(), Filters: []*hbasepb.Filter{rowEq("a2")(t), rowEq("b1")(t)}})
			return pbFilter(t, ClassFilterList, &hbasepb.FilterList{Operator: hbasepb.FilterList_MUST_PASS_ALL.Enum(), Filters: []*hbasepb.Filter{inner}})
		}, "a2[f:q1=v2] b1[f:q3=v3 g:p=yy]"},
		{"FilterList/empty", func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassFilterList, &hbasepb.FilterList{Operator: hbasepb.FilterList_MUST_PASS_ONE.Enum()})
		}, allRows},
		{"FilterWrapper", func(t testing.TB) *hbasepb.Filter {
			return pbFilter(t, ClassFilterWrapper, &hbasepb.FilterWrapper{Filter: page(1)(t)})
		}, "a1[f:q1=v1 f:q2=val2 g:q1=x]"},
	}
}

// TestDecodeFilter decodes each class from hand-built messages and checks
// what the filter does, then checks that Encode/Decode round-trips to the
// same behaviour and reaches a fixed point on the wire.
func TestDecodeFilter(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range filterCases() {
		t.Run(tc.name, func(t *testing.T) {
			pb := tc.pb(t)
			seen[pb.GetName()] = true
			f, err := DecodeFilter(pb)
			if err != nil {
				t.Fatal(err)
			}
			if got := run(f, testCells); got != tc.want {
				t.Fatalf("decoded filter returns\n  %s\nwant\n  %s", got, tc.want)
			}
			enc, err := EncodeFilter(f)
			if err != nil {
				t.Fatal(err)
			}
			f2, err := DecodeFilter(enc)
			if err != nil {
				t.Fatalf("re-decoding %v: %v", enc, err)
			}
			if got := run(f2, testCells); got != tc.want {
				t.Fatalf("round-tripped filter returns\n  %s\nwant\n  %s", got, tc.want)
			}
			enc2, err := EncodeFilter(f2)
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(enc, enc2) {
				t.Fatalf("encoding is not stable:\n%v\n%v", enc, enc2)
			}
		})
	}
	for _, c := range FilterClasses {
		if !seen[c] {
			t.Errorf("no test case for %s", c)
		}
	}
}

func TestCompareOpMapping(t *testing.T) {
	for ct := hbasepb.CompareType_LESS; ct <= hbasepb.CompareType_NO_OP; ct++ {
		op, err := CompareOpFromPB(ct)
		if err != nil {
			t.Fatal(err)
		}
		if op.String() != ct.String() {
			t.Errorf("%v maps to %v", ct, op)
		}
		back, err := CompareOpToPB(op)
		if err != nil || back != ct {
			t.Errorf("%v -> %v -> %v, %v", ct, op, back, err)
		}
	}
	_, err := CompareOpFromPB(7)
	wantErr(t, err, "compare type 7")
	_, err = CompareOpToPB(filter.CompareOp(9))
	wantErr(t, err, "compare operator 9")
}

func TestDecodeFilterErrors(t *testing.T) {
	nest := func(t testing.TB, depth int) *hbasepb.Filter {
		f := pbFilter(t, ClassFirstKeyOnlyFilter, &hbasepb.FirstKeyOnlyFilter{})
		for range depth - 1 {
			f = pbFilter(t, ClassWhileMatchFilter, &hbasepb.WhileMatchFilter{Filter: f})
		}
		return f
	}
	if _, err := DecodeFilter(nest(t, MaxFilterDepth)); err != nil {
		t.Fatalf("depth %d: %v", MaxFilterDepth, err)
	}
	for _, tc := range []struct {
		name  string
		pb    *hbasepb.Filter
		frags []string
	}{
		{"corrupt", &hbasepb.Filter{Name: proto.String(ClassPageFilter), SerializedFilter: []byte{0x08, 0xff}}, []string{"PageFilter"}},
		{"missing required field", &hbasepb.Filter{Name: proto.String(ClassPageFilter)}, []string{"PageFilter", "page_size"}},
		{"negative page size", pbFilter(t, ClassPageFilter, &hbasepb.PageFilter{PageSize: proto.Int64(-1)}), []string{"PageFilter", "page size -1 is negative"}},
		{"negative column count", pbFilter(t, ClassColumnCountGetFilter, &hbasepb.ColumnCountGetFilter{Limit: proto.Int32(-2)}), []string{"ColumnCountGetFilter", "-2"}},
		{"negative pagination offset", pbFilter(t, ClassColumnPaginationFilter, &hbasepb.ColumnPaginationFilter{Limit: proto.Int32(1), Offset: proto.Int32(-3)}), []string{"ColumnPaginationFilter", "offset -3"}},
		{"negative timestamp", pbFilter(t, ClassTimestampsFilter, &hbasepb.TimestampsFilter{Timestamps: []int64{-5}}), []string{"TimestampsFilter", "-5"}},
		{"bad list operator", pbFilter(t, ClassFilterList, &hbasepb.FilterList{Operator: hbasepb.FilterList_Operator(3).Enum()}), []string{"FilterList", "operator 3"}},
		{"compare filter without comparator", pbFilter(t, ClassRowFilter, &hbasepb.RowFilter{CompareFilter: &hbasepb.CompareFilter{CompareOp: hbasepb.CompareType_EQUAL.Enum()}}), []string{"RowFilter", "missing comparator"}},
		{"bad compare op", pbFilter(t, ClassRowFilter, &hbasepb.RowFilter{CompareFilter: cmpFilter(hbasepb.CompareType(12), binCmp(t, "x"))}), []string{"RowFilter", "compare type 12"}},
		{"scvf NO_OP", pbFilter(t, ClassSingleColumnValueFilter, &hbasepb.SingleColumnValueFilter{CompareOp: hbasepb.CompareType_NO_OP.Enum(), Comparator: binCmp(t, "x")}), []string{"SingleColumnValueFilter", "NO_OP"}},
		{"bad regex", pbFilter(t, ClassValueFilter, &hbasepb.ValueFilter{CompareFilter: cmpFilter(hbasepb.CompareType_EQUAL,
			pbComparator(t, ClassRegexStringComparator, &hbasepb.RegexStringComparator{Pattern: proto.String("(a"), PatternFlags: proto.Int32(0), Charset: proto.String("UTF-8")}))}),
			[]string{"RegexStringComparator", "(a"}},
		{"bad bit op", pbFilter(t, ClassValueFilter, &hbasepb.ValueFilter{CompareFilter: cmpFilter(hbasepb.CompareType_EQUAL,
			pbComparator(t, ClassBitComparator, &hbasepb.BitComparator{Comparable: &hbasepb.ByteArrayComparable{}, BitwiseOp: hbasepb.BitComparator_BitwiseOp(7).Enum()}))}),
			[]string{"BitComparator", "operator 7"}},
		{"while match without filter", pbFilter(t, ClassWhileMatchFilter, &hbasepb.WhileMatchFilter{}), []string{"WhileMatchFilter", "filter"}},
		{"too deep", nest(t, MaxFilterDepth+1), []string{"WhileMatchFilter", "nested deeper than 64"}},
		{"nil", nil, []string{"missing filter"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := DecodeFilter(tc.pb)
			if f != nil {
				t.Errorf("got a filter %T with the error", f)
			}
			wantErr(t, err, tc.frags...)
		})
	}
}

func TestDecodeFilterUnsupported(t *testing.T) {
	const fuzzy = "org.apache.hadoop.hbase.filter.FuzzyRowFilter"
	var ue *UnsupportedError
	_, err := DecodeFilter(&hbasepb.Filter{Name: proto.String(fuzzy)})
	if !errors.As(err, &ue) || ue.Class != fuzzy {
		t.Fatalf("got %v, want *UnsupportedError for %s", err, fuzzy)
	}
	// Nested, the class still surfaces.
	list := pbFilter(t, ClassFilterList, &hbasepb.FilterList{Operator: hbasepb.FilterList_MUST_PASS_ALL.Enum(),
		Filters: []*hbasepb.Filter{{Name: proto.String(fuzzy)}}})
	if _, err := DecodeFilter(list); !errors.As(err, &ue) || ue.Class != fuzzy {
		t.Fatalf("nested: got %v", err)
	}
	// An unknown comparator inside a filter.
	const long = "org.apache.hadoop.hbase.filter.LongComparator"
	vf := pbFilter(t, ClassValueFilter, &hbasepb.ValueFilter{CompareFilter: cmpFilter(hbasepb.CompareType_EQUAL, &hbasepb.Comparator{Name: proto.String(long)})})
	if _, err := DecodeFilter(vf); !errors.As(err, &ue) || ue.Class != long {
		t.Fatalf("comparator: got %v", err)
	}
	// Encoding a filter type this package does not know.
	if _, err := EncodeFilter(foreignFilter{}); !errors.As(err, &ue) {
		t.Fatalf("encode: got %v", err)
	}
}

type foreignFilter struct{ filter.Filter }
