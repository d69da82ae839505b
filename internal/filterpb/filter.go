package filterpb

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/filter"
	"github.com/weirdb/weir/internal/hbasepb"
)

// Java class names of the filters Weir implements, as HBase writes them
// into Filter.name.
const (
	ClassFilterList                     = filterPkg + "FilterList"
	ClassFilterWrapper                  = filterPkg + "FilterWrapper"
	ClassPageFilter                     = filterPkg + "PageFilter"
	ClassPrefixFilter                   = filterPkg + "PrefixFilter"
	ClassRowFilter                      = filterPkg + "RowFilter"
	ClassFamilyFilter                   = filterPkg + "FamilyFilter"
	ClassQualifierFilter                = filterPkg + "QualifierFilter"
	ClassValueFilter                    = filterPkg + "ValueFilter"
	ClassSingleColumnValueFilter        = filterPkg + "SingleColumnValueFilter"
	ClassSingleColumnValueExcludeFilter = filterPkg + "SingleColumnValueExcludeFilter"
	ClassKeyOnlyFilter                  = filterPkg + "KeyOnlyFilter"
	ClassFirstKeyOnlyFilter             = filterPkg + "FirstKeyOnlyFilter"
	ClassColumnPrefixFilter             = filterPkg + "ColumnPrefixFilter"
	ClassMultipleColumnPrefixFilter     = filterPkg + "MultipleColumnPrefixFilter"
	ClassColumnRangeFilter              = filterPkg + "ColumnRangeFilter"
	ClassColumnCountGetFilter           = filterPkg + "ColumnCountGetFilter"
	ClassColumnPaginationFilter         = filterPkg + "ColumnPaginationFilter"
	ClassInclusiveStopFilter            = filterPkg + "InclusiveStopFilter"
	ClassTimestampsFilter               = filterPkg + "TimestampsFilter"
	ClassRandomRowFilter                = filterPkg + "RandomRowFilter"
	ClassWhileMatchFilter               = filterPkg + "WhileMatchFilter"
	ClassSkipFilter                     = filterPkg + "SkipFilter"
)

// FilterClasses lists every filter class DecodeFilter accepts.
var FilterClasses = []string{
	ClassFilterList, ClassFilterWrapper, ClassPageFilter, ClassPrefixFilter,
	ClassRowFilter, ClassFamilyFilter, ClassQualifierFilter, ClassValueFilter,
	ClassSingleColumnValueFilter, ClassSingleColumnValueExcludeFilter,
	ClassKeyOnlyFilter, ClassFirstKeyOnlyFilter, ClassColumnPrefixFilter,
	ClassMultipleColumnPrefixFilter, ClassColumnRangeFilter,
	ClassColumnCountGetFilter, ClassColumnPaginationFilter,
	ClassInclusiveStopFilter, ClassTimestampsFilter, ClassRandomRowFilter,
	ClassWhileMatchFilter, ClassSkipFilter,
}

// MaxFilterDepth bounds the nesting of FilterList, WhileMatchFilter,
// SkipFilter and FilterWrapper, so that a hostile request cannot make the
// decoder (or the filters) recurse without bound.
const MaxFilterDepth = 64

// DecodeFilter builds a fresh Weir filter tree from its wire form. An
// unknown class (at any depth) returns an error wrapping *UnsupportedError;
// malformed bytes or impossible parameters return an error wrapping
// ErrInvalid that names the class.
func DecodeFilter(pb *hbasepb.Filter) (filter.Filter, error) {
	return decodeFilter(pb, 1)
}

func decodeFilter(pb *hbasepb.Filter, depth int) (filter.Filter, error) {
	if pb == nil {
		return nil, invalidf("missing filter")
	}
	class := pb.GetName()
	if depth > MaxFilterDepth {
		return nil, invalidf("%s: filters nested deeper than %d", class, MaxFilterDepth)
	}
	d := filterDecoder{class: class, data: pb.GetSerializedFilter()}
	f, err := d.decode(depth)
	if err != nil {
		return nil, err
	}
	return f, nil
}

type filterDecoder struct {
	class string
	data  []byte
}

func (d *filterDecoder) unmarshal(m proto.Message) error {
	if err := proto.Unmarshal(d.data, m); err != nil {
		return d.bad(err)
	}
	return nil
}

func (d *filterDecoder) bad(err error) error {
	return fmt.Errorf("%w: %s: %w", ErrInvalid, d.class, err)
}

