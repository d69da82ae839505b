package webui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ServerRef is a live region server as the catalog knows it.
type ServerRef struct {
	Addr      string `json:"addr"`
	InfoAddr  string `json:"info_addr"` // "" when its info port is off
	HostID    string `json:"host_id"`
	Instance  int    `json:"instance"`
	StartCode int64  `json:"start_code"`
}

// RegionRef is a region's catalog record.
type RegionRef struct {
	Name     string `json:"name"`
	Encoded  string `json:"encoded"`
	StartKey string `json:"start_key"` // printable
	EndKey   string `json:"end_key"`
	Server   string `json:"server"` // "" while unassigned
	State    string `json:"state"`  // OPEN, OFFLINE or UNASSIGNED
}

// TableRef is a table and its regions.
type TableRef struct {
	Name    string      `json:"name"` // ns:qualifier
	State   string      `json:"state"`
	Regions []RegionRef `json:"regions"`
}

// ClusterSample is what the master hands its UI each interval.
type ClusterSample struct {
	ClusterID     string
	Self          string // this master's address
	Active        bool
	ActiveMaster  string
	BackupMasters []string
	StartTime     time.Time
	Servers       []ServerRef
	Tables        []TableRef
	// Quotas are the quota settings (Live false); the UI replaces them
	// with the region servers' live rows where those report usage.
	Quotas      []QuotaRow
	RPCThrottle bool
	// Balancer describes the balancer's state and last plan.
	Balancer string
}

// ServerRow is a region server's line on the master page.
type ServerRow struct {
	ServerRef
	// Error is why its status could not be read ("" when it was).
	Error       string  `json:"error,omitempty"`
	Regions     int     `json:"regions"`
	Rates       Rates   `json:"rates"`
	CPU         float64 `json:"cpu"`
	RSSBytes    float64 `json:"rss_bytes"`
	HeapBytes   float64 `json:"heap_bytes"`
	DiskBytes   float64 `json:"disk_bytes"`
	Conns       float64 `json:"conns"`
	InFlight    float64 `json:"in_flight"`
	QuotaMode   string  `json:"quota_mode"`
	UptimeLabel string  `json:"uptime"`
}

// TableRow is a table's line on the master page.
type TableRow struct {
	Name      string  `json:"name"`
	State     string  `json:"state"`
	Regions   int     `json:"regions"`
	SizeBytes uint64  `json:"size_bytes"`
	Rate      float64 `json:"rate"` // calls per second on its regions
}

// TableRegion is a region on the table page.
type TableRegion struct {
	RegionRef
	SizeBytes uint64  `json:"size_bytes"`
	Rate      float64 `json:"rate"`
	Calls     uint64  `json:"calls"`
}

// Event is a notable change: a throttle rejecting or queueing, a quota
// changed.
type Event struct {
	Time time.Time `json:"time"`
	Text string    `json:"text"`
}

// ClusterStatus is the master's /api/status.
type ClusterStatus struct {
	Seq           uint64       `json:"seq"`
	Time          time.Time    `json:"time"`
	Version       string       `json:"version"`
	ClusterID     string       `json:"cluster_id"`
	Self          string       `json:"self"`
	Active        bool         `json:"active"`
	ActiveMaster  string       `json:"active_master"`
	BackupMasters []string     `json:"backup_masters"`
	StartTime     time.Time    `json:"start_time"`
	Uptime        string       `json:"uptime"`
	Error         string       `json:"error,omitempty"` // the catalog could not be read
	Rates         Rates        `json:"rates"`
	Servers       []ServerRow  `json:"servers"`
	Tables        []TableRow   `json:"tables"`
	Quotas        []QuotaRow   `json:"quotas"`
	RPCThrottle   bool         `json:"rpc_throttle"`
	Events        []Event      `json:"events"`
	Balancer      string       `json:"balancer"`
	History       []Point      `json:"history"`
	QuotaHist     []QuotaPoint `json:"quota_history"`

	// tables keeps each table's regions for /table (not in the JSON: the
	// page renders them).
	tables map[string][]TableRegion
}

// MasterConfig configures the master's UI.
type MasterConfig struct {
	Options
	// Sample reads the catalog; it runs on the UI's goroutine once per
	// Interval, bounded by PollTimeout. Required.
	Sample func(ctx context.Context) (ClusterSample, error)
	// PollTimeout bounds the catalog read, and then the concurrent polls
	// of the region servers' /api/status. Default 800 ms.
	PollTimeout time.Duration
	// Client fetches the region servers' status. Default: a client of its
	// own.
	Client *http.Client
	// MaxEvents is the number of recent events kept. Default 50.
	MaxEvents int
}

// MasterUI is the master's pages and /api/status.
type MasterUI struct {
	cfg     MasterConfig
	version string
	status  atomic.Pointer[ClusterStatus]

	// Owned by the sampling goroutine.
	seq      uint64
	sample   ClusterSample // the last catalog sample that was read
	quotas   map[string]QuotaRow
	history  ring[Point]
	qhistory ring[QuotaPoint]
	events   ring[Event]
}

