package hbaserpc

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
)

// The messages of the two calls YCSB-style traffic consists of (Get and
// Mutate, their requests on the server and their responses on the client)
// are decoded and encoded here by hand, like the headers in header.go:
// through the protobuf runtime each cost a reflective walk and an
// allocation per optional field, a visible share of the CPU of both sides
// of a call. The fast paths take only the fields ordinary calls use, and
// give up (the caller then uses the protobuf runtime) on anything else: an
// unknown or repeated singular field, a wrong wire type, an enum value the
// schema does not name, a missing required field. So a message the fast
// path accepts decodes to exactly what proto.Unmarshal makes of it, and a
// message it encodes decodes to the message it was given (fastpb_test.go
// fuzzes both). The encoders also give up on a message missing a required
// field, for the runtime to report.

// pbDecoder walks the fields of one message. Any malformation, or a
// field seen twice that is not marked repeated, sets bad.
type pbDecoder struct {
	b        []byte
	bad      bool
	num      protowire.Number
	typ      protowire.Type
	repeated uint32 // bit n: field n may occur more than once
	seen     uint32 // bit n: field n occurred
}

// next moves to the next field; false at the end or when bad. A second
// occurrence of a singular field (which the protobuf runtime would merge
// or override) is left to the runtime.
func (d *pbDecoder) next() bool {
	if d.bad || len(d.b) == 0 {
		return false
	}
	num, typ, n := protowire.ConsumeTag(d.b)
	if n < 0 || num >= 32 {
		d.bad = true
		return false
	}
	d.b, d.num, d.typ = d.b[n:], num, typ
	bit := uint32(1) << uint(num)
	if d.seen&bit != 0 && d.repeated&bit == 0 {
		d.bad = true
		return false
	}
	d.seen |= bit
	return true
}

