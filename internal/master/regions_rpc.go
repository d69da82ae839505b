package master

import (
	"context"
	"errors"
	"net"
	"strconv"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/meta"
)

// Java exception classes of the region lifecycle calls.
const (
	unknownRegionException = "org.apache.hadoop.hbase.UnknownRegionException"
	mergeRegionException   = "org.apache.hadoop.hbase.exceptions.MergeRegionException"
)

func init() {
	masterMethods["MoveRegion"] = moveRegionRPC
	masterMethods["SplitRegion"] = splitRegionRPC
	masterMethods["MergeTableRegions"] = mergeRegionsRPC
	masterMethods["AssignRegion"] = assignRegionRPC
	masterMethods["UnassignRegion"] = unassignRegionRPC
}

// lifecycleError maps the region lifecycle's errors onto the exceptions
// HBase's Admin throws; anything else goes through masterError.
func lifecycleError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, meta.ErrUnknownRegion):
		return hbaserpc.Errorf(unknownRegionException, true, "%v", err)
	case errors.Is(err, ErrNotMergeable):
		return hbaserpc.Errorf(mergeRegionException, true, "%v", err)
	case errors.Is(err, ErrUnknownServer), errors.Is(err, ErrBadSplitRow), errors.Is(err, ErrRegionNotReady):
		return hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "%v", err)
	}
	return err
}

func regionSpec(spec *hbasepb.RegionSpecifier) ([]byte, error) {
	name, _, err := hbaseconv.RegionNameFromSpecifier(spec)
	if err != nil {
		return nil, hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "%v", err)
	}
	return name, nil
}

func moveRegionRPC(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.MoveRegionRequest{})
	if err != nil {
		return nil, err
	}
	name, err := regionSpec(req.GetRegion())
	if err != nil {
		return nil, err
	}
	var store string
	if dest := req.GetDestServerName(); dest != nil {
		addr := net.JoinHostPort(dest.GetHostName(), strconv.Itoa(int(dest.GetPort())))
		if dest.GetStartCode() != 0 {
			addr = dest.GetHostName() + "," + strconv.Itoa(int(dest.GetPort())) + "," + strconv.FormatUint(dest.GetStartCode(), 10)
		}
		if store, err = m.StoreOf(ctx, addr); err != nil {
			return nil, lifecycleError(err)
		}
	}
	if err := m.MoveRegion(ctx, name, store); err != nil {
		return nil, lifecycleError(err)
	}
	return &hbasepb.MoveRegionResponse{}, nil
}

func splitRegionRPC(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.SplitTableRegionRequest{})
	if err != nil {
		return nil, err
	}
	ri, err := hbaseconv.RegionInfoFromPB(req.GetRegionInfo())
	if err != nil {
		return nil, hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "%v", err)
	}
	name, _ := ri.Name()
	if err := m.SplitRegion(ctx, name, req.GetSplitRow()); err != nil {
		return nil, lifecycleError(err)
	}
	return &hbasepb.SplitTableRegionResponse{ProcId: proto.Uint64(m.procs.finish(nil))}, nil
}

func mergeRegionsRPC(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.MergeTableRegionsRequest{})
	if err != nil {
		return nil, err
	}
	var names [][]byte
	for _, spec := range req.GetRegion() {
		name, err := regionSpec(spec)
		if err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	if err := m.MergeRegions(ctx, names...); err != nil {
		return nil, lifecycleError(err)
	}
	return &hbasepb.MergeTableRegionsResponse{ProcId: proto.Uint64(m.procs.finish(nil))}, nil
}

func assignRegionRPC(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.AssignRegionRequest{})
	if err != nil {
		return nil, err
	}
	name, err := regionSpec(req.GetRegion())
	if err != nil {
		return nil, err
	}
	if err := m.SetRegionOnline(ctx, name, true); err != nil {
		return nil, lifecycleError(err)
	}
	return &hbasepb.AssignRegionResponse{}, nil
}

func unassignRegionRPC(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.UnassignRegionRequest{})
	if err != nil {
		return nil, err
	}
	name, err := regionSpec(req.GetRegion())
	if err != nil {
		return nil, err
	}
	if err := m.SetRegionOnline(ctx, name, false); err != nil {
		return nil, lifecycleError(err)
	}
	return &hbasepb.UnassignRegionResponse{}, nil
}
