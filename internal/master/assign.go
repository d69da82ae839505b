package master

import (
	"context"
	"slices"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/weirdb/weir/internal/meta"
)

// assignLoop is the assignment manager, run only by the active master: the
// single owner of assignment decisions. It assigns every region without a
// server (new tables, truncates, splits) to the live server with the
// fewest regions, whenever servers or regions change and every
// AssignInterval.
//
// A region is assigned to a store, not an address: it stays with its store
// while the store's server is down (the data lives there) and follows the
// server to whatever address it restarts on. Moving data between stores is
// the balancer's job (see docs/architecture.md).
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

// assignOnce assigns every unassigned region of an enabled table to the
// least loaded live server's store, and points every assigned region at
// the current address of the live server that has its store (a server
// restarted on another port keeps its regions).
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
	byStore := map[string]meta.ServerInfo{}
	load := map[string]int{}
	for _, s := range servers {
		// A store whose server restarted may briefly have two records
		// until the old lease expires: the newest incarnation wins.
		if old, dup := byStore[s.StoreID]; !dup || s.StartCode > old.StartCode {
			byStore[s.StoreID] = s
		}
		load[s.StoreID] = 0
	}
	for _, r := range regions {
		if r.Store != "" {
			load[r.Store]++
		}
	}
	enabled := map[string]bool{}
	for _, r := range regions {
		if r.Split {
			continue
		}
		switch live, ok := byStore[r.Store]; {
		case r.Store != "" && ok:
			if r.Server == live.Addr() && r.StartCode == live.StartCode {
				continue
			}
			r.Server, r.StartCode = live.Addr(), live.StartCode
		case r.Store != "":
			continue // its server is down: the region waits for its data to come back
		default:
			if r.Offline {
				continue
			}
			on, seen := enabled[r.Table.Full()]
			if !seen {
				t, err := m.catalog.GetTable(ctx, r.Table)
				on = err == nil && t.State == meta.TableEnabled
				enabled[r.Table.Full()] = on
			}
			if !on {
				continue // disabled tables keep their regions unassigned
			}
			target := leastLoaded(byStore, load)
			r.Store, r.Server, r.StartCode = target.StoreID, target.Addr(), target.StartCode
			load[target.StoreID]++
		}
		r.OpenSeq++
		if err := m.catalog.PutRegion(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// leastLoaded picks the server whose store holds the fewest regions, by
// address on ties so that the choice is deterministic.
func leastLoaded(byStore map[string]meta.ServerInfo, load map[string]int) meta.ServerInfo {
	sorted := make([]meta.ServerInfo, 0, len(byStore))
	for _, s := range byStore {
		sorted = append(sorted, s)
	}
	slices.SortFunc(sorted, func(a, b meta.ServerInfo) int { return strings.Compare(a.Addr(), b.Addr()) })
	best := sorted[0]
	for _, s := range sorted[1:] {
		if load[s.StoreID] < load[best.StoreID] {
			best = s
		}
	}
	return best
}