// NewMaster validates cfg and returns a UI whose status is empty until the
// first sample.
func NewMaster(cfg MasterConfig) (*MasterUI, error) {
	cfg.EnsureDefaults()
	if cfg.PollTimeout == 0 {
		cfg.PollTimeout = 800 * time.Millisecond
	}
	if cfg.MaxEvents == 0 {
		cfg.MaxEvents = 50
	}
	if cfg.Client == nil {
		// A transport of its own: Run closes its idle connections on the
		// way out, so no keep-alive goroutine outlives the UI.
		cfg.Client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2, IdleConnTimeout: 30 * time.Second}}
	}
	errs := []error{cfg.Validate()}
	if cfg.Sample == nil {
		errs = append(errs, errors.New("webui: MasterConfig.Sample is nil"))
	}
	if cfg.PollTimeout < 0 || cfg.MaxEvents < 0 {
		errs = append(errs, fmt.Errorf("webui: PollTimeout %v and MaxEvents %d must not be negative", cfg.PollTimeout, cfg.MaxEvents))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	u := &MasterUI{cfg: cfg, version: buildVersion(),
		history: ring[Point]{max: cfg.History}, qhistory: ring[QuotaPoint]{max: cfg.History},
		events: ring[Event]{max: cfg.MaxEvents}}
	u.status.Store(&ClusterStatus{Version: u.version, tables: map[string][]TableRegion{}})
	return u, nil
}

// Run samples every Interval until ctx ends.
func (u *MasterUI) Run(ctx context.Context) {
	defer u.cfg.Client.CloseIdleConnections()
	every(ctx, u.cfg.Interval, func(now time.Time) { u.step(ctx, now) })
}

// Status is the latest published status; callers must not modify it.
func (u *MasterUI) Status() *ClusterStatus { return u.status.Load() }

// step reads the catalog and every region server's status and publishes
// the merged status.
func (u *MasterUI) step(ctx context.Context, now time.Time) {
	st := &ClusterStatus{Seq: u.seq + 1, Time: now, Version: u.version, tables: map[string][]TableRegion{}}
	sctx, cancel := context.WithTimeout(ctx, u.cfg.PollTimeout)
	sample, err := u.cfg.Sample(sctx)
	cancel()
	if err != nil {
		// Keep showing the last catalog sample, marked stale.
		st.Error = "catalog unreadable: " + err.Error()
		u.cfg.Logger.Debug("webui: catalog sample failed", "err", err)
		sample = u.sample
	} else {
		u.sample = sample
	}
	st.ClusterID, st.Self, st.Active = sample.ClusterID, sample.Self, sample.Active
	st.ActiveMaster, st.BackupMasters = sample.ActiveMaster, sample.BackupMasters
	st.StartTime, st.Uptime = sample.StartTime, uptime(now.Sub(sample.StartTime))
	st.RPCThrottle, st.Balancer = sample.RPCThrottle, sample.Balancer

	pctx, cancel := context.WithTimeout(ctx, u.cfg.PollTimeout)
	defer cancel()
	statuses := u.poll(pctx, sample.Servers)
	regions := map[string]RegionStatus{} // by region name, from the servers
	var live []QuotaRow
	for i, ref := range sample.Servers {
		row := ServerRow{ServerRef: ref}
		s, err := statuses[i].status, statuses[i].err
		if err != nil {
			row.Error = err.Error()
		} else {
			row.Regions, row.Rates, row.CPU = len(s.Regions), s.Rates, s.CPU
			row.RSSBytes, row.HeapBytes, row.DiskBytes = s.Figures.RSSBytes, s.Figures.HeapBytes, s.Store.DiskBytes
			row.Conns, row.InFlight, row.QuotaMode, row.UptimeLabel = s.Figures.Conns, s.Figures.InFlight, s.QuotaMode, s.Uptime
			st.Rates.add(s.Rates)
			for _, r := range s.Regions {
				regions[r.Name] = r
			}
			live = append(live, s.Quotas...)
		}
		st.Servers = append(st.Servers, row)
	}
	for _, t := range sample.Tables {
		row := TableRow{Name: t.Name, State: t.State, Regions: len(t.Regions)}
		trs := make([]TableRegion, 0, len(t.Regions))
		for _, ref := range t.Regions {
			tr := TableRegion{RegionRef: ref}
			if r, ok := regions[ref.Name]; ok {
				tr.SizeBytes, tr.Rate, tr.Calls = r.SizeBytes, r.Rate, r.Calls
			}
			row.SizeBytes += tr.SizeBytes
			row.Rate += tr.Rate
			trs = append(trs, tr)
		}
		st.tables[t.Name] = trs
		st.Tables = append(st.Tables, row)
	}
	st.Quotas = mergeQuotas(sample.Quotas, live)
	u.quotaEvents(now, st.Quotas)
	u.history.push(Point{T: now.UnixMilli(), Rates: st.Rates})
	u.qhistory.push(quotaPoint(now, st.Quotas))
	st.History, st.QuotaHist, st.Events = u.history.snapshot(), u.qhistory.snapshot(), u.events.snapshot()
	slices.Reverse(st.Events) // newest first
	u.seq = st.Seq
	u.status.Store(st)
}

