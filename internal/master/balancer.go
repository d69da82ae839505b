package master

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/weirdb/weir/internal/balancer"
	"github.com/weirdb/weir/internal/lifecycle"
	"github.com/weirdb/weir/internal/meta"
)

// BalancerMove is one move of a balancer plan.
type BalancerMove struct {
	Region    string `json:"region"` // encoded region name
	Table     string `json:"table"`
	FromStore string `json:"from_store"`
	ToStore   string `json:"to_store"`
	// From and To are the servers' addresses ("host:port").
	From     string `json:"from"`
	To       string `json:"to"`
	FromHost string `json:"from_host"`
	ToHost   string `json:"to_host"`
	// Executed reports that the move happened; Err why it did not.
	Executed bool   `json:"executed"`
	Err      string `json:"err,omitempty"`
}

// BalancerStatus is a snapshot of the balancer for the shell and the web
// UI: the switch and the last run.
type BalancerStatus struct {
	Enabled bool `json:"enabled"`
	// LastRun is when the last run started; zero if none ran since this
	// master became active.
	LastRun time.Time `json:"last_run"`
	// Trigger says what started it: "request", "period" or "servers".
	Trigger string `json:"trigger,omitempty"`
	DryRun  bool   `json:"dry_run"`
	// Ran is HBase's balancer_ran: the run got to plan. When it did not,
	// Reason says why; when it planned nothing, Reason says why too.
	Ran    bool   `json:"ran"`
	Reason string `json:"reason,omitempty"`
	// Moves is the last plan; MovesExecuted how many of them happened.
	Moves         []BalancerMove `json:"moves"`
	MovesExecuted int            `json:"moves_executed"`
	// InitialCost and FinalCost are the plan's cost before and after, in
	// [0, 1]; Terms break them down.
	InitialCost float64         `json:"initial_cost"`
	FinalCost   float64         `json:"final_cost"`
	Terms       []balancer.Term `json:"terms,omitempty"`
	// Hosts are each host's regions and load before and after the plan,
	// as the planner saw them (the load reports).
	Hosts []balancer.HostLoad `json:"hosts,omitempty"`
	Took  time.Duration       `json:"took_ns"`
}

// balancerState is the master's balancer: the switch (cached from etcd)
// and the last run.
type balancerState struct {
	enabled atomic.Bool
	// movesDone counts the moves the balancer executed, for metrics.
	movesDone atomic.Int64
	// run serialises balancer runs (HBase's synchronized(balancer)).
	run sync.Mutex
	mu  struct {
		sync.Mutex
		last BalancerStatus
	}
}

// BalancerStatus returns the balancer's switch and its last run.
func (m *Master) BalancerStatus() BalancerStatus {
	m.bal.mu.Lock()
	st := m.bal.mu.last
	m.bal.mu.Unlock()
	st.Moves = slices.Clone(st.Moves)
	st.Terms = slices.Clone(st.Terms)
	st.Hosts = slices.Clone(st.Hosts)
	st.Enabled = m.bal.enabled.Load()
	return st
}

// balancerCollectors are the balancer's metrics, read from its state at
// scrape time.
func (m *Master) balancerCollectors() []prometheus.Collector {
	last := func(f func(st BalancerStatus) float64) func() float64 {
		return func() float64 { return f(m.BalancerStatus()) }
	}
	return []prometheus.Collector{prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "weir_master_balancer_enabled",
		Help: "1 if the balancer is switched on (balance_switch)."},
		last(func(st BalancerStatus) float64 { return boolFloat(st.Enabled) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "weir_master_balancer_moves_total",
			Help: "Region moves the balancer executed since this master started."},
			func() float64 { return float64(m.bal.movesDone.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "weir_master_balancer_last_run_timestamp_seconds",
			Help: "When the last balancer run started (Unix seconds; 0: none yet)."},
			last(func(st BalancerStatus) float64 {
				if st.LastRun.IsZero() {
					return 0
				}
				return float64(st.LastRun.UnixNano()) / 1e9
			})),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "weir_master_balancer_last_moves",
			Help: "Moves planned by the last balancer run."},
			last(func(st BalancerStatus) float64 { return float64(len(st.Moves)) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "weir_master_balancer_cost",
			Help: "The cluster's balance cost in [0, 1] after the last run's plan (0 is even)."},
			last(func(st BalancerStatus) float64 { return st.FinalCost })),
	}
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// setBalancerEnabled flips the switch in etcd (so a backup master that
// takes over keeps it) and returns the previous value.
func (m *Master) setBalancerEnabled(ctx context.Context, on bool) (bool, error) {
	prev, err := m.catalog.SetBalancerEnabled(ctx, on)
	if err != nil {
		return false, err
	}
	m.bal.enabled.Store(on)
	return prev, nil
}

