package hbaseconv

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/region"
)

// MaxRowLength is HBase's limit on a row key (Short.MAX_VALUE bytes).
const MaxRowLength = math.MaxInt16

// Attribute names HBase's client sets on operations, which Weir honours.
const (
	// AttrRaw is Scan.setRaw's attribute ("_raw_", Bytes.toBytes(boolean)).
	AttrRaw = "_raw_"
	// AttrReturnResults is Mutation.setReturnResults's attribute ("_rr_"),
	// used by Increment and Append.
	AttrReturnResults = "_rr_"
)

func checkRow(row []byte, what string) error {
	if len(row) == 0 {
		return invalidf("%s has an empty row", what)
	}
	if len(row) > MaxRowLength {
		return invalidf("%s row is %d bytes, over HBase's %d byte limit", what, len(row), MaxRowLength)
	}
	return nil
}

// u32 converts a uint32 count to int, rejecting what Java's int cannot
// hold.
func u32(v uint32, what string) (int, error) {
	if v > math.MaxInt32 {
		return 0, invalidf("%s %d overflows a Java int", what, v)
	}
	return int(v), nil
}

func u64ts(v uint64, what string) (int64, error) {
	if v > math.MaxInt64 {
		return 0, invalidf("%s %d overflows a Java long", what, v)
	}
	return int64(v), nil
}

// TimeRangeFromPB converts HBase's [from, to) range; absent bounds are 0
// and Long.MAX_VALUE. The empty range [0, 0) becomes [1, 1): Weir reads a
// zero TimeRange as all time.
func TimeRangeFromPB(pb *hbasepb.TimeRange) (cell.TimeRange, error) {
	if pb == nil {
		return cell.AllTime, nil
	}
	tr := cell.AllTime
	var err error
	if pb.From != nil {
		if tr.Min, err = u64ts(pb.GetFrom(), "time range from"); err != nil {
			return tr, err
		}
	}
	if pb.To != nil {
		if tr.Max, err = u64ts(pb.GetTo(), "time range to"); err != nil {
			return tr, err
		}
	}
	if tr.Min > tr.Max {
		return tr, invalidf("time range [%d, %d) ends before it starts", tr.Min, tr.Max)
	}
	if tr == (cell.TimeRange{}) {
		tr = cell.TimeRange{Min: 1, Max: 1}
	}
	return tr, nil
}

// TimeRangeToPB returns nil for all time (or Weir's zero TimeRange).
func TimeRangeToPB(tr cell.TimeRange) *hbasepb.TimeRange {
	if tr == (cell.TimeRange{}) || tr.IsAllTime() {
		return nil
	}
	return &hbasepb.TimeRange{From: proto.Uint64(uint64(tr.Min)), To: proto.Uint64(uint64(tr.Max))}
}

func columnsFromPB(cols []*hbasepb.Column) ([]region.Columns, error) {
	if len(cols) == 0 {
		return nil, nil
	}
	out := make([]region.Columns, len(cols))
	for i, c := range cols {
		if len(c.GetFamily()) == 0 {
			return nil, invalidf("column %d has an empty family", i)
		}
		out[i].Family = c.GetFamily()
		if qs := c.GetQualifier(); len(qs) > 0 {
			out[i].Qualifiers = make([][]byte, len(qs))
			for j, q := range qs {
				out[i].Qualifiers[j] = nonNil(q)
			}
		}
	}
	return out, nil
}

func columnsToPB(cols []region.Columns) []*hbasepb.Column {
	if len(cols) == 0 {
		return nil
	}
	out := make([]*hbasepb.Column, len(cols))
	for i, c := range cols {
		out[i] = &hbasepb.Column{Family: nonNil(c.Family), Qualifier: c.Qualifiers}
	}
	return out
}

func decodeOptionalFilter(pb *hbasepb.Filter) (filter.Filter, error) {
	if pb == nil {
		return nil, nil
	}
	return DecodeFilter(pb)
}

func encodeOptionalFilter(f filter.Filter) (*hbasepb.Filter, error) {
	if f == nil {
		return nil, nil
	}
	return EncodeFilter(f)
}