type polled struct {
	status *ServerStatus
	err    error
}

// poll fetches every server's /api/status concurrently; the goroutines
// end before poll returns (each bounded by ctx).
func (u *MasterUI) poll(ctx context.Context, servers []ServerRef) []polled {
	out := make([]polled, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		if s.InfoAddr == "" {
			out[i].err = errors.New("info port off")
			continue
		}
		wg.Go(func() { out[i].status, out[i].err = u.fetch(ctx, s.InfoAddr) })
	}
	wg.Wait()
	return out
}

func (u *MasterUI) fetch(ctx context.Context, infoAddr string) (*ServerStatus, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+infoAddr+"/api/status", nil)
	if err != nil {
		return nil, err
	}
	resp, err := u.cfg.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil, fmt.Errorf("status %s", resp.Status)
	}
	var st ServerStatus
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&st); err != nil {
		return nil, fmt.Errorf("decoding its status: %w", err)
	}
	return &st, nil
}

// mergeQuotas combines the settings with the servers' live rows: a
// subject's live rows are summed over the servers (rates, limits, queues
// and rejections add up across servers); a setting no server reports live
// stays as set.
func mergeQuotas(settings, live []QuotaRow) []QuotaRow {
	byKey := map[string]*QuotaRow{}
	var out []QuotaRow
	for _, r := range live {
		if !r.Live {
			continue
		}
		k := r.Key()
		if m, ok := byKey[k]; ok {
			m.LimitPerSec += r.LimitPerSec
			m.Rate += r.Rate
			m.Queued += r.Queued
			m.Rejected += r.Rejected
			m.WaitSeconds += r.WaitSeconds
			continue
		}
		out = append(out, r)
		byKey[k] = &out[len(out)-1]
	}
	// out does not grow below this point, so the pointers stay valid.
	var set []QuotaRow
	for _, r := range settings {
		if _, ok := byKey[r.Key()]; !ok {
			set = append(set, r)
		}
	}
	out = append(out, set...)
	slices.SortFunc(out, func(a, b QuotaRow) int { return strings.Compare(a.Key(), b.Key()) })
	return out
}

// quotaEvents records throttling (new rejections, requests starting to
// queue) and quota changes since the previous sample.
func (u *MasterUI) quotaEvents(now time.Time, rows []QuotaRow) {
	cur := make(map[string]QuotaRow, len(rows))
	for _, r := range rows {
		k := r.Key()
		cur[k] = r
		p, seen := u.quotas[k]
		switch {
		case u.quotas == nil:
			// The first sample: nothing to compare with.
		case !seen:
			u.events.push(Event{now, fmt.Sprintf("quota set: %s %s %s", r.Subject, r.Type, r.Limit)})
		case p.Limit != r.Limit:
			u.events.push(Event{now, fmt.Sprintf("quota changed: %s %s %s → %s", r.Subject, r.Type, p.Limit, r.Limit)})
		}
		if r.Live && seen && r.Rejected > p.Rejected {
			u.events.push(Event{now, fmt.Sprintf("throttled: %s %s rejected %d requests (limit %s)", r.Subject, r.Type, r.Rejected-p.Rejected, r.Limit)})
		}
		if r.Live && r.Queued > 0 && (!seen || p.Queued == 0) {
			u.events.push(Event{now, fmt.Sprintf("throttled: %s %s: %d requests held in its queue (limit %s)", r.Subject, r.Type, r.Queued, r.Limit)})
		}
	}
	if u.quotas != nil {
		for k, p := range u.quotas {
			if _, ok := cur[k]; !ok {
				u.events.push(Event{now, fmt.Sprintf("quota removed: %s %s %s", p.Subject, p.Type, p.Limit)})
			}
		}
	}
	u.quotas = cur
}

// Register adds the master's pages to mux: / (the page), /table?name=
// (a table's regions), /api/status (JSON) and /static/.
func (u *MasterUI) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /table", u.serveTable)
	registerCommon(mux, "master.html", func() any { return u.Status() })
}

func (u *MasterUI) serveTable(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	if name != "" && !strings.Contains(name, ":") {
		name = "default:" + name
	}
	st := u.Status()
	regions, ok := st.tables[name]
	if !ok {
		notFound(w, "table "+quoteName(name)+" does not exist")
		return
	}
	var row TableRow
	for _, t := range st.Tables {
		if t.Name == name {
			row = t
		}
	}
	render(w, http.StatusOK, "table.html", struct {
		Cluster *ClusterStatus
		Table   TableRow
		Regions []TableRegion
	}{st, row, regions})
}
