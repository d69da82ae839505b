package clientsvc

import (
	"context"
	"log/slog"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/region"
)

// defaultMaxResultSize is HBase's hbase.client.scanner.max.result.size,
// used when the client sends none.
const defaultMaxResultSize = 2 << 20

// scan serves HBase's scanner protocol: a request with a region and a Scan
// opens a scanner (and may return its first rows); later requests name the
// scanner id with the call sequence number; close_scanner ends it. A
// scanner that reaches the end of its region is closed here and reported
// with more_results_in_region=false, so the client moves to the next
// region.
func (s *Service) scan(ctx context.Context, c *hbaserpc.Call, req *hbasepb.ScanRequest) (hbaserpc.Response, error) {
	var sc *openScanner
	if req.ScannerId == nil {
		if req.Scan == nil || req.Region == nil {
			return hbaserpc.Response{}, badRequest("scan request has neither a scanner id nor a region and scan")
		}
		r, err := s.lookup(req.GetRegion())
		if err != nil {
			return hbaserpc.Response{}, err
		}
		scan, opts, err := hbaseconv.ScanFromPB(req.GetScan())
		if err != nil {
			return hbaserpc.Response{}, err
		}
		if req.LimitOfRows != nil && req.GetLimitOfRows() > 0 {
			scan.Limit = int(req.GetLimitOfRows())
		}
		rsc, err := r.NewScanner(scan)
		if err != nil {
			return hbaserpc.Response{}, err
		}
		maxBytes := opts.MaxResultSize
		if maxBytes <= 0 {
			maxBytes = defaultMaxResultSize
		}
		name, _, _ := hbaseconv.RegionNameFromSpecifier(req.GetRegion())
		sc = s.scanners.add(r, name, rsc, scan, maxBytes)
	} else {
		id := req.GetScannerId()
		sc = s.scanners.get(id)
		if sc == nil {
			if req.GetCloseScanner() {
				// Closing a scanner that ended (or expired) is not an error.
				return hbaserpc.Response{Msg: &hbasepb.ScanResponse{ScannerId: proto.Uint64(id), MoreResults: proto.Bool(false)}}, nil
			}
			return hbaserpc.Response{}, hbaserpc.Errorf(hbaserpc.UnknownScanner, true,
				"unknown scanner %d: it expired after %v idle, or its region moved", id, s.scanners.lease)
		}
	}
	sc.lastUsed.Store(time.Now().UnixNano())
	if req.GetCloseScanner() {
		s.scanners.remove(sc.id)
		return hbaserpc.Response{Msg: &hbasepb.ScanResponse{ScannerId: proto.Uint64(sc.id), MoreResults: proto.Bool(false)}}, nil
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.closed {
		return hbaserpc.Response{}, hbaserpc.Errorf(hbaserpc.UnknownScanner, true, "scanner %d is closed", sc.id)
	}
	if req.ScannerId != nil && req.NextCallSeq != nil {
		if req.GetNextCallSeq() != sc.nextSeq {
			return hbaserpc.Response{}, hbaserpc.Errorf(hbaserpc.OutOfOrderScannerNext, true,
				"expected next call sequence %d, got %d for scanner %d", sc.nextSeq, req.GetNextCallSeq(), sc.id)
		}
	}
	out := &hbasepb.ScanResponse{ScannerId: proto.Uint64(sc.id), Ttl: proto.Uint32(uint32(s.scanners.lease / time.Millisecond))}
	if req.GetRenew() {
		out.MoreResults = proto.Bool(true)
		out.MoreResultsInRegion = proto.Bool(true)
		return hbaserpc.Response{Msg: out}, nil
	}
	rows := int(req.GetNumberOfRows())
	// With a codec the rows go out as the cellblock the region encodes
	// them into (kv, pooled); without one, as Results in the message.
	var batch region.ScanBatch
	var kv *scanBuf
	more := true
	if rows > 0 || req.ScannerId != nil {
		if rows <= 0 {
			rows = 1
		}
		if sc.scan.Limit > 0 {
			rows = min(rows, max(sc.scan.Limit-sc.rows, 0))
		}
		if c.CellBlocks {
			kv = getScanBuf()
		}
		if rows > 0 {
			var err error
			if kv != nil {
				more, err = sc.sc.NextKV(ctx, rows, sc.maxBytes, &kv.b)
			} else {
				more, err = sc.sc.NextBatch(ctx, rows, sc.maxBytes, &batch)
			}
			if err != nil {
				kv.Release()
				s.scanners.endLocked(sc)
				return hbaserpc.Response{}, err
			}
		}
		if kv != nil {
			// The cells go out as one cellblock, as the region encoded them.
			out.CellsPerResult = kv.b.CellsPerResult
			out.PartialFlagPerResult = kv.b.Partial
		} else {
			for _, res := range batch.Results() {
				out.Results = append(out.Results, hbaseconv.ResultToPB(res, true))
			}
			out.PartialFlagPerResult = batch.Partial
		}
		for _, partial := range out.PartialFlagPerResult {
			if !partial {
				sc.rows++
			}
		}
		// The open call does not count: the client's first next carries
		// sequence 0.
		if req.ScannerId != nil {
			sc.nextSeq++
		}
	}
	nResults := len(out.PartialFlagPerResult)
	if s.log.Enabled(ctx, slog.LevelDebug) {
		s.log.Debug("clientsvc: scan", "request", req.String(), "results", nResults, "more", more)
	}
	limitReached := sc.scan.Limit > 0 && sc.rows >= sc.scan.Limit
	// A filter that is done ends the whole scan only when this response is
	// empty; otherwise the client goes on to the next region with a fresh
	// filter, as HBase does (so a PageFilter pages per region).
	// A filter found done right after a full response ends the scan
	// with this response, as HBase's empty answer to the next call would.
	filterDone := sc.scan.Filter != nil && (sc.sc.FilterEnded() || sc.scan.Filter.FilterAllRemaining() && nResults == 0)
	out.MoreResultsInRegion = proto.Bool(more && !limitReached)
	out.MoreResults = proto.Bool(!limitReached && !filterDone)
	if !more || limitReached {
		s.scanners.endLocked(sc)
	}
	if kv == nil {
		return hbaserpc.Response{Msg: out}, nil
	}
	return hbaserpc.Response{Msg: out, CellBlock: kv.b.Block, Release: kv}, nil
}