// built wraps a constructor's result, naming the class on error.
func built[F filter.Filter](d *filterDecoder, f F, err error) (filter.Filter, error) {
	if err != nil {
		return nil, d.bad(err)
	}
	return f, nil
}

func (d *filterDecoder) compare(cf *hbasepb.CompareFilter) (filter.CompareOp, filter.Comparator, error) {
	op, err := CompareOpFromPB(cf.GetCompareOp())
	if err != nil {
		return 0, nil, d.bad(err)
	}
	if cf.GetComparator() == nil {
		return 0, nil, d.bad(fmt.Errorf("missing comparator"))
	}
	cmp, err := DecodeComparator(cf.GetComparator())
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", d.class, err)
	}
	return op, cmp, nil
}

func (d *filterDecoder) nested(pb *hbasepb.Filter, depth int) (filter.Filter, error) {
	f, err := decodeFilter(pb, depth+1)
	if err != nil {
		return nil, fmt.Errorf("in %s: %w", d.class, err)
	}
	return f, nil
}

func int32Limit(v int32, what string) (int, error) {
	if v < 0 {
		return 0, fmt.Errorf("%s %d is negative", what, v)
	}
	return int(v), nil
}

func (d *filterDecoder) decode(depth int) (filter.Filter, error) {
	switch d.class {
	case ClassFilterList:
		var m hbasepb.FilterList
		if err := d.unmarshal(&m); err != nil {
			return nil, err
		}
		fs := make([]filter.Filter, 0, len(m.GetFilters()))
		for _, sub := range m.GetFilters() {
			f, err := d.nested(sub, depth)
			if err != nil {
				return nil, err
			}
			fs = append(fs, f)
		}
		op := filter.Operator(m.GetOperator())
		if m.GetOperator() != hbasepb.FilterList_MUST_PASS_ALL && m.GetOperator() != hbasepb.FilterList_MUST_PASS_ONE {
			return nil, d.bad(fmt.Errorf("unknown operator %d", int32(m.GetOperator())))
		}
		f, err := filter.NewFilterList(op, fs...)
		return built(d, f, err)
	case ClassFilterWrapper:
		// HBase's server-side adapter; it adds nothing Weir's region does
		// not already do, so the wrapped filter stands for it.
		var m hbasepb.FilterWrapper
		if err := d.unmarshal(&m); err != nil {
			return nil, err
		}
		return d.nested(m.GetFilter(), depth)
	case ClassPageFilter:
		var m hbasepb.PageFilter
		if err := d.unmarshal(&m); err != nil {
			return nil, err
		}
		f, err := filter.NewPageFilter(m.GetPageSize())
		return built(d, f, err)
	case ClassPrefixFilter:
		var m hbasepb.PrefixFilter
		if err := d.unmarshal(&m); err != nil {
			return nil, err
		}
		// An absent prefix is HBase's null prefix (drops every row).
		return filter.NewPrefixFilter(m.Prefix), nil
	case ClassRowFilter, ClassFamilyFilter, ClassQualifierFilter, ClassValueFilter:
		return d.compareFilter()
	case ClassSingleColumnValueFilter:
		var m hbasepb.SingleColumnValueFilter
		if err := d.unmarshal(&m); err != nil {
			return nil, err
		}
		f, err := d.scvf(&m)
		if err != nil {
			return nil, err
		}
		return f, nil
	case ClassSingleColumnValueExcludeFilter:
		var m hbasepb.SingleColumnValueExcludeFilter
		if err := d.unmarshal(&m); err != nil {
			return nil, err
		}
		f, err := d.scvf(m.GetSingleColumnValueFilter())
		if err != nil {
			return nil, err
		}
		return &filter.SingleColumnValueExcludeFilter{SingleColumnValueFilter: *f}, nil
	case ClassKeyOnlyFilter:
		var m hbasepb.KeyOnlyFilter
		if err := d.unmarshal(&m); err != nil {
			return nil, err
		}
		return filter.NewKeyOnlyFilter(m.GetLenAsVal()), nil
	case ClassFirstKeyOnlyFilter:
		var m hbasepb.FirstKeyOnlyFilter
		if err := d.unmarshal(&m); err != nil {
			return nil, err
		}
		return filter.NewFirstKeyOnlyFilter(), nil
	case ClassColumnPrefixFilter:
		var m hbasepb.ColumnPrefixFilter
		if err := d.unmarshal(&m); err != nil {
			return nil, err
		}
		return filter.NewColumnPrefixFilter(nonNil(m.GetPrefix())), nil
	case ClassMultipleColumnPrefixFilter:
		var m hbasepb.MultipleColumnPrefixFilter
		if err := d.unmarshal(&m); err != nil {
			return nil, err
		}
		return filter.NewMultipleColumnPrefixFilter(m.GetSortedPrefixes()...), nil
	case ClassColumnRangeFilter:
		var m hbasepb.ColumnRangeFilter
		if err := d.unmarshal(&m); err != nil {
			return nil, err
		}
		return filter.NewColumnRangeFilter(m.MinColumn, m.GetMinColumnInclusive(), m.MaxColumn, m.GetMaxColumnInclusive()), nil
	case ClassColumnCountGetFilter:
		var m hbasepb.ColumnCountGetFilter
		if err := d.unmarshal(&m); err != nil {
			return nil, err
		}
		limit, err := int32Limit(m.GetLimit(), "limit")
		if err != nil {
			return nil, d.bad(err)
		}
		f, err := filter.NewColumnCountGetFilter(limit)
		return built(d, f, err)
	case ClassColumnPaginationFilter:
		var m hbasepb.ColumnPaginationFilter
		if err := d.unmarshal(&m); err != nil {
			return nil, err
		}
		limit, err := int32Limit(m.GetLimit(), "limit")
		if err != nil {
			return nil, d.bad(err)
		}
		if m.ColumnOffset != nil {
			f, err := filter.NewColumnPaginationFilterAt(limit, m.ColumnOffset)
			return built(d, f, err)
		}
		offset, err := int32Limit(m.GetOffset(), "offset")
		if err != nil {
			return nil, d.bad(err)
		}
		f, err := filter.NewColumnPaginationFilter(limit, offset)
		return built(d, f, err)
	case ClassInclusiveStopFilter:
		var m hbasepb.InclusiveStopFilter
		if err := d.unmarshal(&m); err != nil {
			return nil, err
		}
		if m.StopRowKey == nil {
			return nil, d.bad(fmt.Errorf("missing stop_row_key"))
		}
		return filter.NewInclusiveStopFilter(m.StopRowKey), nil
	case ClassTimestampsFilter:
		var m hbasepb.TimestampsFilter
		if err := d.unmarshal(&m); err != nil {
			return nil, err
		}
		f, err := filter.NewTimestampsFilter(m.GetTimestamps(), m.GetCanHint())
		return built(d, f, err)
	case ClassRandomRowFilter:
		var m hbasepb.RandomRowFilter
		if err := d.unmarshal(&m); err != nil {
			return nil, err
		}
		f, err := filter.NewRandomRowFilter(m.GetChance(), nil)
		return built(d, f, err)
	case ClassWhileMatchFilter:
		var m hbasepb.WhileMatchFilter
		if err := d.unmarshal(&m); err != nil {
			return nil, err
		}
		inner, err := d.nested(m.GetFilter(), depth)
		if err != nil {
			return nil, err
		}
		f, err := filter.NewWhileMatchFilter(inner)
		return built(d, f, err)
	case ClassSkipFilter:
		var m hbasepb.SkipFilter
		if err := d.unmarshal(&m); err != nil {
			return nil, err
		}
		inner, err := d.nested(m.GetFilter(), depth)
		if err != nil {
			return nil, err
		}
		f, err := filter.NewSkipFilter(inner)
		return built(d, f, err)
	}
	return nil, &UnsupportedError{Class: d.class}
}

