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
		s.Quotas = rs.uiRows(now)
	}
	return s
}

// mode is the gate's current throttle mode.
func (g *quotaGate) mode() quota.Mode {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cfg.Mode
}

// uiRows are the quota rows the server's page shows: the live usage the
// quota reporter sampled last (every 200 ms, rates averaged over about a
// second); before its first sample, the settings.
func (rs *RegionServer) uiRows(time.Time) []webui.QuotaRow {
	if usage := rs.QuotaUsage(); usage != nil {
		return webui.UsageRows(usage)
	}
	return webui.SettingRows(rs.quota.checker.Load().Settings())
}
