package hbaserpc

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// The request and response headers of ordinary calls are encoded and
// decoded here by hand, field by field, instead of through the protobuf
// runtime: every call has one of each, and the generic path cost several
// allocations (proto2 optional fields are pointers) and a reflective walk
// per header, on both sides of every call. Anything beyond the fields an
// ordinary call uses (trace info, attributes, an exception, unknown fields)
// takes the generic path, so what is accepted is exactly what
// proto.Unmarshal accepts.

// Field numbers (weir/hbasepb/rpc.proto).
const (
	reqCallID        protowire.Number = 1
	reqTraceInfo     protowire.Number = 2
	reqMethodName    protowire.Number = 3
	reqRequestParam  protowire.Number = 4
	reqCellBlockMeta protowire.Number = 5
	reqPriority      protowire.Number = 6
	reqTimeout       protowire.Number = 7

	respCallID        protowire.Number = 1
	respException     protowire.Number = 2
	respCellBlockMeta protowire.Number = 3

	cellBlockMetaLength protowire.Number = 1
)

// requestHeader is a parsed RequestHeader together with the Call it
// becomes, in one allocation: Header's pointer fields point into it.
type parsedRequest struct {
	call    Call
	hdr     hbasepb.RequestHeader
	callID  uint32
	method  string
	param   bool
	prio    uint32
	timeout uint32
	meta    hbasepb.CellBlockMeta
	cbLen   uint32
	// cells is the array the call's cellblock is decoded into, kept when
	// the rest is recycled.
	cells []cell.Cell
}

// parseRequest parses the RequestHeader at the front of a request frame
// into a new Call (Header and ID set) and returns what follows it. It
// fails only when no call id can be known. names interns method names
// (nil: none).
func parseRequest(frame []byte, names *methodNames) (*Call, []byte, error) {
	hb, rest, err := consumeDelimited(frame)
	if err != nil {
		return nil, nil, fmt.Errorf("request header: %w", err)
	}
	p := newParsedRequest()
	if !p.parseFast(hb, names) {
		p.hdr = hbasepb.RequestHeader{}
		if err := unmarshalPartial.Unmarshal(hb, &p.hdr); err != nil {
			return nil, nil, fmt.Errorf("%w: request header: %v", errMalformed, err)
		}
	}
	if p.hdr.CallId == nil {
		return nil, nil, fmt.Errorf("%w: request header without call_id", errMalformed)
	}
	p.call.Header = &p.hdr
	p.call.ID = p.hdr.GetCallId()
	p.call.Method = p.hdr.GetMethodName()
	return &p.call, rest, nil
}

// parseFast decodes the fields of an ordinary request header into p.hdr.
// It returns false, leaving p.hdr to be discarded, on anything else.
func (p *parsedRequest) parseFast(b []byte, names *methodNames) bool {
	// A header field seen twice is decoded as the runtime does: the last
	// scalar wins and embedded messages merge.
	d := pbDecoder{b: b, repeated: ^uint32(0)}
	for d.next() {
		switch d.num {
		case reqCallID:
			p.hdr.CallId = d.uint32To(&p.callID)
		case reqRequestParam:
			p.hdr.RequestParam = d.boolTo(&p.param)
		case reqPriority:
			p.hdr.Priority = d.uint32To(&p.prio)
		case reqTimeout:
			p.hdr.Timeout = d.uint32To(&p.timeout)
		case reqMethodName:
			p.method = names.intern(d.bytes())
			p.hdr.MethodName = &p.method
		case reqCellBlockMeta:
			l, ok := parseCellBlockMeta(d.bytes())
			if !ok {
				return false
			}
			// A repeated embedded message merges; the last length wins.
			if l != nil {
				p.cbLen = *l
				p.meta.Length = &p.cbLen
			}
			p.hdr.CellBlockMeta = &p.meta
		default:
			return false
		}
	}
	return !d.bad
}

// parseCellBlockMeta decodes a CellBlockMeta holding at most its length.
func parseCellBlockMeta(b []byte) (length *uint32, ok bool) {
	d := pbDecoder{b: b, repeated: ^uint32(0)}
	for d.next() {
		if d.num != cellBlockMetaLength {
			return nil, false
		}
		l := uint32(d.varint())
		length = &l
	}
	return length, !d.bad
}

// methodNames interns method names for one connection's reader, so that
// the names of a connection's calls are allocated once, not per call.
type methodNames struct{ m map[string]string }

// maxInternedNames bounds a connection's interned names (a service has a
// few dozen methods; a peer sending random names gets no more memory).
const maxInternedNames = 128

