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
	s := new(fastScanScalars) // one allocation for every optional scalar
	var (
		scannerID, mvcc                      *uint64
		ttl                                  *uint32
		more, stale, moreInRegion, heartbeat *bool
		cpr                                  []uint32
		partial                              []bool
	)
	d := pbDecoder{b: b, repeated: 1<<1 | 1<<7}
	for d.next() {
		switch d.num {
		case 1:
			ok = eachVarint(&d, func(v uint64) { cpr = append(cpr, uint32(v)) })
		case 7:
			ok = eachVarint(&d, func(v uint64) { partial = append(partial, v != 0) })
		case 2:
			s.scannerID, scannerID = d.varint(), &s.scannerID
		case 3:
			s.more, more = d.varint() != 0, &s.more
		case 4:
			s.ttl, ttl = uint32(d.varint()), &s.ttl
		case 6:
			s.stale, stale = d.varint() != 0, &s.stale
		case 8:
			s.moreInRegion, moreInRegion = d.varint() != 0, &s.moreInRegion
		case 9:
			s.heartbeat, heartbeat = d.varint() != 0, &s.heartbeat
		case 11:
			s.mvcc, mvcc = d.varint(), &s.mvcc
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