// GetFromPB converts a Get request. Per-family time ranges are rejected;
// attributes, cache_blocks, consistency and load_column_families_on_demand
// do not change what Weir returns and are ignored.
func GetFromPB(pb *hbasepb.Get) (region.Get, error) {
	if pb == nil {
		return region.Get{}, invalidf("missing get")
	}
	if err := checkRow(pb.GetRow(), "get"); err != nil {
		return region.Get{}, err
	}
	if len(pb.GetCfTimeRange()) > 0 {
		return region.Get{}, invalidf("get: per-family time ranges are not supported")
	}
	g := region.Get{Row: pb.GetRow(), ExistenceOnly: pb.GetExistenceOnly(), ClosestRowBefore: pb.GetClosestRowBefore()}
	var err error
	if g.Columns, err = columnsFromPB(pb.GetColumn()); err != nil {
		return region.Get{}, fmt.Errorf("get: %w", err)
	}
	if g.TimeRange, err = TimeRangeFromPB(pb.GetTimeRange()); err != nil {
		return region.Get{}, fmt.Errorf("get: %w", err)
	}
	if pb.MaxVersions != nil && pb.GetMaxVersions() == 0 {
		return region.Get{}, invalidf("get: max_versions must be positive")
	}
	if g.MaxVersions, err = u32(pb.GetMaxVersions(), "get max_versions"); err != nil {
		return region.Get{}, err
	}
	if g.StoreLimit, err = u32(pb.GetStoreLimit(), "get store_limit"); err != nil {
		return region.Get{}, err
	}
	if g.StoreOffset, err = u32(pb.GetStoreOffset(), "get store_offset"); err != nil {
		return region.Get{}, err
	}
	if g.Filter, err = decodeOptionalFilter(pb.GetFilter()); err != nil {
		return region.Get{}, fmt.Errorf("get filter: %w", err)
	}
	return g, nil
}

// GetToPB converts a Get for the wire.
func GetToPB(g region.Get) (*hbasepb.Get, error) {
	if err := checkRow(g.Row, "get"); err != nil {
		return nil, err
	}
	if g.MaxVersions < 0 || g.MaxVersions > math.MaxInt32 || g.StoreLimit > math.MaxInt32 ||
		g.StoreOffset < 0 || g.StoreOffset > math.MaxInt32 {
		return nil, invalidf("get: max versions %d, store limit %d or store offset %d out of range",
			g.MaxVersions, g.StoreLimit, g.StoreOffset)
	}
	pb := &hbasepb.Get{Row: g.Row, Column: columnsToPB(g.Columns), TimeRange: TimeRangeToPB(g.TimeRange)}
	if g.MaxVersions > 0 {
		pb.MaxVersions = proto.Uint32(uint32(g.MaxVersions))
	}
	if g.StoreLimit > 0 {
		pb.StoreLimit = proto.Uint32(uint32(g.StoreLimit))
	}
	if g.StoreOffset > 0 {
		pb.StoreOffset = proto.Uint32(uint32(g.StoreOffset))
	}
	if g.ExistenceOnly {
		pb.ExistenceOnly = proto.Bool(true)
	}
	if g.ClosestRowBefore {
		pb.ClosestRowBefore = proto.Bool(true)
	}
	var err error
	if pb.Filter, err = encodeOptionalFilter(g.Filter); err != nil {
		return nil, fmt.Errorf("get filter: %w", err)
	}
	return pb, nil
}

// ReadType is HBase's Scan.ReadType.
type ReadType uint8

const (
	ReadDefault ReadType = iota
	ReadStream
	ReadPread
)

