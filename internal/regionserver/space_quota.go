package regionserver

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/lifecycle"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/quota"
	"github.com/weirdb/weir/internal/region"
	"github.com/weirdb/weir/internal/storage"
)

// spaceLimiting is HBase's SpaceLimitingException. HBase sends the
// exception's stringified form, "<class>: <policy> <reason>", and the Java
// client's constructor strips the class and reads the policy from it.
const spaceLimiting = "org.apache.hadoop.hbase.quotas.SpaceLimitingException"

// spaceQuotas is a region server's part of space quotas: it reports the
// sizes of its store's regions to the master every period, follows the
// snapshots the master publishes, and refuses what a policy in force
// forbids (mutations through clientsvc's guard, compactions in
// AdminService).
type spaceQuotas struct {
	period time.Duration
	log    func(msg string, args ...any)

	// snaps maps a table's full name to its snapshot.
	snaps atomic.Pointer[map[string]quota.SpaceSnapshot]
	// unflushed counts, per region, the bytes written since the last
	// memtable flush: EstimateDiskUsage sees only SSTs, so without it a
	// tenant could write a whole memtable past its limit unseen. It is
	// keyed by the region's identity, not its *region.Region, since the
	// bytes stay in the memtable when the region closes (a DISABLE
	// policy closes it) and is opened again.
	unflushed sync.Map // regionKey → *atomic.Int64
}

// regionKey identifies a region across closing and reopening. The start
// key is needed: a table's first regions share their region id.
type regionKey struct {
	table uint32
	id    int64
	start string
}

func keyOf(i region.Info) regionKey { return regionKey{i.TableID, i.RegionID, string(i.StartKey)} }

func newSpaceQuotas(period time.Duration, log func(string, ...any)) *spaceQuotas {
	s := &spaceQuotas{period: period, log: log}
	empty := map[string]quota.SpaceSnapshot{}
	s.snaps.Store(&empty)
	return s
}

// flushed is the store's FlushEnd event: the memtable's bytes are in SSTs
// now, which the next report measures.
func (s *spaceQuotas) flushed(storage.FlushInfo) {
	s.unflushed.Range(func(_, v any) bool {
		v.(*atomic.Int64).Store(0)
		return true
	})
}

// events chains flushed into the store's event listener.
func (s *spaceQuotas) events(ev storage.EventListener) storage.EventListener {
	next := ev.FlushEnd
	ev.FlushEnd = func(fi storage.FlushInfo) {
		s.flushed(fi)
		if next != nil {
			next(fi)
		}
	}
	return ev
}

// fullName is the table's "ns:qualifier" from a region's descriptor name.
func fullName(name string) string {
	if strings.Contains(name, ":") {
		return name
	}
	return meta.DefaultNamespace + ":" + name
}

// policy is the space policy in force on table (full name), 0 for none.
func (s *spaceQuotas) policy(table string) quota.SpacePolicy {
	return (*s.snaps.Load())[table].Enforced()
}

var spaceMutations = map[hbaseconv.MutationKind]quota.SpaceMutation{
	hbaseconv.KindPut: quota.SpacePut, hbaseconv.KindDelete: quota.SpaceDelete,
	hbaseconv.KindIncrement: quota.SpaceIncrement, hbaseconv.KindAppend: quota.SpaceAppend,
}

// guard is clientsvc's MutationGuard.
func (s *spaceQuotas) guard(r *region.Region, kind hbaseconv.MutationKind, bytes int64) error {
	if err := quota.CheckSpaceMutation(s.policy(fullName(r.Descriptor().Name)), spaceMutations[kind]); err != nil {
		return hbaserpc.Errorf(spaceLimiting, true, "%s: %s", spaceLimiting, err.Error())
	}
	k := keyOf(r.Info())
	v, ok := s.unflushed.Load(k)
	if !ok {
		v, _ = s.unflushed.LoadOrStore(k, new(atomic.Int64))
	}
	v.(*atomic.Int64).Add(bytes)
	return nil
}

// checkCompaction refuses a compaction of table under
// NO_WRITES_COMPACTIONS, with HBase's message.
func (s *spaceQuotas) checkCompaction(table meta.TableName) error {
	if quota.SpaceCompactionsAllowed(s.policy(table.Full())) {
		return nil
	}
	return hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "Compactions on this region are disabled due to a space quota violation.")
}

