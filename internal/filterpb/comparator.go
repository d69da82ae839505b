package filterpb

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/filter"
	"github.com/weirdb/weir/internal/hbasepb"
)

// Java class names of the comparators Weir implements, as HBase writes
// them into Comparator.name.
const (
	filterPkg                   = "org.apache.hadoop.hbase.filter."
	ClassBinaryComparator       = filterPkg + "BinaryComparator"
	ClassBinaryPrefixComparator = filterPkg + "BinaryPrefixComparator"
	ClassSubstringComparator    = filterPkg + "SubstringComparator"
	ClassRegexStringComparator  = filterPkg + "RegexStringComparator"
	ClassNullComparator         = filterPkg + "NullComparator"
	ClassBitComparator          = filterPkg + "BitComparator"
)

// defaultCharset is what HBase's RegexStringComparator writes by default.
const defaultCharset = "UTF-8"

// DecodeComparator builds Weir's comparator from its wire form. An unknown
// class returns *UnsupportedError; bad bytes or parameters return an error
// wrapping ErrInvalid that names the class.
func DecodeComparator(pb *hbasepb.Comparator) (filter.Comparator, error) {
	if pb == nil {
		return nil, invalidf("missing comparator")
	}
	class := pb.GetName()
	bad := func(err error) error { return fmt.Errorf("%w: %s: %w", ErrInvalid, class, err) }
	data := pb.GetSerializedComparator()
	switch class {
	case ClassBinaryComparator:
		var m hbasepb.BinaryComparator
		if err := proto.Unmarshal(data, &m); err != nil {
			return nil, bad(err)
		}
		return filter.NewBinaryComparator(m.GetComparable().GetValue()), nil
	case ClassBinaryPrefixComparator:
		var m hbasepb.BinaryPrefixComparator
		if err := proto.Unmarshal(data, &m); err != nil {
			return nil, bad(err)
		}
		return filter.NewBinaryPrefixComparator(m.GetComparable().GetValue()), nil
	case ClassSubstringComparator:
		var m hbasepb.SubstringComparator
		if err := proto.Unmarshal(data, &m); err != nil {
			return nil, bad(err)
		}
		return filter.NewSubstringComparator(m.GetSubstr()), nil
	case ClassRegexStringComparator:
		var m hbasepb.RegexStringComparator
		if err := proto.Unmarshal(data, &m); err != nil {
			return nil, bad(err)
		}
		c := &filter.RegexStringComparator{
			Pattern: m.GetPattern(),
			Flags:   m.GetPatternFlags(),
			Charset: m.GetCharset(),
			Engine:  filter.RegexEngine(m.GetEngine()),
		}
		if err := c.Validate(); err != nil {
			return nil, bad(err)
		}
		return c, nil
	case ClassNullComparator:
		var m hbasepb.NullComparator
		if err := proto.Unmarshal(data, &m); err != nil {
			return nil, bad(err)
		}
		return filter.NullComparator{}, nil
	case ClassBitComparator:
		var m hbasepb.BitComparator
		if err := proto.Unmarshal(data, &m); err != nil {
			return nil, bad(err)
		}
		c, err := filter.NewBitComparator(m.GetComparable().GetValue(), filter.BitOp(m.GetBitwiseOp()))
		if err != nil {
			return nil, bad(err)
		}
		return c, nil
	}
	return nil, &UnsupportedError{Class: class}
}

// EncodeComparator returns the wire form of a comparator built by package
// filter (value or pointer). Other implementations return
// *UnsupportedError naming their Go type.
func EncodeComparator(c filter.Comparator) (*hbasepb.Comparator, error) {
	var class string
	var m proto.Message
	switch c := c.(type) {
	case filter.BinaryComparator:
		class, m = ClassBinaryComparator, &hbasepb.BinaryComparator{Comparable: comparable(c.Value)}
	case *filter.BinaryComparator:
		class, m = ClassBinaryComparator, &hbasepb.BinaryComparator{Comparable: comparable(c.Value)}
	case filter.BinaryPrefixComparator:
		class, m = ClassBinaryPrefixComparator, &hbasepb.BinaryPrefixComparator{Comparable: comparable(c.Value)}
	case *filter.BinaryPrefixComparator:
		class, m = ClassBinaryPrefixComparator, &hbasepb.BinaryPrefixComparator{Comparable: comparable(c.Value)}
	case filter.SubstringComparator:
		class, m = ClassSubstringComparator, &hbasepb.SubstringComparator{Substr: proto.String(c.Substr)}
	case *filter.SubstringComparator:
		class, m = ClassSubstringComparator, &hbasepb.SubstringComparator{Substr: proto.String(c.Substr)}
	case *filter.RegexStringComparator:
		charset := c.Charset
		if charset == "" {
			charset = defaultCharset
		}
		rm := &hbasepb.RegexStringComparator{
			Pattern:      proto.String(c.Pattern),
			PatternFlags: proto.Int32(c.Flags),
			Charset:      proto.String(charset),
		}
		if c.Engine != "" {
			rm.Engine = proto.String(string(c.Engine))
		}
		class, m = ClassRegexStringComparator, rm
	case filter.NullComparator, *filter.NullComparator:
		class, m = ClassNullComparator, &hbasepb.NullComparator{}
	case filter.BitComparator:
		return encodeBit(c)
	case *filter.BitComparator:
		return encodeBit(*c)
	case nil:
		return nil, invalidf("nil comparator")
	default:
		return nil, &UnsupportedError{Class: fmt.Sprintf("%T", c)}
	}
	return marshalComparator(class, m)
}

func encodeBit(c filter.BitComparator) (*hbasepb.Comparator, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalid, ClassBitComparator, err)
	}
	op := hbasepb.BitComparator_BitwiseOp(c.Op)
	return marshalComparator(ClassBitComparator, &hbasepb.BitComparator{Comparable: comparable(c.Value), BitwiseOp: &op})
}

func comparable(v []byte) *hbasepb.ByteArrayComparable {
	return &hbasepb.ByteArrayComparable{Value: v}
}

func marshalComparator(class string, m proto.Message) (*hbasepb.Comparator, error) {
	b, err := proto.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("hbaseconv: encoding %s: %w", class, err)
	}
	return &hbasepb.Comparator{Name: proto.String(class), SerializedComparator: b}, nil
}

// CompareOpFromPB maps HBase's CompareType to Weir's CompareOp; both use
// HBase's numbering.
func CompareOpFromPB(ct hbasepb.CompareType) (filter.CompareOp, error) {
	op := filter.CompareOp(ct)
	if ct < 0 || !op.Valid() {
		return 0, invalidf("unknown compare type %d", int32(ct))
	}
	return op, nil
}

// CompareOpToPB maps Weir's CompareOp to HBase's CompareType.
func CompareOpToPB(op filter.CompareOp) (hbasepb.CompareType, error) {
	if !op.Valid() {
		return 0, invalidf("unknown compare operator %d", uint8(op))
	}
	return hbasepb.CompareType(op), nil
}