// ScanOptions are the Scan fields that steer the RPC exchange rather than
// which cells are read.
type ScanOptions struct {
	// Caching is the number of rows per ScanResponse; 0 leaves it to the
	// server (HBase's hbase.client.scanner.caching).
	Caching int
	// MaxResultSize is the byte budget of one ScanResponse; 0 leaves it to
	// the server.
	MaxResultSize int64
	// AllowPartialResults lets the server split a row across responses.
	AllowPartialResults bool
	// Small is the deprecated small-scan hint.
	Small    bool
	ReadType ReadType
	// NeedCursorResult asks for cursor results in heartbeats.
	NeedCursorResult bool
	// MvccReadPoint, when non-zero, is the read point of a scan reopened
	// after a region move.
	MvccReadPoint uint64
	// CacheBlocks is HBase's block-cache hint (default true).
	CacheBlocks bool
	// Timeline is Consistency.TIMELINE (replica reads); Weir answers such
	// scans from the primary.
	Timeline bool
}

// ScanFromPB converts a Scan. Its row limit is not part of the Scan message
// (ScanRequest.limit_of_rows carries it), so Scan.Limit stays 0. Raw comes
// from the "_raw_" attribute.
func ScanFromPB(pb *hbasepb.Scan) (region.Scan, ScanOptions, error) {
	if pb == nil {
		return region.Scan{}, ScanOptions{}, invalidf("missing scan")
	}
	if len(pb.GetCfTimeRange()) > 0 {
		return region.Scan{}, ScanOptions{}, invalidf("scan: per-family time ranges are not supported")
	}
	if len(pb.GetStartRow()) > MaxRowLength || len(pb.GetStopRow()) > MaxRowLength {
		return region.Scan{}, ScanOptions{}, invalidf("scan: start or stop row over HBase's %d byte limit", MaxRowLength)
	}
	s := region.Scan{
		StartRow: pb.GetStartRow(), StopRow: pb.GetStopRow(),
		ExcludeStartRow: !pb.GetIncludeStartRow(), IncludeStopRow: pb.GetIncludeStopRow(),
		Reversed: pb.GetReversed(),
	}
	var err error
	if s.Columns, err = columnsFromPB(pb.GetColumn()); err != nil {
		return region.Scan{}, ScanOptions{}, fmt.Errorf("scan: %w", err)
	}
	if s.TimeRange, err = TimeRangeFromPB(pb.GetTimeRange()); err != nil {
		return region.Scan{}, ScanOptions{}, fmt.Errorf("scan: %w", err)
	}
	for _, f := range []struct {
		dst  *int
		v    uint32
		name string
	}{
		{&s.MaxVersions, pb.GetMaxVersions(), "scan max_versions"},
		{&s.Batch, pb.GetBatchSize(), "scan batch_size"},
		{&s.StoreLimit, pb.GetStoreLimit(), "scan store_limit"},
		{&s.StoreOffset, pb.GetStoreOffset(), "scan store_offset"},
	} {
		if *f.dst, err = u32(f.v, f.name); err != nil {
			return region.Scan{}, ScanOptions{}, err
		}
	}
	for _, a := range pb.GetAttribute() {
		if a.GetName() == AttrRaw {
			if s.Raw, err = javaBool(a.GetValue(), AttrRaw); err != nil {
				return region.Scan{}, ScanOptions{}, fmt.Errorf("scan: %w", err)
			}
		}
	}
	if s.Filter, err = decodeOptionalFilter(pb.GetFilter()); err != nil {
		return region.Scan{}, ScanOptions{}, fmt.Errorf("scan filter: %w", err)
	}
	o := ScanOptions{
		AllowPartialResults: pb.GetAllowPartialResults(),
		Small:               pb.GetSmall(),
		NeedCursorResult:    pb.GetNeedCursorResult(),
		MvccReadPoint:       pb.GetMvccReadPoint(),
		CacheBlocks:         pb.GetCacheBlocks(),
		Timeline:            pb.GetConsistency() == hbasepb.Consistency_TIMELINE,
	}
	if o.Caching, err = u32(pb.GetCaching(), "scan caching"); err != nil {
		return region.Scan{}, ScanOptions{}, err
	}
	if pb.GetMaxResultSize() > math.MaxInt64 {
		return region.Scan{}, ScanOptions{}, invalidf("scan max_result_size %d overflows a Java long", pb.GetMaxResultSize())
	}
	o.MaxResultSize = int64(pb.GetMaxResultSize())
	switch rt := pb.GetReadType(); rt {
	case hbasepb.Scan_DEFAULT, hbasepb.Scan_STREAM, hbasepb.Scan_PREAD:
		o.ReadType = ReadType(rt)
	default:
		return region.Scan{}, ScanOptions{}, invalidf("scan: unknown read type %d", int32(rt))
	}
	return s, o, nil
}