func (t *methodNames) intern(b []byte) string {
	if t == nil {
		return string(b)
	}
	if s, ok := t.m[string(b)]; ok { // no allocation for the lookup
		return s
	}
	s := string(b)
	if t.m == nil {
		t.m = make(map[string]string)
	}
	if len(t.m) < maxInternedNames {
		t.m[s] = s
	}
	return s
}

// responseHeader is what a client needs of a ResponseHeader.
type responseHeader struct {
	callID    uint32
	cbLen     uint32
	exception *hbasepb.ExceptionResponse // nil for a normal response
}

// parseResponseHeader splits a response frame into its header and the
// rest.
func parseResponseHeader(frame []byte) (responseHeader, []byte, error) {
	hb, rest, err := consumeDelimited(frame)
	if err != nil {
		return responseHeader{}, nil, fmt.Errorf("response header: %w", err)
	}
	if h, ok := parseResponseHeaderFast(hb); ok {
		return h, rest, nil
	}
	var h hbasepb.ResponseHeader
	if err := unmarshalPartial.Unmarshal(hb, &h); err != nil {
		return responseHeader{}, nil, fmt.Errorf("%w: response header: %v", errMalformed, err)
	}
	return responseHeader{callID: h.GetCallId(), cbLen: h.GetCellBlockMeta().GetLength(), exception: h.GetException()}, rest, nil
}

// parseResponseHeaderFast decodes a header with no exception.
func parseResponseHeaderFast(b []byte) (responseHeader, bool) {
	var h responseHeader
	d := pbDecoder{b: b, repeated: ^uint32(0)}
	for d.next() {
		switch d.num {
		case respCallID:
			h.callID = uint32(d.varint())
		case respCellBlockMeta:
			l, ok := parseCellBlockMeta(d.bytes())
			if !ok {
				return h, false
			}
			if l != nil {
				h.cbLen = *l
			}
		default:
			return h, false
		}
	}
	return h, !d.bad
}

// requestHeader is what a client sends in a RequestHeader.
type requestHeader struct {
	callID    uint32
	method    string
	timeoutMs uint32 // 0: none
}

// appendRequestFrame appends a complete request frame: int32 length, the
// delimited header, the delimited msg (nil: an empty one), then cells as a
// cellblock.
func appendRequestFrame(dst []byte, h requestHeader, msg proto.Message, cells []cell.Cell) ([]byte, error) {
	cbLen, err := cellBlockLen(cells)
	if err != nil {
		return dst, err
	}
	hs := protowire.SizeTag(reqCallID) + protowire.SizeVarint(uint64(h.callID)) +
		protowire.SizeTag(reqMethodName) + protowire.SizeBytes(len(h.method)) +
		protowire.SizeTag(reqRequestParam) + 1
	if cbLen > 0 {
		hs += protowire.SizeTag(reqCellBlockMeta) + protowire.SizeBytes(cellBlockMetaSize(cbLen))
	}
	if h.timeoutMs > 0 {
		hs += protowire.SizeTag(reqTimeout) + protowire.SizeVarint(uint64(h.timeoutMs))
	}
	if msg == nil {
		msg = emptyMsg
	}
	return appendFrameWith(dst, hs, func(b []byte) ([]byte, error) {
		b = protowire.AppendTag(b, reqCallID, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(h.callID))
		b = protowire.AppendTag(b, reqMethodName, protowire.BytesType)
		b = protowire.AppendString(b, h.method)
		b = protowire.AppendTag(b, reqRequestParam, protowire.VarintType)
		b = append(b, 1)
		if cbLen > 0 {
			b = appendCellBlockMeta(b, reqCellBlockMeta, cbLen)
		}
		if h.timeoutMs > 0 {
			b = protowire.AppendTag(b, reqTimeout, protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(h.timeoutMs))
		}
		return b, nil
	}, msg, cells, cbLen)
}

// appendResponseFrame appends a complete response frame for a call that
// succeeded: int32 length, the delimited header, the delimited msg (nil:
// an empty one), then cells as a cellblock.
func appendResponseFrame(dst []byte, callID uint32, msg proto.Message, cells []cell.Cell) ([]byte, error) {
	cbLen, err := cellBlockLen(cells)
	if err != nil {
		return dst, err
	}
	hs := protowire.SizeTag(respCallID) + protowire.SizeVarint(uint64(callID))
	if cbLen > 0 {
		hs += protowire.SizeTag(respCellBlockMeta) + protowire.SizeBytes(cellBlockMetaSize(cbLen))
	}
	if msg == nil {
		msg = emptyMsg
	}
	return appendFrameWith(dst, hs, func(b []byte) ([]byte, error) {
		b = protowire.AppendTag(b, respCallID, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(callID))
		if cbLen > 0 {
			b = appendCellBlockMeta(b, respCellBlockMeta, cbLen)
		}
		return b, nil
	}, msg, cells, cbLen)
}

