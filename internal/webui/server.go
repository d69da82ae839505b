package webui

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// ServerConfig configures a region server's UI.
type ServerConfig struct {
	Options
	// Sample takes the server's figures; it runs on the UI's goroutine
	// once per Interval and must not wait for requests. Required.
	Sample func(now time.Time) ServerSample
}

// ServerUI is a region server's pages and /api/status.
type ServerUI struct {
	cfg     ServerConfig
	version string
	status  atomic.Pointer[ServerStatus]

	// Owned by the sampling goroutine (Run, or step in tests).
	prev     ServerSample
	prevTime time.Time
	seq      uint64
	history  ring[Point]
	qhistory ring[QuotaPoint]
}

// NewServer validates cfg and returns a UI whose status is empty until the
// first sample.
func NewServer(cfg ServerConfig) (*ServerUI, error) {
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Sample == nil {
		return nil, errors.New("webui: ServerConfig.Sample is nil")
	}
	u := &ServerUI{cfg: cfg, version: buildVersion(),
		history: ring[Point]{max: cfg.History}, qhistory: ring[QuotaPoint]{max: cfg.History}}
	u.status.Store(&ServerStatus{Version: u.version})
	return u, nil
}

// Run samples every Interval until ctx ends.
func (u *ServerUI) Run(ctx context.Context) { every(ctx, u.cfg.Interval, u.step) }

// Status is the latest published status; callers must not modify it.
func (u *ServerUI) Status() *ServerStatus { return u.status.Load() }

// step takes one sample and publishes the status derived from it.
func (u *ServerUI) step(now time.Time) {
	s := u.cfg.Sample(now)
	dt := now.Sub(u.prevTime)
	if u.prevTime.IsZero() {
		dt = 0
	}
	st := &ServerStatus{
		Seq: u.seq + 1, Time: now, Version: u.version,
		Addr: s.Addr, HostID: s.HostID, Instance: s.Instance,
		StartTime: s.StartTime, Uptime: uptime(now.Sub(s.StartTime)), QuotaMode: s.QuotaMode,
		Rates:   callRates(s.Figures.Calls, u.prev.Figures.Calls, dt),
		CPU:     perSec(s.Figures.CPUSeconds, u.prev.Figures.CPUSeconds, dt),
		Figures: s.Figures,
		Quotas:  s.Quotas,
	}
	st.Store = storeStatus(s.Figures.Store, u.prev.Figures.Store, dt)
	prevCalls := make(map[string]uint64, len(u.prev.Regions))
	for _, r := range u.prev.Regions {
		prevCalls[r.Name] = r.Calls
	}
	for _, r := range s.Regions {
		rs := RegionStatus{RegionSample: r}
		if p, ok := prevCalls[r.Name]; ok {
			rs.Rate = perSec(float64(r.Calls), float64(p), dt)
		}
		st.Regions = append(st.Regions, rs)
	}
	slices.SortFunc(st.Regions, func(a, b RegionStatus) int {
		if a.Table != b.Table {
			return strings.Compare(a.Table, b.Table)
		}
		return strings.Compare(a.StartKey, b.StartKey)
	})
	u.history.push(Point{T: now.UnixMilli(), Rates: st.Rates})
	u.qhistory.push(quotaPoint(now, s.Quotas))
	st.History, st.QuotaHist = u.history.snapshot(), u.qhistory.snapshot()
	u.prev, u.prevTime, u.seq = s, now, st.Seq
	u.status.Store(st)
}

func storeStatus(cur, prev StoreFigures, dt time.Duration) StoreStatus {
	st := StoreStatus{StoreFigures: cur}
	hits, misses := cur.BlockCacheHits-prev.BlockCacheHits, cur.BlockCacheMisses-prev.BlockCacheMisses
	if dt == 0 || hits < 0 || misses < 0 || hits+misses == 0 {
		hits, misses = cur.BlockCacheHits, cur.BlockCacheMisses
	}
	if hits+misses > 0 {
		st.BlockCacheHitRatio = hits / (hits + misses)
	}
	st.WALFsyncRate = perSec(cur.WALFsyncs, prev.WALFsyncs, dt)
	if n := cur.WALFsyncs - prev.WALFsyncs; n > 0 && dt > 0 {
		st.WALFsyncMeanMs = (cur.WALFsyncSeconds - prev.WALFsyncSeconds) / n * 1e3
	}
	return st
}

// Register adds the server's pages to mux: / (the page), /region?name=
// (one region, by encoded or full name), /api/status (JSON) and /static/.
func (u *ServerUI) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /region", u.serveRegion)
	registerCommon(mux, "regionserver.html", func() any { return u.Status() })
}

func (u *ServerUI) serveRegion(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	st := u.Status()
	for i := range st.Regions {
		if reg := &st.Regions[i]; name != "" && (reg.Name == name || reg.Encoded == name) {
			render(w, http.StatusOK, "region.html", struct {
				Server *ServerStatus
				Region *RegionStatus
			}{st, reg})
			return
		}
	}
	notFound(w, "region "+quoteName(name)+" is not open on this region server")
}
