package hbaserpc

import (
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
// runtime merges into it). FuzzDecodeScanResponseFast holds it to the
// runtime's result.
func decodeScanResponseFast(b []byte, resp proto.Message) bool {
	sr, ok := resp.(*hbasepb.ScanResponse)
	if !ok || !emptyScanResponse(sr) {
		return false
	}
	var s fastScanScalars
	var has [12]bool // by field number
	var cpr []uint32
	var partial []bool
	d := pbDecoder{b: b, repeated: 1<<1 | 1<<7}
	for d.next() {
		switch n := d.num; n {
		case 1:
			ok = eachVarint(&d, func(v uint64) { cpr = append(cpr, uint32(v)) })
		case 7:
			ok = eachVarint(&d, func(v uint64) { partial = append(partial, v != 0) })
		case 2, 3, 4, 6, 8, 9, 11:
			v := d.varint()
			has[n] = true
			switch n {
			case 2:
				s.scannerID = v
			case 3:
				s.more = v != 0
			case 4:
				s.ttl = uint32(v)
			case 6:
				s.stale = v != 0
			case 8:
				s.moreInRegion = v != 0
			case 9:
				s.heartbeat = v != 0
			case 11:
				s.mvcc = v
			}
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
	p := &s
	sr.CellsPerResult, sr.PartialFlagPerResult = cpr, partial
	if has[2] {
		sr.ScannerId = &p.scannerID
	}
	if has[3] {
		sr.MoreResults = &p.more
	}
	if has[4] {
		sr.Ttl = &p.ttl
	}
	if has[6] {
		sr.Stale = &p.stale
	}
	if has[8] {
		sr.MoreResultsInRegion = &p.moreInRegion
	}
	if has[9] {
		sr.HeartbeatMessage = &p.heartbeat
	}
	if has[11] {
		sr.MvccReadPoint = &p.mvcc
	}
	return true
}

// eachVarint reads the current field of a repeated varint type, packed
// (one length-delimited run) or not, calling add with each value; false
// if it is malformed.
func eachVarint(d *pbDecoder, add func(uint64)) bool {
	if d.typ != protowire.BytesType {
		v := d.varint()
		if d.bad {
			return false
		}
		add(v)
		return true
	}
	run := d.bytes()
	for len(run) > 0 {
		v, n := protowire.ConsumeVarint(run)
		if n < 0 {
			return false
		}
		add(v)
		run = run[n:]
	}
	return !d.bad
}

func emptyScanResponse(sr *hbasepb.ScanResponse) bool {
	return sr.CellsPerResult == nil && sr.ScannerId == nil && sr.MoreResults == nil && sr.Ttl == nil &&
		sr.Results == nil && sr.Stale == nil && sr.PartialFlagPerResult == nil && sr.MoreResultsInRegion == nil &&
		sr.HeartbeatMessage == nil && sr.ScanMetrics == nil && sr.MvccReadPoint == nil && sr.Cursor == nil &&
		sr.QueryMetrics == nil && len(sr.ProtoReflect().GetUnknown()) == 0
}