// prune drops the counters of regions no longer in this store.
func (s *spaceQuotas) prune(live map[regionKey]bool) {
	s.unflushed.Range(func(k, _ any) bool {
		if !live[k.(regionKey)] {
			s.unflushed.Delete(k)
		}
		return true
	})
}

// snapshotsResponse is AdminService.GetSpaceQuotaSnapshots: the snapshots
// this server enforces.
func (s *spaceQuotas) snapshotsResponse() (*hbasepb.GetSpaceQuotaSnapshotsResponse, error) {
	snaps := *s.snaps.Load()
	out := &hbasepb.GetSpaceQuotaSnapshotsResponse{}
	for _, t := range slices.Sorted(maps.Keys(snaps)) {
		tn, err := meta.ParseTableName(t)
		if err != nil {
			return nil, err
		}
		out.Snapshots = append(out.Snapshots, &hbasepb.GetSpaceQuotaSnapshotsResponse_TableQuotaSnapshot{
			TableName: hbaseconv.TableNameToPB(tn), Snapshot: snaps[t].ToProto()})
	}
	return out, nil
}

// report measures every region of this server's store (open or not: a
// table the DISABLE policy closed keeps its size) and stores the sizes for
// the master.
func (rs *RegionServer) reportSpace(ctx context.Context) error {
	regions, err := rs.catalog.AllRegions(ctx)
	if err != nil {
		return err
	}
	rep := meta.SpaceSizeReport{Store: rs.storeID, Server: rs.addr, TimeMs: time.Now().UnixMilli()}
	live := map[regionKey]bool{}
	for i := range regions {
		r := &regions[i]
		if r.Store != rs.storeID || r.Split || r.Table.IsSystem() {
			continue
		}
		_, enc := r.Name()
		k := keyOf(r.Info())
		live[k] = true
		n, err := rs.engine.EstimateDiskUsage(storage.RegionLowerBound(r.TableID, r.StartKey),
			storage.RegionUpperBound(r.TableID, r.EndKey))
		if err != nil {
			if errors.Is(err, storage.ErrClosed) {
				return nil
			}
			return err
		}
		size := int64(min(n, 1<<62))
		if v, ok := rs.space.unflushed.Load(k); ok {
			size += max(v.(*atomic.Int64).Load(), 0)
		}
		rep.Regions = append(rep.Regions, meta.RegionSize{Encoded: enc, Table: r.Table.Full(), Bytes: size})
	}
	rs.space.prune(live)
	return rs.catalog.PutSpaceSizes(ctx, rep)
}

// loadSpaceSnapshots installs the master's latest decision.
func (rs *RegionServer) loadSpaceSnapshots(ctx context.Context) error {
	doc, err := rs.catalog.SpaceSnapshots(ctx)
	if err != nil {
		return err
	}
	rs.space.snaps.Store(&doc.Tables)
	return nil
}

// spaceLoop reports sizes every period and follows the snapshots key by
// watch (with the period as a resync) until ctx ends.
func (rs *RegionServer) spaceLoop(ctx context.Context) {
	s := rs.space
	watch := func() clientv3.WatchChan {
		return rs.cfg.Etcd.Watch(clientv3.WithRequireLeader(ctx), rs.catalog.SpaceSnapshotsKey())
	}
	w := watch()
	tick := time.NewTicker(s.period)
	defer tick.Stop()
	if err := rs.loadSpaceSnapshots(ctx); err != nil && ctx.Err() == nil {
		s.log("regionserver: loading space quota snapshots failed", "err", err)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-w:
			if !ok {
				lifecycle.Sleep(ctx, retryDelay)
				w = watch()
			}
			if err := rs.loadSpaceSnapshots(ctx); err != nil && ctx.Err() == nil {
				s.log("regionserver: loading space quota snapshots failed", "err", err)
			}
		case <-tick.C:
			if err := rs.reportSpace(ctx); err != nil && ctx.Err() == nil {
				s.log("regionserver: reporting region sizes failed", "err", err)
			}
			if err := rs.loadSpaceSnapshots(ctx); err != nil && ctx.Err() == nil {
				s.log("regionserver: loading space quota snapshots failed", "err", err)
			}
		}
	}
}