func (m *Master) loadBalancerSwitch(ctx context.Context) {
	on, err := m.catalog.BalancerEnabled(ctx)
	if err != nil {
		m.log.Warn("master: reading the balancer switch failed", "err", err)
		return
	}
	m.bal.enabled.Store(on)
}

// balanceRequest is one balancer run's options.
type balanceRequest struct {
	DryRun bool `json:"dry_run"`
	// IgnoreRIT runs even with regions in transition (HBase's "force" /
	// ignore_rit); those regions stay where they are.
	IgnoreRIT bool   `json:"ignore_rit"`
	Trigger   string `json:"-"`
}

// balance runs the balancer once: it plans from the catalog and the load
// reports and, unless it is a dry run, executes the plan through
// MoveRegion, one move at a time, for at most BalancerMaxBalancing. Like HBase, it does not run when the
// switch is off (a dry run still does) or, unless IgnoreRIT, while regions
// are in transition; the returned status says so.
func (m *Master) balance(ctx context.Context, req balanceRequest) (BalancerStatus, error) {
	m.bal.run.Lock()
	defer m.bal.run.Unlock()
	start := time.Now()
	st := BalancerStatus{LastRun: start, Trigger: req.Trigger, DryRun: req.DryRun, Moves: []BalancerMove{}}
	defer func() {
		st.Took = time.Since(start)
		st.Enabled = m.bal.enabled.Load()
		m.bal.mu.Lock()
		m.bal.mu.last = st
		m.bal.mu.Unlock()
	}()
	m.loadBalancerSwitch(ctx)
	if !m.bal.enabled.Load() && !req.DryRun {
		st.Reason = "the balancer is switched off (balance_switch true turns it on)"
		return st, nil
	}
	pic, err := m.balancerPicture(ctx)
	if err != nil {
		st.Reason = err.Error()
		return st, err
	}
	if len(pic.rit) > 0 && !req.IgnoreRIT {
		st.Reason = fmt.Sprintf("%d region(s) in transition, e.g. %s (balancer 'force' runs anyway)", len(pic.rit), pic.rit[0])
		m.log.Info("master: not running the balancer", "reason", st.Reason)
		return st, nil
	}
	res, err := balancer.Plan(pic.stores, m.cfg.Balancer)
	if err != nil {
		st.Reason = err.Error()
		return st, err
	}
	st.Ran = true
	st.Reason = res.Skipped
	st.InitialCost, st.FinalCost, st.Terms, st.Hosts = res.InitialCost, res.FinalCost, res.Terms, res.Hosts
	for _, mv := range res.Moves {
		st.Moves = append(st.Moves, BalancerMove{Region: mv.Region, Table: mv.Table, FromStore: mv.From, ToStore: mv.To,
			From: pic.addr[mv.From], To: pic.addr[mv.To], FromHost: mv.FromHost, ToHost: mv.ToHost})
	}
	m.log.Info("master: balancer plan", "moves", len(st.Moves), "dry_run", req.DryRun,
		"cost_before", res.InitialCost, "cost_after", res.FinalCost, "trigger", req.Trigger)
	for _, mv := range st.Moves {
		m.log.Info("master: balancer move", "region", mv.Region, "table", mv.Table, "from", mv.From, "to", mv.To,
			"from_host", mv.FromHost, "to_host", mv.ToHost, "dry_run", req.DryRun)
	}
	if req.DryRun || len(st.Moves) == 0 {
		return st, nil
	}
	mctx, cancel := context.WithTimeout(ctx, m.cfg.BalancerMaxBalancing)
	defer cancel()
	for i := range st.Moves {
		mv := &st.Moves[i]
		if mctx.Err() != nil {
			mv.Err = "not attempted: hbase.balancer.max.balancing elapsed"
			continue
		}
		// MoveRegion moves the data with the region (regions.go); it
		// fails, leaving the region where it was, if the region changed
		// since the plan (split, merged, moved by hand).
		if err := m.MoveRegion(mctx, []byte(mv.Region), mv.ToStore); err != nil {
			mv.Err = err.Error()
			m.log.Warn("master: balancer move failed", "region", mv.Region, "to", mv.To, "err", err)
			continue
		}
		mv.Executed = true
		st.MovesExecuted++
		m.bal.movesDone.Add(1)
	}
	return st, nil
}

// picture is the cluster as the planner sees it.
type picture struct {
	stores []balancer.Store
	addr   map[string]string // store id → server address
	rit    []string          // regions in transition (encoded names)
}