// varint reads the current field as a varint.
func (d *pbDecoder) varint() uint64 {
	if d.typ != protowire.VarintType {
		d.bad = true
		return 0
	}
	v, n := protowire.ConsumeVarint(d.b)
	if n < 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

// bytes reads the current field as length-delimited; the result aliases
// the input and is non-nil even when empty (as proto.Unmarshal's).
func (d *pbDecoder) bytes() []byte {
	if d.typ != protowire.BytesType {
		d.bad = true
		return nil
	}
	v, n := protowire.ConsumeBytes(d.b)
	if n < 0 {
		d.bad = true
		return nil
	}
	d.b = d.b[n:]
	return v[:len(v):len(v)]
}

// uint32To, uint64To and boolTo read the current field as a varint of
// their type into *v, and return v for the message's optional field.
func (d *pbDecoder) uint32To(v *uint32) *uint32 { *v = uint32(d.varint()); return v }
func (d *pbDecoder) uint64To(v *uint64) *uint64 { *v = d.varint(); return v }
func (d *pbDecoder) boolTo(v *bool) *bool       { *v = d.varint() != 0; return v }

// enumTo reads the current field into *v as a value of the enum whose
// names are names, and returns v for the message's optional field; nil for
// a value the schema does not name (the runtime keeps those as unknown
// fields).
func enumTo[E ~int32](d *pbDecoder, names map[int32]string, v *E) *E {
	n := int32(d.varint())
	if _, named := names[n]; !named {
		return nil
	}
	*v = E(n)
	return v
}

// fastGetRequest holds a decoded GetRequest and its parts in one
// allocation.
type fastGetRequest struct {
	req     hbasepb.GetRequest
	spec    fastRegionSpecifier
	get     hbasepb.Get
	tr      fastTimeRange
	columns firstColumn
	maxVer  uint32
	cache   bool
	exist   bool
	consist hbasepb.Consistency
}

// DecodeGetRequest decodes a GetRequest by hand; ok is false when the
// protobuf runtime must do it (see above). The message's byte fields alias
// b.
func DecodeGetRequest(b []byte) (req *hbasepb.GetRequest, ok bool) {
	f := &fastGetRequest{}
	if !f.decode(b) {
		return nil, false
	}
	return &f.req, true
}

// decode decodes b into the zero f; false: the runtime must.
func (f *fastGetRequest) decode(b []byte) bool {
	d := pbDecoder{b: b}
	for d.next() {
		switch d.num {
		case 1:
			if f.req.Region = f.spec.decode(d.bytes()); f.req.Region == nil {
				return false
			}
		case 2:
			if !f.decodeGet(d.bytes()) {
				return false
			}
			f.req.Get = &f.get
		default:
			return false
		}
	}
	if d.bad || f.req.Region == nil || f.req.Get == nil {
		return false
	}
	return true
}

// fastRegionSpecifier is a RegionSpecifier with its type.
type fastRegionSpecifier struct {
	spec hbasepb.RegionSpecifier
	typ  hbasepb.RegionSpecifier_RegionSpecifierType
}

// decode returns the decoded specifier, or nil.
func (s *fastRegionSpecifier) decode(b []byte) *hbasepb.RegionSpecifier {
	d := pbDecoder{b: b}
	for d.next() {
		switch d.num {
		case 1:
			if s.spec.Type = enumTo(&d, hbasepb.RegionSpecifier_RegionSpecifierType_name, &s.typ); s.spec.Type == nil {
				return nil
			}
		case 2:
			s.spec.Value = d.bytes()
		default:
			return nil
		}
	}
	if d.bad || s.spec.Type == nil || s.spec.Value == nil {
		return nil
	}
	return &s.spec
}

func (f *fastGetRequest) decodeGet(b []byte) bool {
	g := &f.get
	d := pbDecoder{b: b, repeated: 1 << 2}
	for d.next() {
		switch d.num {
		case 1:
			g.Row = d.bytes()
		case 2:
			var ok bool
			if g.Column, ok = f.columns.add(g.Column, d.bytes()); !ok {
				return false
			}
		case 5:
			if g.TimeRange = f.tr.decode(d.bytes()); g.TimeRange == nil {
				return false
			}
		case 6:
			g.MaxVersions = d.uint32To(&f.maxVer)
		case 7:
			g.CacheBlocks = d.boolTo(&f.cache)
		case 10:
			g.ExistenceOnly = d.boolTo(&f.exist)
		case 12:
			if g.Consistency = enumTo(&d, hbasepb.Consistency_name, &f.consist); g.Consistency == nil {
				return false
			}
		default:
			return false
		}
	}
	return !d.bad && g.Row != nil
}

// firstColumn holds a request's first column, so that a request of one
// column (YCSB's family) takes no allocation of its own for it.
type firstColumn struct {
	col  hbasepb.Column
	cols [1]*hbasepb.Column
}

// add decodes b as a Column and appends it to cols.
func (fc *firstColumn) add(cols []*hbasepb.Column, b []byte) ([]*hbasepb.Column, bool) {
	c := &fc.col
	if cols == nil {
		cols = fc.cols[:1:1]
		cols[0] = c
	} else {
		c = &hbasepb.Column{}
		cols = append(cols, c)
	}
	return cols, decodeColumn(b, c)
}

func decodeColumn(b []byte, c *hbasepb.Column) bool {
	d := pbDecoder{b: b, repeated: 1 << 2}
	for d.next() {
		switch d.num {
		case 1:
			c.Family = d.bytes()
		case 2:
			c.Qualifier = append(c.Qualifier, d.bytes())
		default:
			return false
		}
	}
	return !d.bad && c.Family != nil
}

// fastTimeRange is a TimeRange with its bounds.
type fastTimeRange struct {
	tr       hbasepb.TimeRange
	from, to uint64
}

// decode returns the decoded time range, or nil.
func (t *fastTimeRange) decode(b []byte) *hbasepb.TimeRange {
	d := pbDecoder{b: b}
	for d.next() {
		switch d.num {
		case 1:
			t.tr.From = d.uint64To(&t.from)
		case 2:
			t.tr.To = d.uint64To(&t.to)
		default:
			return nil
		}
	}
	if d.bad {
		return nil
	}
	return &t.tr
}

// fastMutateRequest holds a decoded MutateRequest and its parts in one
// allocation.
type fastMutateRequest struct {
	req        hbasepb.MutateRequest
	spec       fastRegionSpecifier
	mut        hbasepb.MutationProto
	nonceGroup uint64
	mtype      hbasepb.MutationProto_MutationType
	ts         uint64
	durability hbasepb.MutationProto_Durability
	cellCount  int32
	nonce      uint64
}

// DecodeMutateRequest decodes a MutateRequest without a condition by hand;
// ok is false when the protobuf runtime must do it (see above). The
// message's byte fields alias b.
func DecodeMutateRequest(b []byte) (req *hbasepb.MutateRequest, ok bool) {
	f := &fastMutateRequest{}
	if !f.decode(b) {
		return nil, false
	}
	return &f.req, true
}

// decode decodes b into the zero f; false: the runtime must.
func (f *fastMutateRequest) decode(b []byte) bool {
	d := pbDecoder{b: b}
	for d.next() {
		switch d.num {
		case 1:
			if f.req.Region = f.spec.decode(d.bytes()); f.req.Region == nil {
				return false
			}
		case 2:
			if !f.decodeMutation(d.bytes()) {
				return false
			}
			f.req.Mutation = &f.mut
		case 4:
			f.req.NonceGroup = d.uint64To(&f.nonceGroup)
		default:
			return false
		}
	}
	if d.bad || f.req.Region == nil || f.req.Mutation == nil {
		return false
	}
	return true
}

func (f *fastMutateRequest) decodeMutation(b []byte) bool {
	m := &f.mut
	d := pbDecoder{b: b, repeated: 1 << 3}
	for d.next() {
		switch d.num {
		case 1:
			m.Row = d.bytes()
		case 2:
			if m.MutateType = enumTo(&d, hbasepb.MutationProto_MutationType_name, &f.mtype); m.MutateType == nil {
				return false
			}
		case 3:
			cv := &hbasepb.MutationProto_ColumnValue{}
			m.ColumnValue = append(m.ColumnValue, cv)
			if !decodeColumnValue(d.bytes(), cv) {
				return false
			}
		case 4:
			m.Timestamp = d.uint64To(&f.ts)
		case 6:
			if m.Durability = enumTo(&d, hbasepb.MutationProto_Durability_name, &f.durability); m.Durability == nil {
				return false
			}
		case 8:
			f.cellCount = int32(d.varint())
			m.AssociatedCellCount = &f.cellCount
		case 9:
			m.Nonce = d.uint64To(&f.nonce)
		default:
			return false
		}
	}
	return !d.bad
}

// qualifierValue holds a QualifierValue's optional scalars with it.
type qualifierValue struct {
	qv  hbasepb.MutationProto_ColumnValue_QualifierValue
	ts  uint64
	del hbasepb.MutationProto_DeleteType
}

func decodeColumnValue(b []byte, cv *hbasepb.MutationProto_ColumnValue) bool {
	d := pbDecoder{b: b, repeated: 1 << 2}
	for d.next() {
		switch d.num {
		case 1:
			cv.Family = d.bytes()
		case 2:
			q := &qualifierValue{}
			cv.QualifierValue = append(cv.QualifierValue, &q.qv)
			if !q.decode(d.bytes()) {
				return false
			}
		default:
			return false
		}
	}
	return !d.bad && cv.Family != nil
}

func (q *qualifierValue) decode(b []byte) bool {
	d := pbDecoder{b: b}
	for d.next() {
		switch d.num {
		case 1:
			q.qv.Qualifier = d.bytes()
		case 2:
			q.qv.Value = d.bytes()
		case 3:
			q.qv.Timestamp = d.uint64To(&q.ts)
		case 4:
			if q.qv.DeleteType = enumTo(&d, hbasepb.MutationProto_DeleteType_name, &q.del); q.qv.DeleteType == nil {
				return false
			}
		case 5:
			q.qv.Tags = d.bytes()
		default:
			return false
		}
	}
	return !d.bad
}

// fastResult holds a decoded Result's optional scalars.
type fastResult struct {
	res     hbasepb.Result
	count   int32
	exists  bool
	stale   bool
	partial bool
}

// decodeResult decodes a Result without inline cells or metrics, or
// returns nil.
func decodeResult(b []byte) *hbasepb.Result {
	f := &fastResult{}
	d := pbDecoder{b: b}
	for d.next() {
		switch d.num {
		case 2:
			f.count = int32(d.varint())
			f.res.AssociatedCellCount = &f.count
		case 3:
			f.res.Exists = d.boolTo(&f.exists)
		case 4:
			f.res.Stale = d.boolTo(&f.stale)
		case 5:
			f.res.Partial = d.boolTo(&f.partial)
		default:
			return nil
		}
	}
	if d.bad {
		return nil
	}
	return &f.res
}

// decodeResponseFast decodes a GetResponse or MutateResponse into resp,
// which must be empty, by hand; false leaves resp untouched for the
// protobuf runtime.
func decodeResponseFast(b []byte, resp proto.Message) bool {
	var (
		res       *hbasepb.Result
		processed *bool
	)
	get, isGet := resp.(*hbasepb.GetResponse)
	mut, isMut := resp.(*hbasepb.MutateResponse)
	switch {
	case isGet && get.Result == nil:
	case isMut && mut.Result == nil && mut.Processed == nil:
	default:
		return false
	}
	d := pbDecoder{b: b}
	for d.next() {
		switch {
		case d.num == 1:
			if res = decodeResult(d.bytes()); res == nil {
				return false
			}
		case d.num == 2 && isMut:
			p := d.varint() != 0
			processed = &p
		default:
			return false
		}
	}
	if d.bad {
		return false
	}
	if isGet {
		get.Result = res
	} else {
		mut.Result, mut.Processed = res, processed
	}
	return true
}

// appendMessageFast appends msg's encoding (without length prefix) to b
// for the message types with a hand encoder; false (b unchanged) for any
// other message, or one with fields the hand encoder does not write.
func appendMessageFast(b []byte, msg proto.Message) ([]byte, bool) {
	start := len(b)
	var ok bool
	switch m := msg.(type) {
	case *hbasepb.GetRequest:
		b, ok = appendGetRequest(b, m)
	case *hbasepb.MutateRequest:
		b, ok = appendMutateRequest(b, m)
	case *hbasepb.ScanRequest:
		b, ok = appendScanRequest(b, m)
	case *hbasepb.GetResponse:
		if !plain(m) {
			return b, false
		}
		ok = true
		if m.Result != nil {
			b, ok = appendSub(b, 1, m.Result, appendResult)
		}
	case *hbasepb.MutateResponse:
		if !plain(m) || m.Metrics != nil {
			return b, false
		}
		ok = true
		if m.Result != nil {
			b, ok = appendSub(b, 1, m.Result, appendResult)
		}
		if ok && m.Processed != nil {
			b = appendBool(b, 2, *m.Processed)
		}
	}
	if !ok {
		return b[:start], false
	}
	return b, true
}

// plain reports whether m carries no unknown fields.
func plain(m proto.Message) bool { return len(m.ProtoReflect().GetUnknown()) == 0 }

// appendSub appends field num as a sub-message encoded by enc. Its length
// is not known in advance: the body is encoded first and moved to make room
// for the length (these messages are small).
func appendSub[M any](b []byte, num protowire.Number, m M, enc func([]byte, M) ([]byte, bool)) ([]byte, bool) {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	at := len(b)
	b, ok := enc(b, m)
	if !ok {
		return b, false
	}
	return insertLen(b, at), true
}

// insertLen inserts the varint length of b[at:] at at.
func insertLen(b []byte, at int) []byte {
	n := len(b) - at
	k := protowire.SizeVarint(uint64(n))
	var pad [10]byte
	b = append(b, pad[:k]...)
	copy(b[at+k:], b[at:at+n])
	protowire.AppendVarint(b[at:at], uint64(n))
	return b
}

func appendBool(b []byte, num protowire.Number, v bool) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, protowire.EncodeBool(v))
}

