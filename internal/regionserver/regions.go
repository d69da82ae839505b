package regionserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/weirdb/weir/internal/clientsvc"
	"github.com/weirdb/weir/internal/lifecycle"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/region"
	"github.com/weirdb/weir/internal/storage"
)

// hosted is an open region with its catalog record.
type hosted struct {
	rec  meta.Region
	name []byte // HBase region name
	r    *region.Region
	// calls counts the ClientService calls that named the region (the web
	// UI's per-region request rate).
	calls atomic.Uint64
}

// regionSet is the server's open regions, looked up by region name by
// every RPC; only the assignment loop adds and removes.
type regionSet struct {
	mu struct {
		sync.RWMutex
		byName map[string]*hosted
	}
}

func (s *regionSet) get(name []byte) (*hosted, error) {
	s.mu.RLock()
	h := s.mu.byName[string(name)]
	s.mu.RUnlock()
	if h == nil {
		return nil, fmt.Errorf("%w: %q", clientsvc.ErrNotServing, name)
	}
	return h, nil
}

// lookup finds a region by its full name, or by its encoded name.
func (s *regionSet) lookup(name []byte, encoded bool) (*hosted, error) {
	if !encoded {
		return s.get(name)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, h := range s.mu.byName {
		if _, enc := h.rec.Name(); enc == string(name) {
			return h, nil
		}
	}
	return nil, fmt.Errorf("%w: encoded name %q", clientsvc.ErrNotServing, name)
}

// Region implements clientsvc.Regions.
func (s *regionSet) Region(name []byte, encoded bool) (*region.Region, error) {
	h, err := s.lookup(name, encoded)
	if err != nil {
		return nil, err
	}
	h.calls.Add(1)
	return h.r, nil
}

func (s *regionSet) put(h *hosted) {
	s.mu.Lock()
	if s.mu.byName == nil {
		s.mu.byName = map[string]*hosted{}
	}
	s.mu.byName[string(h.name)] = h
	s.mu.Unlock()
}

func (s *regionSet) remove(name []byte) *hosted {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.mu.byName[string(name)]
	delete(s.mu.byName, string(name))
	return h
}

// all returns a snapshot of the open regions.
func (s *regionSet) all() []*hosted {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*hosted, 0, len(s.mu.byName))
	for _, h := range s.mu.byName {
		out = append(out, h)
	}
	return out
}

// assignmentLoop is the single owner of the region set's membership: it
// reads the catalog, opens the regions assigned to this server and closes
// the others, then follows changes by watch. It returns when ctx ends.
func (rs *RegionServer) assignmentLoop(ctx context.Context) {
	for ctx.Err() == nil {
		rev, err := rs.syncAssignments(ctx)
		if err != nil {
			rs.log.Warn("regionserver: reading assignments failed; retrying", "err", err)
			lifecycle.Sleep(ctx, retryDelay)
			continue
		}
		wch := rs.cfg.Etcd.Watch(clientv3.WithRequireLeader(ctx), rs.catalog.RegionsPrefix(),
			clientv3.WithPrefix(), clientv3.WithRev(rev+1), clientv3.WithPrevKV())
		tch := rs.cfg.Etcd.Watch(clientv3.WithRequireLeader(ctx), rs.catalog.TablesPrefix(),
			clientv3.WithPrefix(), clientv3.WithRev(rev+1))
		if err := rs.followAssignments(ctx, wch, tch); err != nil && ctx.Err() == nil && !errors.Is(err, errResync) {
			rs.log.Warn("regionserver: assignment watch ended; resyncing", "err", err)
		}
	}
}

// syncAssignments makes the open regions match the catalog and returns
// the etcd revision it read at.
func (rs *RegionServer) syncAssignments(ctx context.Context) (int64, error) {
	resp, err := rs.cfg.Etcd.Get(ctx, rs.catalog.RegionsPrefix(), clientv3.WithPrefix())
	if err != nil {
		return 0, err
	}
	want := map[string]meta.Region{}
	for _, kv := range resp.Kvs {
		rec, err := meta.DecodeRegion(kv.Value)
		if err != nil {
			return 0, fmt.Errorf("region record %s: %w", kv.Key, err)
		}
		if rs.isMine(&rec) {
			name, _ := rec.Name()
			want[string(name)] = rec
		}
	}
	for _, h := range rs.regions.all() {
		if _, ok := want[string(h.name)]; !ok {
			rs.closeRegion(h.name)
		}
	}
	for name, rec := range want {
		if _, err := rs.regions.get([]byte(name)); err == nil {
			continue
		}
		if err := rs.openRegion(ctx, rec); err != nil {
			rs.log.Error("regionserver: opening region failed", "region", name, "err", err)
		}
	}
	return resp.Header.Revision, nil
}

// errResync ends a watch to read the catalog again (a move was aborted).
var errResync = errors.New("regionserver: resync requested")

