package regionserver

import (
	"time"

	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/quota"
	"github.com/weirdb/weir/internal/webui"
)

// newUI builds the server's web UI; it samples on its own goroutine (Run,
// started by serveHTTP) and the pages read only its snapshots.
func (rs *RegionServer) newUI() (*webui.ServerUI, error) {
	return webui.NewServer(webui.ServerConfig{Options: webui.Options{Logger: rs.log}, Sample: rs.uiSample})
}

// uiSample gathers the server's figures from its own registry (so the UI
// and /metrics agree), its open regions and its quota rows.
func (rs *RegionServer) uiSample(now time.Time) webui.ServerSample {
	fams, err := rs.metrics.reg.Gather()
	if err != nil {
		rs.log.Debug("regionserver: gathering metrics for the UI", "err", err)
	}
	s := webui.ServerSample{
		Addr: rs.addr, HostID: rs.cfg.HostID, Instance: rs.cfg.Instance,
		StartTime: time.UnixMilli(rs.startCode), QuotaMode: "disabled",
		Figures: webui.FiguresFrom(fams),
	}
	for _, h := range rs.regions.all() {
		name, encoded := h.rec.Name()
		size, _ := h.r.Size() // 0 if the region closed meanwhile
		s.Regions = append(s.Regions, webui.RegionSample{
			Name: string(name), Encoded: encoded, Table: h.rec.Table.Full(),
			StartKey: hbaserpc.ToStringBinary(h.rec.StartKey), EndKey: hbaserpc.ToStringBinary(h.rec.EndKey),
			SizeBytes: size, Calls: h.calls.Load(),
		})
	}
	if rs.quota != nil {
		s.QuotaMode = rs.quota.mode().String()
		s.Quotas = rs.quota.uiRows(now)
	}
	return s
}

// mode is the gate's current throttle mode.
func (g *quotaGate) mode() quota.Mode {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cfg.Mode
}

// uiRows are the quota rows the server's page shows. Today they are the
// settings with this server's share of each limit (Live false).
//
// Adapter point for live usage: when the quota gate exposes per-subject
// usage (consumed rate, queued, rejected, wait), convert those rows here
// with Live set; the master sums the servers' live rows by subject and
// type.
func (g *quotaGate) uiRows(time.Time) []webui.QuotaRow {
	g.mu.Lock()
	servers := g.cfg.NumServers
	g.mu.Unlock()
	return webui.SettingRows(g.checker.Load().Settings(), servers, true)
}