// balancerPicture reads the live servers, the regions and the load
// reports. A region is in transition when it waits for assignment, its
// store's server is down or not yet at its recorded address, it is a split
// parent, or its server has not reported it open yet; such regions are
// pinned. Regions of disabled tables are left out: they are not served.
func (m *Master) balancerPicture(ctx context.Context) (picture, error) {
	pic := picture{addr: map[string]string{}}
	servers, err := m.catalog.Servers(ctx)
	if err != nil {
		return pic, err
	}
	regions, err := m.catalog.AllRegions(ctx)
	if err != nil {
		return pic, err
	}
	loads, err := m.catalog.Loads(ctx)
	if err != nil {
		return pic, err
	}
	live := map[string]meta.ServerInfo{}
	for _, s := range servers {
		if old, dup := live[s.StoreID]; !dup || s.StartCode > old.StartCode {
			live[s.StoreID] = s
		}
	}
	idx := map[string]int{}
	for _, id := range slices.Sorted(maps.Keys(live)) {
		s := live[id]
		idx[id] = len(pic.stores)
		pic.stores = append(pic.stores, balancer.Store{ID: id, Host: s.HostID})
		pic.addr[id] = s.Addr()
	}
	reported := map[string]map[string]meta.RegionLoad{}
	for id, rep := range loads {
		if s, ok := live[id]; ok && rep.Addr == s.Addr() {
			byName := map[string]meta.RegionLoad{}
			for _, rl := range rep.Regions {
				byName[rl.Name] = rl
			}
			reported[id] = byName
		}
	}
	for _, r := range regions {
		if r.Offline {
			continue
		}
		_, enc := r.Name()
		s, isLive := live[r.Store]
		i, placed := idx[r.Store]
		rl, open := reported[r.Store][enc]
		if r.Split || r.Store == "" || !isLive || r.Server != s.Addr() || !open {
			pic.rit = append(pic.rit, enc)
		}
		if !placed {
			continue // unassigned or on a dead store: nothing to balance from
		}
		pic.stores[i].Regions = append(pic.stores[i].Regions, balancer.Region{
			Name: enc, Table: r.Table.Full(), Pinned: !open || r.Split || r.Server != s.Addr(),
			Load: balancer.Load{ReadsPerSec: rl.ReadsPerSec, WritesPerSec: rl.WritesPerSec, Bytes: float64(rl.Bytes)},
		})
	}
	slices.Sort(pic.rit)
	return pic, nil
}

// balancerLoop runs the balancer every BalancerPeriod, and BalancerSettle
// after the set of live region servers changes, while the switch is on.
// It runs only on the active master.
func (m *Master) balancerLoop(ctx context.Context) {
	m.loadBalancerSwitch(ctx)
	tick := time.NewTicker(m.cfg.BalancerPeriod)
	defer tick.Stop()
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	known, _ := m.liveStoreIDs(ctx)
	// Servers that register in the first BalancerSettle after this master
	// became active are starting with the cluster (or were there before a
	// failover): they set the baseline instead of triggering a run.
	baseline := time.Now().Add(m.cfg.BalancerSettle)
	for {
		sw := m.cfg.Etcd.Watch(clientv3.WithRequireLeader(ctx), m.catalog.ServersPrefix(), clientv3.WithPrefix())
		for watching := true; watching; {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				m.autoBalance(ctx, "period")
			case <-settle.C:
				m.autoBalance(ctx, "servers")
			case _, ok := <-sw:
				if !ok {
					watching = false
					break
				}
				now, err := m.liveStoreIDs(ctx)
				if err != nil || slices.Equal(now, known) {
					break
				}
				known = now
				if time.Now().After(baseline) {
					settle.Reset(m.cfg.BalancerSettle)
				}
			}
		}
		lifecycle.Sleep(ctx, time.Second)
	}
}

// liveStoreIDs lists the live servers' store ids, sorted.
func (m *Master) liveStoreIDs(ctx context.Context) ([]string, error) {
	servers, err := m.catalog.Servers(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, s := range servers {
		ids = append(ids, s.StoreID)
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

func (m *Master) autoBalance(ctx context.Context, trigger string) {
	m.loadBalancerSwitch(ctx)
	if !m.bal.enabled.Load() {
		return
	}
	st, err := m.balance(ctx, balanceRequest{Trigger: trigger})
	if err != nil && ctx.Err() == nil {
		m.log.Warn("master: balancer run failed", "trigger", trigger, "err", err)
		return
	}
	if st.Ran && len(st.Moves) > 0 {
		m.log.Info("master: balancer ran", "trigger", trigger, "moves", len(st.Moves), "executed", st.MovesExecuted)
	}
}
