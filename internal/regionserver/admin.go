package regionserver

import (
	"context"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
)

// adminService is the subset of HBase's AdminService that Admin calls on a
// region server: region info, online regions, flush and compact.
type adminService struct{ rs *RegionServer }

func (a adminService) Serve(ctx context.Context, c *hbaserpc.Call) (hbaserpc.Response, error) {
	rs := a.rs
	parse := func(m proto.Message) error {
		if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(c.Param, m); err != nil {
			return hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "malformed %s request: %v", c.Method, err)
		}
		return nil
	}
	switch c.Method {
	case "GetServerInfo":
		return hbaserpc.Response{Msg: &hbasepb.GetServerInfoResponse{ServerInfo: &hbasepb.ServerInfo{
			ServerName: hbaseconv.ServerNameToPB(rs.Info())}}}, nil
	case "GetOnlineRegion":
		out := &hbasepb.GetOnlineRegionResponse{}
		for _, h := range rs.regions.all() {
			out.RegionInfo = append(out.RegionInfo, hbaseconv.RegionInfoToPB(h.rec))
		}
		return hbaserpc.Response{Msg: out}, nil
	case "GetRegionInfo":
		req := &hbasepb.GetRegionInfoRequest{}
		if err := parse(req); err != nil {
			return hbaserpc.Response{}, err
		}
		h, err := rs.hostedBySpec(req.GetRegion())
		if err != nil {
			return hbaserpc.Response{}, err
		}
		out := &hbasepb.GetRegionInfoResponse{RegionInfo: hbaseconv.RegionInfoToPB(h.rec),
			Splittable: proto.Bool(true), Mergeable: proto.Bool(true)}
		if req.GetCompactionState() {
			out.CompactionState = rs.compactor.state(h).Enum()
		}
		return hbaserpc.Response{Msg: out}, nil
	case "FlushRegion":
		req := &hbasepb.FlushRegionRequest{}
		if err := parse(req); err != nil {
			return hbaserpc.Response{}, err
		}
		h, err := rs.hostedBySpec(req.GetRegion())
		if err != nil {
			return hbaserpc.Response{}, err
		}
		if err := h.r.Flush(ctx); err != nil {
			return hbaserpc.Response{}, hbaserpc.Errorf(hbaserpc.IOException, false, "flush: %v", err)
		}
		return hbaserpc.Response{Msg: &hbasepb.FlushRegionResponse{LastFlushTime: proto.Uint64(uint64(time.Now().UnixMilli())),
			Flushed: proto.Bool(true)}}, nil
	case "CompactRegion":
		req := &hbasepb.CompactRegionRequest{}
		if err := parse(req); err != nil {
			return hbaserpc.Response{}, err
		}
		h, err := rs.hostedBySpec(req.GetRegion())
		if err != nil {
			return hbaserpc.Response{}, err
		}
		if rs.space != nil {
			if err := rs.space.checkCompaction(h.rec.Table); err != nil {
				return hbaserpc.Response{}, err
			}
		}
		// Queued, as HBase does: GetRegionInfo's compaction_state says
		// when it is done. A request for one family compacts the region's
		// whole range, which its families share.
		rs.compactor.request(h, req.GetMajor())
		rs.gcPass.stop(h)
		return hbaserpc.Response{Msg: &hbasepb.CompactRegionResponse{}}, nil
	case "GetSpaceQuotaSnapshots":
		if rs.space == nil {
			return hbaserpc.Response{Msg: &hbasepb.GetSpaceQuotaSnapshotsResponse{}}, nil
		}
		out, err := rs.space.snapshotsResponse()
		return hbaserpc.Response{Msg: out}, err
	}
	return hbaserpc.Response{}, hbaserpc.Errorf(hbaserpc.UnsupportedOperation, true, "AdminService.%s is not supported by Weir", c.Method)
}

func (rs *RegionServer) hostedBySpec(spec *hbasepb.RegionSpecifier) (*hosted, error) {
	name, encoded, err := hbaseconv.RegionNameFromSpecifier(spec)
	if err != nil {
		return nil, hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "%v", err)
	}
	h, err := rs.regions.lookup(name, encoded)
	if err != nil {
		return nil, hbaserpc.Errorf(hbaserpc.NotServingRegion, false, "%v", err)
	}
	return h, nil
}