func (rs *RegionServer) followAssignments(ctx context.Context, wch, tch clientv3.WatchChan) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-rs.resync:
			return errResync
		case wr, ok := <-wch:
			if !ok {
				return errors.New("region watch closed")
			}
			if err := wr.Err(); err != nil {
				return err
			}
			for _, ev := range wr.Events {
				if ev.Type == clientv3.EventTypeDelete {
					if ev.PrevKv == nil {
						return errors.New("region deleted without its old value; resync")
					}
					if rec, err := meta.DecodeRegion(ev.PrevKv.Value); err == nil {
						name, _ := rec.Name()
						if _, err := rs.regions.get(name); err == nil {
							rs.closeRegion(name)
						}
						// A dropped table is disabled first, so its regions
						// are closed here: clear by store, not by open.
						if rec.Store == rs.storeID {
							rs.clearIfDropped(ctx, rec)
						}
					}
					continue
				}
				rec, err := meta.DecodeRegion(ev.Kv.Value)
				if err != nil {
					rs.log.Error("regionserver: bad region record", "key", string(ev.Kv.Key), "err", err)
					continue
				}
				name, _ := rec.Name()
				// A split or merge rewrites a record under the same key
				// (the same start key) with a new region: close the old.
				if ev.PrevKv != nil {
					if prev, err := meta.DecodeRegion(ev.PrevKv.Value); err == nil {
						if prevName, _ := prev.Name(); !bytes.Equal(prevName, name) {
							rs.closeRegion(prevName)
						}
					}
				}
				_, openErr := rs.regions.get(name)
				switch open := openErr == nil; {
				case rs.isMine(&rec) && !open:
					if err := rs.openRegion(ctx, rec); err != nil {
						rs.log.Error("regionserver: opening region failed", "region", string(name), "err", err)
					}
				case !rs.isMine(&rec) && open:
					rs.closeRegion(name)
				}
			}
		case tr, ok := <-tch:
			if !ok {
				return errors.New("table watch closed")
			}
			if err := tr.Err(); err != nil {
				return err
			}
			for _, ev := range tr.Events {
				if ev.Type != clientv3.EventTypePut {
					continue
				}
				var t meta.Table
				if err := json.Unmarshal(ev.Kv.Value, &t); err != nil {
					continue
				}
				rs.applyDescriptor(t)
			}
		}
	}
}

// isMine reports whether the catalog assigns rec to this server: to its
// store, and to it at its current address (until the master has recorded a
// new address, clients could not find the region here anyway).
func (rs *RegionServer) isMine(rec *meta.Region) bool {
	return rec.Store == rs.storeID && rec.Server == rs.addr && !rec.Offline && !rec.Split
}

func (rs *RegionServer) openRegion(ctx context.Context, rec meta.Region) error {
	name, enc := rec.Name()
	// Opens are serialised with move fencing: a region fenced for a move
	// stays closed until the move ends.
	rs.moves.mu.Lock()
	defer rs.moves.mu.Unlock()
	if rs.moves.fencedLocked(enc) {
		return nil
	}
	if _, err := rs.regions.get(name); err == nil {
		return nil
	}
	t, err := rs.catalog.GetTable(ctx, rec.Table)
	if err != nil {
		return err
	}
	r, err := region.Open(rs.engine, rec.Info(), t.Descriptor, region.Options{Logger: rs.log, ClockFloor: rs.clockFloor.Load(), WALHflush: rs.cfg.WALHflush, RowCache: rs.rowCache,
		NoRowImages: rs.cfg.NoRowImages})
	if err != nil {
		return err
	}
	rs.regions.put(&hosted{rec: rec, name: name, r: r})
	rs.kickLoad()
	rs.log.Info("regionserver: opened region", "region", string(name))
	return nil
}

func (rs *RegionServer) closeRegion(name []byte) {
	h := rs.regions.remove(name)
	if h == nil {
		return
	}
	rs.client.CloseRegionScanners(h.r)
	rs.compactor.forget(h)
	_ = h.r.Close()
	rs.kickLoad()
	rs.raiseClockFloor(h.r.ClockHigh())
	rs.log.Info("regionserver: closed region", "region", string(name))
}

func (rs *RegionServer) raiseClockFloor(ts int64) {
	for {
		old := rs.clockFloor.Load()
		if ts <= old || rs.clockFloor.CompareAndSwap(old, ts) {
			return
		}
	}
}

// applyDescriptor hands an altered schema to the table's open regions.
func (rs *RegionServer) applyDescriptor(t meta.Table) {
	for _, h := range rs.regions.all() {
		if h.rec.TableID == t.ID {
			if err := h.r.SetDescriptor(t.Descriptor); err != nil {
				rs.log.Error("regionserver: schema change refused", "table", t.Name.String(), "err", err)
			}
		}
	}
}

// clearIfDropped deletes a removed region's data when its table is gone or
// was truncated (it has a new table id): nothing will ever read those keys
// again. A region removed by a split or a move keeps its data.
func (rs *RegionServer) clearIfDropped(ctx context.Context, rec meta.Region) {
	t, err := rs.catalog.GetTable(ctx, rec.Table)
	if err == nil && t.ID == rec.TableID {
		return
	}
	if err != nil && !errors.Is(err, meta.ErrTableNotFound) {
		rs.log.Warn("regionserver: cannot tell whether a removed region's table is gone; keeping its data", "err", err)
		return
	}
	lo := storage.RegionLowerBound(rec.TableID, rec.StartKey)
	hi := storage.RegionUpperBound(rec.TableID, rec.EndKey)
	if err := rs.engine.ClearRange(lo, hi); err != nil {
		rs.log.Error("regionserver: clearing a dropped region's data", "err", err)
		return
	}
	rs.log.Info("regionserver: cleared data of dropped region", "table", rec.Table.String())
}
