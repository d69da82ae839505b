package master

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/webui"
)

// balancerText is the balancer section's text: the switch and the last
// run's plan, from the master's snapshot of them.
func balancerText(st BalancerStatus) string {
	var b strings.Builder
	if st.Enabled {
		b.WriteString("enabled")
	} else {
		b.WriteString("disabled (balance_switch false)")
	}
	if st.LastRun.IsZero() {
		b.WriteString("; no run since this master became active")
		return b.String()
	}
	fmt.Fprintf(&b, "; last run %s (%s", st.LastRun.Format(time.RFC3339), st.Trigger)
	if st.DryRun {
		b.WriteString(", dry run")
	}
	b.WriteString(")")
	if !st.Ran {
		fmt.Fprintf(&b, ": did not run: %s", st.Reason)
		return b.String()
	}
	fmt.Fprintf(&b, ": cost %.3f -> %.3f, %d moves planned, %d executed", st.InitialCost, st.FinalCost, len(st.Moves), st.MovesExecuted)
	if st.Reason != "" {
		fmt.Fprintf(&b, " (%s)", st.Reason)
	}
	for i, mv := range st.Moves {
		if i == 10 {
			fmt.Fprintf(&b, "; ... %d more", len(st.Moves)-i)
			break
		}
		fmt.Fprintf(&b, "; %s %s: %s -> %s", mv.Table, mv.Region, mv.From, mv.To)
	}
	return b.String()
}

// newUI builds the master's web UI. Its goroutine (Run, started by
// serveHTTP) samples the catalog and polls the region servers' status;
// the pages read only its snapshots.
func (m *Master) newUI() (*webui.MasterUI, error) {
	return webui.NewMaster(webui.MasterConfig{Options: webui.Options{Logger: m.log}, Sample: m.uiSample})
}

// uiSample reads what the master page shows from the catalog in etcd.
func (m *Master) uiSample(ctx context.Context) (webui.ClusterSample, error) {
	s := webui.ClusterSample{
		ClusterID: m.clusterID, Self: m.addr, Active: m.active.Load(),
		StartTime: time.UnixMilli(m.startCode), Balancer: balancerText(m.BalancerStatus()),
	}
	resp, err := m.cfg.Etcd.Get(ctx, m.catalog.MasterPrefix(), clientv3.WithPrefix(),
		clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend))
	if err != nil {
		return s, fmt.Errorf("reading the masters: %w", err)
	}
	for i, kv := range resp.Kvs {
		if i == 0 {
			s.ActiveMaster = string(kv.Value) // the election's first candidate leads
		} else {
			s.BackupMasters = append(s.BackupMasters, string(kv.Value))
		}
	}
	servers, err := m.catalog.Servers(ctx)
	if err != nil {
		return s, fmt.Errorf("reading the region servers: %w", err)
	}
	for _, si := range servers {
		ref := webui.ServerRef{Addr: si.Addr(), HostID: si.HostID, Instance: si.Instance, StartCode: si.StartCode}
		if si.InfoPort > 0 {
			ref.InfoAddr = net.JoinHostPort(si.Host, strconv.Itoa(si.InfoPort))
		}
		s.Servers = append(s.Servers, ref)
	}
	slices.SortFunc(s.Servers, func(a, b webui.ServerRef) int {
		if a.HostID != b.HostID {
			return strings.Compare(a.HostID, b.HostID)
		}
		return a.Instance - b.Instance
	})
	tables, err := m.catalog.ListTables(ctx)
	if err != nil {
		return s, fmt.Errorf("reading the tables: %w", err)
	}
	regions, err := m.catalog.AllRegions(ctx)
	if err != nil {
		return s, fmt.Errorf("reading the regions: %w", err)
	}
	byTable := map[uint32][]webui.RegionRef{}
	for i := range regions {
		r := &regions[i]
		name, encoded := r.Name()
		ref := webui.RegionRef{Name: string(name), Encoded: encoded, Server: r.Server, State: "OPEN",
			StartKey: hbaserpc.ToStringBinary(r.StartKey), EndKey: hbaserpc.ToStringBinary(r.EndKey)}
		switch {
		case r.Offline:
			ref.State = "OFFLINE"
		case r.Server == "":
			ref.State = "UNASSIGNED"
		}
		byTable[r.TableID] = append(byTable[r.TableID], ref)
	}
	for _, t := range tables {
		s.Tables = append(s.Tables, webui.TableRef{Name: t.Name.Full(), State: t.State.String(), Regions: byTable[t.ID]})
	}
	slices.SortFunc(s.Tables, func(a, b webui.TableRef) int { return strings.Compare(a.Name, b.Name) })
	qs, err := m.catalog.QuotaState(ctx)
	if err != nil {
		return s, fmt.Errorf("reading the quota settings: %w", err)
	}
	s.RPCThrottle = qs.RPCThrottle
	s.Quotas = webui.SettingRows(qs.Settings)
	return s, nil
}
