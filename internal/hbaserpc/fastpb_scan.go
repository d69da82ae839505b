package hbaserpc

import (
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
)

// fastScanScalars holds the scalars a decoded ScanResponse's optional
// fields point to, in one allocation.
type fastScanScalars struct {
	scannerID, mvcc                      uint64
	ttl                                  uint32
	more, stale, moreInRegion, heartbeat bool
}

// decodeScanResponseFast decodes a ScanResponse as a client gets one with
// its rows in the cellblock (cells_per_result and the scanner's state) by
// hand: the protobuf runtime's reflection was about 7% of a scanning
// client's CPU. Anything else (inline results, scan metrics, a cursor,
// unknown fields, a repeated singular field) is left to the runtime:
// false, with resp untouched; so is a resp that is not empty (the
// runtime merges into it). Its repeated fields may be empty slices with
// room, which the values are appended to, as the runtime would: a
// caller decoding many responses so reuses their arrays.
// FuzzDecodeScanResponseFast holds it to the runtime's result.
func decodeScanResponseFast(b []byte, resp proto.Message) bool {
	sr, ok := resp.(*hbasepb.ScanResponse)
	if !ok || !emptyScanResponse(sr) {
		return false
	}
	s := new(fastScanScalars) // one allocation for every optional scalar
	var (
		scannerID, mvcc                      *uint64
		ttl                                  *uint32
		more, stale, moreInRegion, heartbeat *bool
		cpr                                  = sr.CellsPerResult
		partial                              = sr.PartialFlagPerResult
	)
	d := pbDecoder{b: b, repeated: 1<<1 | 1<<7}
	for d.next() {
		switch d.num {
		case 1:
			var run varintRun
			if run, ok = d.varints(); ok {
				cpr = run.appendUint32s(cpr)
			}
		case 7:
			var run varintRun
			if run, ok = d.varints(); ok {
				partial = run.appendBools(partial)
			}
		case 2:
			scannerID = d.uint64To(&s.scannerID)
		case 3:
			more = d.boolTo(&s.more)
		case 4:
			ttl = d.uint32To(&s.ttl)
		case 6:
			stale = d.boolTo(&s.stale)
		case 8:
			moreInRegion = d.boolTo(&s.moreInRegion)
		case 9:
			heartbeat = d.boolTo(&s.heartbeat)
		case 11:
			mvcc = d.uint64To(&s.mvcc)
		default:
			return false
		}
		if !ok {
			return false
		}
	}
	if d.bad {
		return false
	}
	sr.CellsPerResult, sr.PartialFlagPerResult = cpr, partial
	sr.ScannerId, sr.MoreResults, sr.Ttl, sr.Stale = scannerID, more, ttl, stale
	sr.MoreResultsInRegion, sr.HeartbeatMessage, sr.MvccReadPoint = moreInRegion, heartbeat, mvcc
	return true
}

// varintRun is a checked run of n varints, each but the last followed by
// a one-byte tag when the run is unpacked (step 1).
type varintRun struct {
	b    []byte
	n    int
	step int // bytes between values: 1 unpacked (the tag), 0 packed
}

// appendUint32s appends the run's values (truncated to 32 bits, as the
// runtime does) to dst; the run was checked, so it cannot fail.
func (r varintRun) appendUint32s(dst []uint32) []uint32 {
	dst = slices.Grow(dst, r.n)
	for off := 0; off < len(r.b); off += r.step {
		v := uint64(r.b[off])
		if v < 0x80 { // a row's cell count
			off++
		} else {
			var k int
			v, k = protowire.ConsumeVarint(r.b[off:])
			off += k
		}
		dst = append(dst, uint32(v))
	}
	return dst
}

// appendBools is appendUint32s for bools (any non-zero value is true).
func (r varintRun) appendBools(dst []bool) []bool {
	dst = slices.Grow(dst, r.n)
	for off := 0; off < len(r.b); off += r.step {
		v := uint64(r.b[off])
		if v < 0x80 {
			off++
		} else {
			var k int
			v, k = protowire.ConsumeVarint(r.b[off:])
			off += k
		}
		dst = append(dst, v != 0)
	}
	return dst
}

// skipVarint returns the length of the varint at b's start, or -1 if it
// is malformed.
func skipVarint(b []byte) int {
	if len(b) > 0 && b[0] < 0x80 {
		return 1
	}
	_, n := protowire.ConsumeVarint(b)
	return n
}

// varints reads the current field, of a repeated varint type: a packed
// run (one length-delimited field), or this occurrence and the ones of
// the same field right after it. Unpacked is how proto2 encodes a
// ScanResponse's cells_per_result and partial_flag_per_result, one tag
// per row, and how HBase's and Weir's servers send them; reading them as
// one run sizes the slice once and skips the field loop's dispatch. The
// run is checked before it is returned (false if it is malformed).
func (d *pbDecoder) varints() (varintRun, bool) {
	switch d.typ {
	case protowire.BytesType:
		b := d.bytes()
		n := 0
		for off := 0; off < len(b); n++ {
			k := skipVarint(b[off:])
			if k < 0 {
				return varintRun{}, false
			}
			off += k
		}
		return varintRun{b: b, n: n}, !d.bad
	case protowire.VarintType:
		tag := byte(protowire.EncodeTag(d.num, protowire.VarintType))
		start, off, n := d.b, 0, 0
		for {
			k := skipVarint(start[off:])
			if k < 0 {
				d.bad = true
				return varintRun{}, false
			}
			off += k
			n++
			if off+1 >= len(start) || start[off] != tag || tag >= 0x80 {
				break
			}
			off++ // the next occurrence's tag
		}
		d.b = start[off:]
		return varintRun{b: start[:off], n: n, step: 1}, true
	default:
		d.bad = true
		return varintRun{}, false
	}
}

func emptyScanResponse(sr *hbasepb.ScanResponse) bool {
	return len(sr.CellsPerResult) == 0 && sr.ScannerId == nil && sr.MoreResults == nil && sr.Ttl == nil &&
		sr.Results == nil && sr.Stale == nil && len(sr.PartialFlagPerResult) == 0 && sr.MoreResultsInRegion == nil &&
		sr.HeartbeatMessage == nil && sr.ScanMetrics == nil && sr.MvccReadPoint == nil && sr.Cursor == nil &&
		sr.QueryMetrics == nil && len(sr.ProtoReflect().GetUnknown()) == 0
}
