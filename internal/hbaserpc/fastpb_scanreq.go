package hbaserpc

import "github.com/weirdb/weir/internal/hbasepb"

// fastScanRequest holds a decoded ScanRequest and its parts in one
// allocation: a scanner's open (region and Scan), next or close.
type fastScanRequest struct {
	req  hbasepb.ScanRequest
	spec fastRegionSpecifier
	scan hbasepb.Scan
	tr   fastTimeRange
	flt  hbasepb.Filter
	col  hbasepb.Column // the first column
	cols [1]*hbasepb.Column

	scannerID, nextCallSeq, maxResultSize, mvccReadPoint   uint64
	numberOfRows, limitOfRows, maxVersions, batchSize      uint32
	storeLimit, storeOffset, caching                       uint32
	closeScanner, partials, heartbeats, metrics, renew     bool
	cacheBlocks, cfOnDemand, small, reversed, allowPartial bool
	includeStart, includeStop, needCursor, queryMetrics    bool
	consistency                                            hbasepb.Consistency
	readType                                               hbasepb.Scan_ReadType
}

// DecodeScanRequest decodes a ScanRequest by hand; ok is false when the
// protobuf runtime must do it (a scan with attributes or per-family time
// ranges, or see the file comment of fastpb.go). The message's byte fields
// alias b.
func DecodeScanRequest(b []byte) (req *hbasepb.ScanRequest, ok bool) {
	f := &fastScanRequest{}
	r := &f.req
	d := pbDecoder{b: b}
	for d.next() {
		switch d.num {
		case 1:
			if r.Region = f.spec.decode(d.bytes()); r.Region == nil {
				return nil, false
			}
		case 2:
			if !f.decodeScan(d.bytes()) {
				return nil, false
			}
			r.Scan = &f.scan
		case 3:
			f.scannerID = d.varint()
			r.ScannerId = &f.scannerID
		case 4:
			f.numberOfRows = uint32(d.varint())
			r.NumberOfRows = &f.numberOfRows
		case 5:
			f.closeScanner = d.varint() != 0
			r.CloseScanner = &f.closeScanner
		case 6:
			f.nextCallSeq = d.varint()
			r.NextCallSeq = &f.nextCallSeq
		case 7:
			f.partials = d.varint() != 0
			r.ClientHandlesPartials = &f.partials
		case 8:
			f.heartbeats = d.varint() != 0
			r.ClientHandlesHeartbeats = &f.heartbeats
		case 9:
			f.metrics = d.varint() != 0
			r.TrackScanMetrics = &f.metrics
		case 10:
			f.renew = d.varint() != 0
			r.Renew = &f.renew
		case 11:
			f.limitOfRows = uint32(d.varint())
			r.LimitOfRows = &f.limitOfRows
		default:
			return nil, false
		}
	}
	if d.bad {
		return nil, false
	}
	return r, true
}

func (f *fastScanRequest) decodeScan(b []byte) bool {
	s := &f.scan
	d := pbDecoder{b: b, repeated: 1 << 1}
	for d.next() {
		switch d.num {
		case 1:
			c := &f.col
			if s.Column == nil {
				s.Column = f.cols[:1:1]
				s.Column[0] = c
			} else {
				c = &hbasepb.Column{}
				s.Column = append(s.Column, c)
			}
			if !decodeColumn(d.bytes(), c) {
				return false
			}
		case 3:
			s.StartRow = d.bytes()
		case 4:
			s.StopRow = d.bytes()
		case 5:
			if !decodeFilter(d.bytes(), &f.flt) {
				return false
			}
			s.Filter = &f.flt
		case 6:
			if s.TimeRange = f.tr.decode(d.bytes()); s.TimeRange == nil {
				return false
			}
		case 7:
			f.maxVersions = uint32(d.varint())
			s.MaxVersions = &f.maxVersions
		case 8:
			f.cacheBlocks = d.varint() != 0
			s.CacheBlocks = &f.cacheBlocks
		case 9:
			f.batchSize = uint32(d.varint())
			s.BatchSize = &f.batchSize
		case 10:
			f.maxResultSize = d.varint()
			s.MaxResultSize = &f.maxResultSize
		case 11:
			f.storeLimit = uint32(d.varint())
			s.StoreLimit = &f.storeLimit
		case 12:
			f.storeOffset = uint32(d.varint())
			s.StoreOffset = &f.storeOffset
		case 13:
			f.cfOnDemand = d.varint() != 0
			s.LoadColumnFamiliesOnDemand = &f.cfOnDemand
		case 14:
			f.small = d.varint() != 0
			s.Small = &f.small
		case 15:
			f.reversed = d.varint() != 0
			s.Reversed = &f.reversed
		case 16:
			v, named := d.enum(hbasepb.Consistency_name)
			if !named {
				return false
			}
			f.consistency = hbasepb.Consistency(v)
			s.Consistency = &f.consistency
		case 17:
			f.caching = uint32(d.varint())
			s.Caching = &f.caching
		case 18:
			f.allowPartial = d.varint() != 0
			s.AllowPartialResults = &f.allowPartial
		case 20:
			f.mvccReadPoint = d.varint()
			s.MvccReadPoint = &f.mvccReadPoint
		case 21:
			f.includeStart = d.varint() != 0
			s.IncludeStartRow = &f.includeStart
		case 22:
			f.includeStop = d.varint() != 0
			s.IncludeStopRow = &f.includeStop
		case 23:
			v, named := d.enum(hbasepb.Scan_ReadType_name)
			if !named {
				return false
			}
			f.readType = hbasepb.Scan_ReadType(v)
			s.ReadType = &f.readType
		case 24:
			f.needCursor = d.varint() != 0
			s.NeedCursorResult = &f.needCursor
		case 25:
			f.queryMetrics = d.varint() != 0
			s.QueryMetricsEnabled = &f.queryMetrics
		default:
			return false // attributes, per-family time ranges, unknown
		}
	}
	return !d.bad
}

// decodeFilter decodes a filter's name and serialized message.
func decodeFilter(b []byte, f *hbasepb.Filter) bool {
	d := pbDecoder{b: b}
	for d.next() {
		switch d.num {
		case 1:
			name := string(d.bytes())
			f.Name = &name
		case 2:
			f.SerializedFilter = d.bytes()
		default:
			return false
		}
	}
	return !d.bad && f.Name != nil // name is required
}
