package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
)

// regionSpec names a region by its encoded name (32 hex digits) or its
// full name ("<table>,<start>,<id>.<encoded>.").
func regionSpec(name []byte) *hbasepb.RegionSpecifier {
	t := hbasepb.RegionSpecifier_REGION_NAME
	if isEncodedName(name) {
		t = hbasepb.RegionSpecifier_ENCODED_REGION_NAME
	}
	return &hbasepb.RegionSpecifier{Type: t.Enum(), Value: name}
}

func isEncodedName(name []byte) bool {
	if len(name) != 32 {
		return false
	}
	for _, c := range name {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// serverNamePB parses "host:port" or HBase's "host,port,startcode".
func serverNamePB(s string) (*hbasepb.ServerName, error) {
	var host, port, code string
	if parts := strings.Split(s, ","); len(parts) == 3 {
		host, port, code = parts[0], parts[1], parts[2]
	} else if i := strings.LastIndexByte(s, ':'); i > 0 {
		host, port = s[:i], s[i+1:]
	} else {
		return nil, fmt.Errorf("client: server name %q: want host:port or host,port,startcode", s)
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("client: server name %q: bad port: %w", s, err)
	}
	sn := &hbasepb.ServerName{HostName: proto.String(host), Port: proto.Uint32(uint32(p))}
	if code != "" {
		c, err := strconv.ParseUint(code, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("client: server name %q: bad start code: %w", s, err)
		}
		sn.StartCode = proto.Uint64(c)
	}
	return sn, nil
}

// MoveRegion moves a region (encoded or full name) with its data to the
// region server named server ("host:port" or "host,port,startcode"), or,
// when server is "", to one the master chooses. It returns when the
// region is open at its new server.
func (a *Admin) MoveRegion(ctx context.Context, region []byte, server string) error {
	req := &hbasepb.MoveRegionRequest{Region: regionSpec(region)}
	if server != "" {
		sn, err := serverNamePB(server)
		if err != nil {
			return err
		}
		req.DestServerName = sn
	}
	return a.master(ctx, "MoveRegion", req, &hbasepb.MoveRegionResponse{})
}

// regionInfoPB builds the RegionInfo of a full region name (HBase's
// SplitRegion call takes one).
func regionInfoPB(name []byte) (*hbasepb.RegionInfo, error) {
	bad := fmt.Errorf("client: %q is not a full region name (<table>,<start key>,<region id>.<encoded>.)", name)
	first := bytes.IndexByte(name, ',')
	if first < 0 {
		return nil, bad
	}
	rest := name[first+1:]
	if n := len(rest); n >= 34 && rest[n-1] == '.' && rest[n-34] == '.' {
		rest = rest[:n-34]
	}
	last := bytes.LastIndexByte(rest, ',')
	if last < 0 {
		return nil, bad
	}
	id, err := strconv.ParseUint(string(rest[last+1:]), 10, 64)
	if err != nil {
		return nil, bad
	}
	return &hbasepb.RegionInfo{TableName: tableNamePB(string(name[:first])), StartKey: rest[:last],
		RegionId: proto.Uint64(id)}, nil
}

// SplitRegion splits a region (by its full name) at splitRow, or where
// its data splits in half when splitRow is empty. It returns when the
// daughters are open.
func (a *Admin) SplitRegion(ctx context.Context, region, splitRow []byte) error {
	ri, err := regionInfoPB(region)
	if err != nil {
		return err
	}
	return a.splitRegion(ctx, ri, splitRow)
}

func (a *Admin) splitRegion(ctx context.Context, ri *hbasepb.RegionInfo, splitRow []byte) error {
	var resp hbasepb.SplitTableRegionResponse
	if err := a.master(ctx, "SplitRegion", &hbasepb.SplitTableRegionRequest{RegionInfo: ri, SplitRow: splitRow}, &resp); err != nil {
		return err
	}
	a.c.regions.invalidateTable(tableString(ri.GetTableName()))
	return a.waitProcedure(ctx, resp.ProcId)
}

// Split splits table's region holding splitRow at splitRow, or, when
// splitRow is empty, every region of the table at its midpoint (regions
// too small to split are left alone, as HBase does).
func (a *Admin) Split(ctx context.Context, table string, splitRow []byte) error {
	regions, err := a.Regions(ctx, table)
	if err != nil {
		return err
	}
	for _, r := range regions {
		if len(splitRow) > 0 && !(bytes.Compare(splitRow, r.StartKey) >= 0 && (len(r.EndKey) == 0 || bytes.Compare(splitRow, r.EndKey) < 0)) {
			continue
		}
		ri, err := regionInfoPB(r.Name)
		if err != nil {
			return err
		}
		err = a.splitRegion(ctx, ri, splitRow)
		if len(splitRow) > 0 {
			return err
		}
		var re *RemoteError
		if err != nil && !(errors.As(err, &re) && strings.Contains(re.Message, "no split point")) {
			return err
		}
	}
	return nil
}

// MergeRegions merges two adjacent regions of one table (encoded or full
// names). Regions on different servers are first brought together.
func (a *Admin) MergeRegions(ctx context.Context, first, second []byte) error {
	req := &hbasepb.MergeTableRegionsRequest{Region: []*hbasepb.RegionSpecifier{regionSpec(first), regionSpec(second)}}
	var resp hbasepb.MergeTableRegionsResponse
	if err := a.master(ctx, "MergeTableRegions", req, &resp); err != nil {
		return err
	}
	return a.waitProcedure(ctx, resp.ProcId)
}

// AssignRegion opens a region that was unassigned (HBase's assign).
func (a *Admin) AssignRegion(ctx context.Context, region []byte) error {
	return a.master(ctx, "AssignRegion", &hbasepb.AssignRegionRequest{Region: regionSpec(region)}, &hbasepb.AssignRegionResponse{})
}

// UnassignRegion closes a region until it is assigned again (HBase's
// unassign); its data stays on its server.
func (a *Admin) UnassignRegion(ctx context.Context, region []byte) error {
	return a.master(ctx, "UnassignRegion", &hbasepb.UnassignRegionRequest{Region: regionSpec(region)}, &hbasepb.UnassignRegionResponse{})
}