func appendUint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendBytesField(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendResult(b []byte, r *hbasepb.Result) ([]byte, bool) {
	if len(r.Cell) > 0 || r.Metrics != nil || !plain(r) {
		return b, false
	}
	if r.AssociatedCellCount != nil {
		b = appendUint(b, 2, uint64(int64(*r.AssociatedCellCount)))
	}
	if r.Exists != nil {
		b = appendBool(b, 3, *r.Exists)
	}
	if r.Stale != nil {
		b = appendBool(b, 4, *r.Stale)
	}
	if r.Partial != nil {
		b = appendBool(b, 5, *r.Partial)
	}
	return b, true
}

func appendRegionSpecifier(b []byte, s *hbasepb.RegionSpecifier) ([]byte, bool) {
	if s.Type == nil || s.Value == nil || !plain(s) {
		return b, false
	}
	if s.Type != nil {
		b = appendUint(b, 1, uint64(int64(*s.Type)))
	}
	if s.Value != nil {
		b = appendBytesField(b, 2, s.Value)
	}
	return b, true
}

func appendGetRequest(b []byte, m *hbasepb.GetRequest) ([]byte, bool) {
	if m.Region == nil || m.Get == nil || !plain(m) {
		return b, false
	}
	ok := true
	if m.Region != nil {
		b, ok = appendSub(b, 1, m.Region, appendRegionSpecifier)
	}
	if ok && m.Get != nil {
		b, ok = appendSub(b, 2, m.Get, appendGet)
	}
	return b, ok
}

// appendScanRequest encodes a scanner's open, next or close request as
// clients build them (a scan with columns, rows and a time range; no
// filter, attributes or per-family time ranges): the runtime's encoder
// was 5% of a scanning driver's CPU.
func appendScanRequest(b []byte, m *hbasepb.ScanRequest) ([]byte, bool) {
	if !plain(m) {
		return b, false
	}
	ok := true
	if m.Region != nil {
		b, ok = appendSub(b, 1, m.Region, appendRegionSpecifier)
	}
	if ok && m.Scan != nil {
		b, ok = appendSub(b, 2, m.Scan, appendScan)
	}
	if !ok {
		return b, false
	}
	b = appendOptUint(b, 3, m.ScannerId)
	b = appendOptUint(b, 4, m.NumberOfRows)
	b = appendOptBool(b, 5, m.CloseScanner)
	b = appendOptUint(b, 6, m.NextCallSeq)
	b = appendOptBool(b, 7, m.ClientHandlesPartials)
	b = appendOptBool(b, 8, m.ClientHandlesHeartbeats)
	b = appendOptBool(b, 9, m.TrackScanMetrics)
	b = appendOptBool(b, 10, m.Renew)
	b = appendOptUint(b, 11, m.LimitOfRows)
	return b, true
}

func appendScan(b []byte, s *hbasepb.Scan) ([]byte, bool) {
	if len(s.Attribute) > 0 || len(s.CfTimeRange) > 0 || !plain(s) {
		return b, false
	}
	ok := true
	for _, c := range s.Column {
		if b, ok = appendSub(b, 1, c, appendColumn); !ok {
			return b, false
		}
	}
	if s.StartRow != nil {
		b = appendBytesField(b, 3, s.StartRow)
	}
	if s.StopRow != nil {
		b = appendBytesField(b, 4, s.StopRow)
	}
	if s.Filter != nil {
		// YCSB's scans carry a PageFilter.
		if b, ok = appendSub(b, 5, s.Filter, appendFilter); !ok {
			return b, false
		}
	}
	if s.TimeRange != nil {
		if b, ok = appendSub(b, 6, s.TimeRange, appendTimeRange); !ok {
			return b, false
		}
	}
	b = appendOptUint(b, 7, s.MaxVersions)
	b = appendOptBool(b, 8, s.CacheBlocks)
	b = appendOptUint(b, 9, s.BatchSize)
	b = appendOptUint(b, 10, s.MaxResultSize)
	b = appendOptUint(b, 11, s.StoreLimit)
	b = appendOptUint(b, 12, s.StoreOffset)
	b = appendOptBool(b, 13, s.LoadColumnFamiliesOnDemand)
	b = appendOptBool(b, 14, s.Small)
	b = appendOptBool(b, 15, s.Reversed)
	if s.Consistency != nil {
		b = appendUint(b, 16, uint64(int64(*s.Consistency)))
	}
	b = appendOptUint(b, 17, s.Caching)
	b = appendOptBool(b, 18, s.AllowPartialResults)
	b = appendOptUint(b, 20, s.MvccReadPoint)
	b = appendOptBool(b, 21, s.IncludeStartRow)
	b = appendOptBool(b, 22, s.IncludeStopRow)
	if s.ReadType != nil {
		b = appendUint(b, 23, uint64(int64(*s.ReadType)))
	}
	b = appendOptBool(b, 24, s.NeedCursorResult)
	b = appendOptBool(b, 25, s.QueryMetricsEnabled)
	return b, true
}

// appendFilter encodes a filter's name and its serialized message.
func appendFilter(b []byte, f *hbasepb.Filter) ([]byte, bool) {
	if f.Name == nil || !plain(f) {
		return b, false // name is required
	}
	b = appendBytesField(b, 1, []byte(*f.Name))
	if f.SerializedFilter != nil {
		b = appendBytesField(b, 2, f.SerializedFilter)
	}
	return b, true
}

// appendOptUint appends field num if v is set.
func appendOptUint[T uint32 | uint64](b []byte, num protowire.Number, v *T) []byte {
	if v == nil {
		return b
	}
	return appendUint(b, num, uint64(*v))
}

// appendOptBool appends field num if v is set.
func appendOptBool(b []byte, num protowire.Number, v *bool) []byte {
	if v == nil {
		return b
	}
	return appendBool(b, num, *v)
}

func appendGet(b []byte, g *hbasepb.Get) ([]byte, bool) {
	if len(g.Attribute) > 0 || g.Filter != nil || g.StoreLimit != nil || g.StoreOffset != nil ||
		g.ClosestRowBefore != nil || len(g.CfTimeRange) > 0 || g.LoadColumnFamiliesOnDemand != nil ||
		g.QueryMetricsEnabled != nil || g.Row == nil || !plain(g) {
		return b, false
	}
	if g.Row != nil {
		b = appendBytesField(b, 1, g.Row)
	}
	ok := true
	for _, c := range g.Column {
		if b, ok = appendSub(b, 2, c, appendColumn); !ok {
			return b, false
		}
	}
	if g.TimeRange != nil {
		if b, ok = appendSub(b, 5, g.TimeRange, appendTimeRange); !ok {
			return b, false
		}
	}
	if g.MaxVersions != nil {
		b = appendUint(b, 6, uint64(*g.MaxVersions))
	}
	if g.CacheBlocks != nil {
		b = appendBool(b, 7, *g.CacheBlocks)
	}
	if g.ExistenceOnly != nil {
		b = appendBool(b, 10, *g.ExistenceOnly)
	}
	if g.Consistency != nil {
		b = appendUint(b, 12, uint64(int64(*g.Consistency)))
	}
	return b, true
}

func appendColumn(b []byte, c *hbasepb.Column) ([]byte, bool) {
	if c == nil || c.Family == nil || !plain(c) {
		return b, false
	}
	if c.Family != nil {
		b = appendBytesField(b, 1, c.Family)
	}
	for _, q := range c.Qualifier {
		b = appendBytesField(b, 2, q)
	}
	return b, true
}

func appendTimeRange(b []byte, tr *hbasepb.TimeRange) ([]byte, bool) {
	if !plain(tr) {
		return b, false
	}
	if tr.From != nil {
		b = appendUint(b, 1, *tr.From)
	}
	if tr.To != nil {
		b = appendUint(b, 2, *tr.To)
	}
	return b, true
}

func appendMutateRequest(b []byte, m *hbasepb.MutateRequest) ([]byte, bool) {
	if m.Region == nil || m.Mutation == nil || m.Condition != nil || !plain(m) {
		return b, false
	}
	ok := true
	if m.Region != nil {
		b, ok = appendSub(b, 1, m.Region, appendRegionSpecifier)
	}
	if ok && m.Mutation != nil {
		b, ok = appendSub(b, 2, m.Mutation, appendMutation)
	}
	if ok && m.NonceGroup != nil {
		b = appendUint(b, 4, *m.NonceGroup)
	}
	return b, ok
}

func appendMutation(b []byte, m *hbasepb.MutationProto) ([]byte, bool) {
	if len(m.ColumnValue) > 0 || len(m.Attribute) > 0 || m.TimeRange != nil || !plain(m) {
		return b, false
	}
	if m.Row != nil {
		b = appendBytesField(b, 1, m.Row)
	}
	if m.MutateType != nil {
		b = appendUint(b, 2, uint64(int64(*m.MutateType)))
	}
	if m.Timestamp != nil {
		b = appendUint(b, 4, *m.Timestamp)
	}
	if m.Durability != nil {
		b = appendUint(b, 6, uint64(int64(*m.Durability)))
	}
	if m.AssociatedCellCount != nil {
		b = appendUint(b, 8, uint64(int64(*m.AssociatedCellCount)))
	}
	if m.Nonce != nil {
		b = appendUint(b, 9, *m.Nonce)
	}
	return b, true
}