func cellBlockLen(cells []cell.Cell) (int, error) {
	if len(cells) == 0 {
		return 0, nil
	}
	n, err := CellBlockSize(cells)
	if err == nil && n > math.MaxUint32 {
		err = fmt.Errorf("hbaserpc: cellblock of %d bytes too large", n)
	}
	return n, err
}

func cellBlockMetaSize(cbLen int) int {
	return protowire.SizeTag(cellBlockMetaLength) + protowire.SizeVarint(uint64(cbLen))
}

func appendCellBlockMeta(b []byte, field protowire.Number, cbLen int) []byte {
	b = protowire.AppendTag(b, field, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(cellBlockMetaSize(cbLen)))
	b = protowire.AppendTag(b, cellBlockMetaLength, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(cbLen))
}

// appendFrameWith appends a frame whose header (hs bytes) appendHeader
// writes, then msg (none if nil) and a cbLen-byte cellblock of cells.
func appendFrameWith(dst []byte, hs int, appendHeader func([]byte) ([]byte, error), msg proto.Message, cells []cell.Cell, cbLen int) ([]byte, error) {
	if msg != nil {
		if b, ok := appendFrameFast(dst, hs, appendHeader, msg, cells, cbLen); ok {
			return b, nil
		}
	}
	total := int64(protowire.SizeVarint(uint64(hs))+hs) + int64(cbLen)
	ms := 0
	if msg != nil {
		ms = proto.Size(msg)
		total += int64(protowire.SizeVarint(uint64(ms)) + ms)
	}
	if total > math.MaxInt32 {
		return dst, fmt.Errorf("hbaserpc: frame of %d bytes too large", total)
	}
	start := len(dst)
	if cap(dst)-len(dst) < 4+int(total) {
		nb := make([]byte, len(dst), len(dst)+4+int(total))
		copy(nb, dst)
		dst = nb
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(total))
	dst = protowire.AppendVarint(dst, uint64(hs))
	var err error
	if dst, err = appendHeader(dst); err != nil {
		return dst[:start], err
	}
	if msg != nil {
		dst = protowire.AppendVarint(dst, uint64(ms))
		if dst, err = marshalCached.MarshalAppend(dst, msg); err != nil {
			return dst[:start], fmt.Errorf("hbaserpc: marshalling %s: %w", msg.ProtoReflect().Descriptor().FullName(), err)
		}
	}
	if cbLen > 0 {
		dst, _ = AppendCellBlock(dst, cells) // sized above
	}
	if len(dst)-start != 4+int(total) {
		return dst[:start], fmt.Errorf("hbaserpc: frame encoded to %d bytes, expected %d (message changed while encoding?)", len(dst)-start-4, total)
	}
	return dst, nil
}

// appendFrameFast is appendFrameWith for a message with a hand encoder
// (fastpb.go): the message is encoded in place and its length inserted
// after, since its size is not computed in advance. false leaves dst for
// the generic path.
func appendFrameFast(dst []byte, hs int, appendHeader func([]byte) ([]byte, error), msg proto.Message, cells []cell.Cell, cbLen int) ([]byte, bool) {
	start := len(dst)
	dst = slices.Grow(dst, 4+binary.MaxVarintLen32+hs+binary.MaxVarintLen32+fastMessageRoom+cbLen)
	dst = append(dst, 0, 0, 0, 0)
	dst = protowire.AppendVarint(dst, uint64(hs))
	dst, err := appendHeader(dst)
	if err != nil {
		return dst[:start], false
	}
	at := len(dst)
	if at-start-4-protowire.SizeVarint(uint64(hs)) != hs {
		return dst[:start], false // the generic path reports it
	}
	dst, ok := appendMessageFast(dst, msg)
	if !ok {
		return dst[:start], false
	}
	dst = insertLen(dst, at)
	cbStart := len(dst)
	if cbLen > 0 {
		dst, _ = AppendCellBlock(dst, cells) // sized by the caller
	}
	total := len(dst) - start - 4
	if total > math.MaxInt32 || len(dst)-cbStart != cbLen {
		return dst[:start], false
	}
	binary.BigEndian.PutUint32(dst[start:], uint32(total))
	return dst, true
}

// fastMessageRoom is the room reserved for a hand-encoded message: enough
// for the Get and Mutate messages of ordinary calls.
const fastMessageRoom = 256
