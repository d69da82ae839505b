package master

import (
	"context"
	"slices"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/weirdb/weir/internal/meta"
)

// assignLoop is the assignment manager, run only by the active master: the
// single owner of assignment decisions. It assigns every region without a
// server (new tables, truncates, splits) to the live server with the
// fewest regions, whenever servers or regions change and every
// AssignInterval.
//
// An assigned region stays with its server while that server is down: a
// region's data lives in its server's store, so it comes back when the
// server restarts. Moving data between stores is the balancer's job (see
// docs/architecture.md).
func (m *Master) assignLoop(ctx context.Context) {
	wctx := clientv3.WithRequireLeader(ctx)
	sw := m.cfg.Etcd.Watch(wctx, m.catalog.ServersPrefix(), clientv3.WithPrefix())
	rw := m.cfg.Etcd.Watch(wctx, m.catalog.RegionsPrefix(), clientv3.WithPrefix())
	tick := newTicker(m.cfg.AssignInterval)
	defer tick.Stop()
	for {
		if err := m.assignOnce(ctx); err != nil && ctx.Err() == nil {
			m.log.Warn("master: assignment pass failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-sw:
		case <-rw:
		case <-tick.C:
		}
	}
}

// assignOnce assigns every unassigned, online region.
func (m *Master) assignOnce(ctx context.Context) error {
	m.assignMu.Lock()
	defer m.assignMu.Unlock()
	servers, err := m.catalog.Servers(ctx)
	if err != nil || len(servers) == 0 {
		return err
	}
	regions, err := m.catalog.AllRegions(ctx)
	if err != nil {
		return err
	}
	load := map[string]int{}
	for _, s := range servers {
		load[s.Addr()] = 0
	}
	for _, r := range regions {
		if r.Server != "" {
			load[r.Server]++
		}
	}
	starts := map[string]int64{}
	for _, s := range servers {
		starts[s.Addr()] = s.StartCode
	}
	for _, r := range regions {
		if r.Server != "" || r.Offline || r.Split {
			continue
		}
		t, err := m.catalog.GetTable(ctx, r.Table)
		if err != nil || t.State != meta.TableEnabled {
			continue // disabled tables keep their regions unassigned
		}
		target := leastLoaded(servers, load)
		r.Server, r.StartCode = target, starts[target]
		r.OpenSeq++
		if err := m.catalog.PutRegion(ctx, r); err != nil {
			return err
		}
		load[target]++
	}
	return nil
}

// leastLoaded picks the server with the fewest regions, by address on ties
// so that the choice is deterministic.
func leastLoaded(servers []meta.ServerInfo, load map[string]int) string {
	addrs := make([]string, 0, len(servers))
	for _, s := range servers {
		addrs = append(addrs, s.Addr())
	}
	slices.Sort(addrs)
	best := addrs[0]
	for _, a := range addrs[1:] {
		if load[a] < load[best] {
			best = a
		}
	}
	return best
}