// javaBool decodes Bytes.toBoolean: exactly one byte, non-zero is true.
func javaBool(v []byte, what string) (bool, error) {
	if len(v) != 1 {
		return false, invalidf("attribute %s holds %d bytes, want a 1-byte boolean", what, len(v))
	}
	return v[0] != 0, nil
}

// ScanToPB converts a Scan and its RPC options for the wire. s.Limit is
// not part of the message: send it as ScanRequest.limit_of_rows.
func ScanToPB(s region.Scan, o ScanOptions) (*hbasepb.Scan, error) {
	for _, v := range []int{s.MaxVersions, s.Batch, s.StoreLimit, s.StoreOffset, o.Caching} {
		if v < 0 || v > math.MaxInt32 {
			return nil, invalidf("scan: count %d out of range", v)
		}
	}
	if o.MaxResultSize < 0 || o.ReadType > ReadPread {
		return nil, invalidf("scan: bad max result size %d or read type %d", o.MaxResultSize, o.ReadType)
	}
	pb := &hbasepb.Scan{
		Column: columnsToPB(s.Columns), StartRow: s.StartRow, StopRow: s.StopRow,
		TimeRange: TimeRangeToPB(s.TimeRange),
	}
	if s.ExcludeStartRow {
		pb.IncludeStartRow = proto.Bool(false)
	}
	if s.IncludeStopRow {
		pb.IncludeStopRow = proto.Bool(true)
	}
	if s.Reversed {
		pb.Reversed = proto.Bool(true)
	}
	if s.MaxVersions > 0 {
		pb.MaxVersions = proto.Uint32(uint32(s.MaxVersions))
	}
	if s.Batch > 0 {
		pb.BatchSize = proto.Uint32(uint32(s.Batch))
	}
	if s.StoreLimit > 0 {
		pb.StoreLimit = proto.Uint32(uint32(s.StoreLimit))
	}
	if s.StoreOffset > 0 {
		pb.StoreOffset = proto.Uint32(uint32(s.StoreOffset))
	}
	if s.Raw {
		pb.Attribute = append(pb.Attribute, &hbasepb.NameBytesPair{Name: proto.String(AttrRaw), Value: []byte{0xff}})
	}
	if o.Caching > 0 {
		pb.Caching = proto.Uint32(uint32(o.Caching))
	}
	if o.MaxResultSize > 0 {
		pb.MaxResultSize = proto.Uint64(uint64(o.MaxResultSize))
	}
	if o.AllowPartialResults {
		pb.AllowPartialResults = proto.Bool(true)
	}
	if o.Small {
		pb.Small = proto.Bool(true)
	}
	if o.ReadType != ReadDefault {
		pb.ReadType = hbasepb.Scan_ReadType(o.ReadType).Enum()
	}
	if o.NeedCursorResult {
		pb.NeedCursorResult = proto.Bool(true)
	}
	if o.MvccReadPoint != 0 {
		pb.MvccReadPoint = proto.Uint64(o.MvccReadPoint)
	}
	if !o.CacheBlocks {
		pb.CacheBlocks = proto.Bool(false)
	}
	if o.Timeline {
		pb.Consistency = hbasepb.Consistency_TIMELINE.Enum()
	}
	var err error
	if pb.Filter, err = encodeOptionalFilter(s.Filter); err != nil {
		return nil, fmt.Errorf("scan filter: %w", err)
	}
	return pb, nil
}