func (d *filterDecoder) compareFilter() (filter.Filter, error) {
	// RowFilter, FamilyFilter, QualifierFilter and ValueFilter share one
	// layout: a message whose only field is CompareFilter (field 1).
	var m hbasepb.RowFilter
	if err := d.unmarshal(&m); err != nil {
		return nil, err
	}
	op, cmp, err := d.compare(m.GetCompareFilter())
	if err != nil {
		return nil, err
	}
	switch d.class {
	case ClassRowFilter:
		f, err := filter.NewRowFilter(op, cmp)
		return built(d, f, err)
	case ClassFamilyFilter:
		f, err := filter.NewFamilyFilter(op, cmp)
		return built(d, f, err)
	case ClassQualifierFilter:
		f, err := filter.NewQualifierFilter(op, cmp)
		return built(d, f, err)
	default:
		f, err := filter.NewValueFilter(op, cmp)
		return built(d, f, err)
	}
}

func (d *filterDecoder) scvf(m *hbasepb.SingleColumnValueFilter) (*filter.SingleColumnValueFilter, error) {
	if m == nil {
		return nil, d.bad(fmt.Errorf("missing single_column_value_filter"))
	}
	op, err := CompareOpFromPB(m.GetCompareOp())
	if err != nil {
		return nil, d.bad(err)
	}
	cmp, err := DecodeComparator(m.GetComparator())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.class, err)
	}
	f, err := filter.NewSingleColumnValueFilter(nonNil(m.GetColumnFamily()), nonNil(m.GetColumnQualifier()), op, cmp)
	if err != nil {
		return nil, d.bad(err)
	}
	// HBase's parseFrom takes both flags from the message, whose absent
	// booleans read false; the Java client always writes both.
	f.FilterIfMissing = m.GetFilterIfMissing()
	f.LatestVersionOnly = m.GetLatestVersionOnly()
	return f, nil
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// EncodeFilter returns the wire form of a filter tree built by package
// filter. Filters of other types return *UnsupportedError naming their Go
// type. A RandomRowFilter's Rand function does not travel.
func EncodeFilter(f filter.Filter) (*hbasepb.Filter, error) {
	return encodeFilter(f, 1)
}

