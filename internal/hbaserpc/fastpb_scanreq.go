package hbaserpc

import "github.com/weirdb/weir/internal/hbasepb"

// fastScanRequest holds a decoded ScanRequest and its parts in one
// allocation: a scanner's open (region and Scan), next or close.
type fastScanRequest struct {
	req     hbasepb.ScanRequest
	spec    fastRegionSpecifier
	scan    hbasepb.Scan
	tr      fastTimeRange
	flt     hbasepb.Filter
	columns firstColumn

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
			r.ScannerId = d.uint64To(&f.scannerID)
		case 4:
			r.NumberOfRows = d.uint32To(&f.numberOfRows)
		case 5:
			r.CloseScanner = d.boolTo(&f.closeScanner)
		case 6:
			r.NextCallSeq = d.uint64To(&f.nextCallSeq)
		case 7:
			r.ClientHandlesPartials = d.boolTo(&f.partials)
		case 8:
			r.ClientHandlesHeartbeats = d.boolTo(&f.heartbeats)
		case 9:
			r.TrackScanMetrics = d.boolTo(&f.metrics)
		case 10:
			r.Renew = d.boolTo(&f.renew)
		case 11:
			r.LimitOfRows = d.uint32To(&f.limitOfRows)
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
			var ok bool
			if s.Column, ok = f.columns.add(s.Column, d.bytes()); !ok {
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
			s.MaxVersions = d.uint32To(&f.maxVersions)
		case 8:
			s.CacheBlocks = d.boolTo(&f.cacheBlocks)
		case 9:
			s.BatchSize = d.uint32To(&f.batchSize)
		case 10:
			s.MaxResultSize = d.uint64To(&f.maxResultSize)
		case 11:
			s.StoreLimit = d.uint32To(&f.storeLimit)
		case 12:
			s.StoreOffset = d.uint32To(&f.storeOffset)
		case 13:
			s.LoadColumnFamiliesOnDemand = d.boolTo(&f.cfOnDemand)
		case 14:
			s.Small = d.boolTo(&f.small)
		case 15:
			s.Reversed = d.boolTo(&f.reversed)
		case 16:
			if s.Consistency = enumTo(&d, hbasepb.Consistency_name, &f.consistency); s.Consistency == nil {
				return false
			}
		case 17:
			s.Caching = d.uint32To(&f.caching)
		case 18:
			s.AllowPartialResults = d.boolTo(&f.allowPartial)
		case 20:
			s.MvccReadPoint = d.uint64To(&f.mvccReadPoint)
		case 21:
			s.IncludeStartRow = d.boolTo(&f.includeStart)
		case 22:
			s.IncludeStopRow = d.boolTo(&f.includeStop)
		case 23:
			if s.ReadType = enumTo(&d, hbasepb.Scan_ReadType_name, &f.readType); s.ReadType == nil {
				return false
			}
		case 24:
			s.NeedCursorResult = d.boolTo(&f.needCursor)
		case 25:
			s.QueryMetricsEnabled = d.boolTo(&f.queryMetrics)
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
