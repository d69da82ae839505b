package master

import (
	"context"
	"net"
	"strconv"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
)

// clientMetaService answers the HBase client's bootstrap (Registry.proto):
// cluster id, active master, where hbase:meta is, and bootstrap nodes.
// hbase:meta is served by the master itself, so its location is the
// master's address; a backup master answers too and points at the active
// one for everything else.
type clientMetaService struct{ m *Master }

func (s clientMetaService) Serve(ctx context.Context, c *hbaserpc.Call) (hbaserpc.Response, error) {
	m := s.m
	switch c.Method {
	case "GetClusterId":
		return hbaserpc.Response{Msg: &hbasepb.GetClusterIdResponse{ClusterId: proto.String(m.clusterID)}}, nil
	case "GetActiveMaster":
		sn := serverName(m.activeMaster(ctx), 0)
		if sn == nil {
			return hbaserpc.Response{}, hbaserpc.Errorf(hbaserpc.PleaseHold, false, "no active master yet")
		}
		if m.active.Load() {
			sn.StartCode = proto.Uint64(uint64(m.startCode))
		}
		return hbaserpc.Response{Msg: &hbasepb.GetActiveMasterResponse{ServerName: sn}}, nil
	case "GetMetaRegionLocations":
		return hbaserpc.Response{Msg: &hbasepb.GetMetaRegionLocationsResponse{MetaLocations: []*hbasepb.RegionLocation{m.metaLocation()}}}, nil
	case "GetBootstrapNodes":
		return hbaserpc.Response{Msg: &hbasepb.GetBootstrapNodesResponse{ServerName: []*hbasepb.ServerName{m.serverName()}}}, nil
	case "GetMasters":
		active := m.activeMaster(ctx)
		entries := []*hbasepb.GetMastersResponseEntry{{ServerName: m.serverName(), IsActive: proto.Bool(active == m.addr)}}
		if active != "" && active != m.addr {
			entries = append(entries, &hbasepb.GetMastersResponseEntry{ServerName: serverName(active, 0), IsActive: proto.Bool(true)})
		}
		return hbaserpc.Response{Msg: &hbasepb.GetMastersResponse{MasterServers: entries}}, nil
	}
	return hbaserpc.Response{}, hbaserpc.Errorf(hbaserpc.UnsupportedOperation, true, "ClientMetaService.%s is not supported", c.Method)
}

// metaLocation is hbase:meta's location: on this master.
func (m *Master) metaLocation() *hbasepb.RegionLocation {
	id := uint64(1)
	return &hbasepb.RegionLocation{
		RegionInfo: &hbasepb.RegionInfo{RegionId: &id,
			TableName: &hbasepb.TableName{Namespace: []byte("hbase"), Qualifier: []byte("meta")}},
		ServerName: m.serverName(),
		SeqNum:     proto.Int64(0),
	}
}

func (m *Master) serverName() *hbasepb.ServerName {
	return serverName(m.addr, m.startCode)
}

// serverName parses "host:port" into HBase's ServerName; nil if malformed.
func serverName(addr string, startCode int64) *hbasepb.ServerName {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil
	}
	return &hbasepb.ServerName{HostName: proto.String(host), Port: proto.Uint32(uint32(port)), StartCode: proto.Uint64(uint64(startCode))}
}