// RegionNameFromSpecifier returns the region named by rs. encoded reports
// an ENCODED_REGION_NAME (the MD5 hex suffix) rather than a full
// REGION_NAME; the caller decides whether it accepts one.
func RegionNameFromSpecifier(rs *hbasepb.RegionSpecifier) (name []byte, encoded bool, err error) {
	if rs == nil {
		return nil, false, invalidf("missing region specifier")
	}
	if rs.Type == nil {
		return nil, false, invalidf("region specifier has no type")
	}
	if len(rs.GetValue()) == 0 {
		return nil, false, invalidf("region specifier has an empty name")
	}
	switch rs.GetType() {
	case hbasepb.RegionSpecifier_REGION_NAME:
		return rs.GetValue(), false, nil
	case hbasepb.RegionSpecifier_ENCODED_REGION_NAME:
		return rs.GetValue(), true, nil
	}
	return nil, false, invalidf("region specifier has unknown type %d", int32(rs.GetType()))
}

// RegionSpecifierFromName returns a REGION_NAME specifier.
func RegionSpecifierFromName(name []byte) *hbasepb.RegionSpecifier {
	return &hbasepb.RegionSpecifier{Type: hbasepb.RegionSpecifier_REGION_NAME.Enum(), Value: name}
}

// ConditionFromPB converts a CheckAndMutate condition. A filter, when
// present, replaces the column check, as in HBase. The comparator is
// decoded as sent (HBase 2.6's server reduces it to a BinaryComparator of
// its operand; the Java client only ever sends BinaryComparator or
// NullComparator here, for which both readings agree).
func ConditionFromPB(pb *hbasepb.Condition) (row []byte, cond region.Condition, err error) {
	if pb == nil {
		return nil, cond, invalidf("missing condition")
	}
	if err := checkRow(pb.GetRow(), "condition"); err != nil {
		return nil, cond, err
	}
	if cond.TimeRange, err = TimeRangeFromPB(pb.GetTimeRange()); err != nil {
		return nil, cond, fmt.Errorf("condition: %w", err)
	}
	if pb.GetFilter() != nil {
		if cond.Filter, err = DecodeFilter(pb.GetFilter()); err != nil {
			return nil, cond, fmt.Errorf("condition filter: %w", err)
		}
		return pb.GetRow(), cond, nil
	}
	if len(pb.GetFamily()) == 0 {
		return nil, cond, invalidf("condition has neither a filter nor a family")
	}
	if pb.CompareType == nil {
		return nil, cond, invalidf("condition on %s:%s has no compare_type", pb.GetFamily(), pb.GetQualifier())
	}
	if pb.GetComparator() == nil {
		return nil, cond, invalidf("condition on %s:%s has no comparator", pb.GetFamily(), pb.GetQualifier())
	}
	cond.Family, cond.Qualifier = pb.GetFamily(), nonNil(pb.GetQualifier())
	if cond.Op, err = CompareOpFromPB(pb.GetCompareType()); err != nil {
		return nil, cond, fmt.Errorf("condition: %w", err)
	}
	if cond.Comparator, err = DecodeComparator(pb.GetComparator()); err != nil {
		return nil, cond, fmt.Errorf("condition: %w", err)
	}
	return pb.GetRow(), cond, nil
}

// ConditionToPB converts a CheckAndMutate condition on row for the wire. A
// nil comparator is sent as NullComparator.
func ConditionToPB(row []byte, cond region.Condition) (*hbasepb.Condition, error) {
	if err := checkRow(row, "condition"); err != nil {
		return nil, err
	}
	pb := &hbasepb.Condition{Row: row, TimeRange: TimeRangeToPB(cond.TimeRange)}
	var err error
	if cond.Filter != nil {
		if pb.Filter, err = EncodeFilter(cond.Filter); err != nil {
			return nil, fmt.Errorf("condition filter: %w", err)
		}
		return pb, nil
	}
	pb.Family, pb.Qualifier = nonNil(cond.Family), nonNil(cond.Qualifier)
	ct, err := CompareOpToPB(cond.Op)
	if err != nil {
		return nil, fmt.Errorf("condition: %w", err)
	}
	pb.CompareType = ct.Enum()
	cmp := cond.Comparator
	if cmp == nil {
		cmp = filter.NullComparator{}
	}
	if pb.Comparator, err = EncodeComparator(cmp); err != nil {
		return nil, fmt.Errorf("condition: %w", err)
	}
	return pb, nil
}