func encodeFilter(f filter.Filter, depth int) (*hbasepb.Filter, error) {
	if depth > MaxFilterDepth {
		return nil, invalidf("filters nested deeper than %d", MaxFilterDepth)
	}
	var class string
	var m proto.Message
	switch f := f.(type) {
	case nil:
		return nil, invalidf("nil filter")
	case *filter.FilterList:
		l := &hbasepb.FilterList{}
		switch f.Operator {
		case filter.MustPassAll:
			l.Operator = hbasepb.FilterList_MUST_PASS_ALL.Enum()
		case filter.MustPassOne:
			l.Operator = hbasepb.FilterList_MUST_PASS_ONE.Enum()
		default:
			return nil, invalidf("%s: operator %v", ClassFilterList, f.Operator)
		}
		for _, sub := range f.Filters {
			s, err := encodeFilter(sub, depth+1)
			if err != nil {
				return nil, err
			}
			l.Filters = append(l.Filters, s)
		}
		class, m = ClassFilterList, l
	case *filter.PageFilter:
		class, m = ClassPageFilter, &hbasepb.PageFilter{PageSize: proto.Int64(f.PageSize)}
	case *filter.PrefixFilter:
		class, m = ClassPrefixFilter, &hbasepb.PrefixFilter{Prefix: f.Prefix}
	case *filter.RowFilter:
		cf, err := encodeCompare(ClassRowFilter, &f.CompareFilter)
		if err != nil {
			return nil, err
		}
		class, m = ClassRowFilter, &hbasepb.RowFilter{CompareFilter: cf}
	case *filter.FamilyFilter:
		cf, err := encodeCompare(ClassFamilyFilter, &f.CompareFilter)
		if err != nil {
			return nil, err
		}
		class, m = ClassFamilyFilter, &hbasepb.FamilyFilter{CompareFilter: cf}
	case *filter.QualifierFilter:
		cf, err := encodeCompare(ClassQualifierFilter, &f.CompareFilter)
		if err != nil {
			return nil, err
		}
		class, m = ClassQualifierFilter, &hbasepb.QualifierFilter{CompareFilter: cf}
	case *filter.ValueFilter:
		cf, err := encodeCompare(ClassValueFilter, &f.CompareFilter)
		if err != nil {
			return nil, err
		}
		class, m = ClassValueFilter, &hbasepb.ValueFilter{CompareFilter: cf}
	case *filter.SingleColumnValueFilter:
		s, err := encodeSCVF(ClassSingleColumnValueFilter, f)
		if err != nil {
			return nil, err
		}
		class, m = ClassSingleColumnValueFilter, s
	case *filter.SingleColumnValueExcludeFilter:
		s, err := encodeSCVF(ClassSingleColumnValueExcludeFilter, &f.SingleColumnValueFilter)
		if err != nil {
			return nil, err
		}
		class, m = ClassSingleColumnValueExcludeFilter, &hbasepb.SingleColumnValueExcludeFilter{SingleColumnValueFilter: s}
	case *filter.KeyOnlyFilter:
		class, m = ClassKeyOnlyFilter, &hbasepb.KeyOnlyFilter{LenAsVal: proto.Bool(f.LenAsVal)}
	case *filter.FirstKeyOnlyFilter:
		class, m = ClassFirstKeyOnlyFilter, &hbasepb.FirstKeyOnlyFilter{}
	case *filter.ColumnPrefixFilter:
		class, m = ClassColumnPrefixFilter, &hbasepb.ColumnPrefixFilter{Prefix: nonNil(f.Prefix)}
	case *filter.MultipleColumnPrefixFilter:
		class, m = ClassMultipleColumnPrefixFilter, &hbasepb.MultipleColumnPrefixFilter{SortedPrefixes: f.Prefixes}
	case *filter.ColumnRangeFilter:
		class, m = ClassColumnRangeFilter, &hbasepb.ColumnRangeFilter{
			MinColumn: f.MinColumn, MinColumnInclusive: proto.Bool(f.MinInclusive),
			MaxColumn: f.MaxColumn, MaxColumnInclusive: proto.Bool(f.MaxInclusive),
		}
	case *filter.ColumnCountGetFilter:
		if f.Limit < 0 || f.Limit > math.MaxInt32 {
			return nil, invalidf("%s: limit %d out of range", ClassColumnCountGetFilter, f.Limit)
		}
		class, m = ClassColumnCountGetFilter, &hbasepb.ColumnCountGetFilter{Limit: proto.Int32(int32(f.Limit))}
	case *filter.ColumnPaginationFilter:
		if f.Limit < 0 || f.Limit > math.MaxInt32 || f.Offset < 0 || f.Offset > math.MaxInt32 {
			return nil, invalidf("%s: limit %d or offset %d out of range", ClassColumnPaginationFilter, f.Limit, f.Offset)
		}
		p := &hbasepb.ColumnPaginationFilter{Limit: proto.Int32(int32(f.Limit))}
		if f.ColumnOffset != nil {
			p.ColumnOffset = f.ColumnOffset
		} else {
			p.Offset = proto.Int32(int32(f.Offset))
		}
		class, m = ClassColumnPaginationFilter, p
	case *filter.InclusiveStopFilter:
		class, m = ClassInclusiveStopFilter, &hbasepb.InclusiveStopFilter{StopRowKey: nonNil(f.StopRow)}
	case *filter.TimestampsFilter:
		class, m = ClassTimestampsFilter, &hbasepb.TimestampsFilter{Timestamps: f.Timestamps, CanHint: proto.Bool(f.CanHint)}
	case *filter.RandomRowFilter:
		class, m = ClassRandomRowFilter, &hbasepb.RandomRowFilter{Chance: proto.Float32(f.Chance)}
	case *filter.WhileMatchFilter:
		inner, err := encodeFilter(f.Filter, depth+1)
		if err != nil {
			return nil, err
		}
		class, m = ClassWhileMatchFilter, &hbasepb.WhileMatchFilter{Filter: inner}
	case *filter.SkipFilter:
		inner, err := encodeFilter(f.Filter, depth+1)
		if err != nil {
			return nil, err
		}
		class, m = ClassSkipFilter, &hbasepb.SkipFilter{Filter: inner}
	default:
		return nil, &UnsupportedError{Class: fmt.Sprintf("%T", f)}
	}
	b, err := proto.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("hbaseconv: encoding %s: %w", class, err)
	}
	return &hbasepb.Filter{Name: proto.String(class), SerializedFilter: b}, nil
}

func encodeCompare(class string, cf *filter.CompareFilter) (*hbasepb.CompareFilter, error) {
	op, err := CompareOpToPB(cf.Op)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", class, err)
	}
	cmp, err := EncodeComparator(cf.Comparator)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", class, err)
	}
	return &hbasepb.CompareFilter{CompareOp: op.Enum(), Comparator: cmp}, nil
}

func encodeSCVF(class string, f *filter.SingleColumnValueFilter) (*hbasepb.SingleColumnValueFilter, error) {
	op, err := CompareOpToPB(f.Op)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", class, err)
	}
	cmp, err := EncodeComparator(f.Comparator)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", class, err)
	}
	return &hbasepb.SingleColumnValueFilter{
		ColumnFamily: f.Family, ColumnQualifier: f.Qualifier,
		CompareOp: op.Enum(), Comparator: cmp,
		FilterIfMissing:   proto.Bool(f.FilterIfMissing),
		LatestVersionOnly: proto.Bool(f.LatestVersionOnly),
	}, nil
}
