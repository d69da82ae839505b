package master

import (
	"context"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/quota"
	"github.com/weirdb/weir/internal/region"
)

// hbase:quota, served by the master as a read-only view of the quota
// settings in etcd, in HBase's QuotaTableUtil layout: rows u.<user>,
// t.<table>, n.<namespace>, r.all; family q; qualifier s for the subject's
// own settings, s.<table> and s.<namespace>: for a user on a table or
// namespace; value "PBUF" + hbase.pb.Quotas.
var (
	QuotaTable       = meta.TableName{Namespace: meta.SystemNamespace, Qualifier: "quota"}
	quotaRegionID    = int64(1)
	quotaTableID     = uint32(2)
	familyQuota      = []byte("q")
	familyUsage      = []byte("u")
	quotaDescriptor  = region.TableDescriptor{Name: "hbase:quota", Families: []region.FamilyDescriptor{{Name: familyQuota, MaxVersions: 1}, {Name: familyUsage, MaxVersions: 1}}}
	quotaRegionName  []byte
	quotaEncodedName string
)

func init() {
	quotaRegionName, quotaEncodedName = meta.RegionName(QuotaTable, nil, quotaRegionID)
}

type quotaView struct {
	catalog *meta.Catalog
	memRegion
	mu sync.Mutex // serialises rebuilds
}

func newQuotaView(c *meta.Catalog) (*quotaView, error) {
	mr, err := openMemRegion("quota", 1<<20, 1<<20, region.Info{TableID: quotaTableID, RegionID: quotaRegionID},
		quotaDescriptor, region.Options{})
	if err != nil {
		return nil, err
	}
	return &quotaView{catalog: c, memRegion: mr}, nil
}

// QuotaRows renders settings as hbase:quota rows.
func QuotaRows(st quota.Settings) ([]region.Mutation, error) {
	rows := map[string][]cell.Cell{}
	var order []string
	for _, s := range st.Subjects() {
		q, _ := st.Get(s)
		b, err := proto.Marshal(q.ToProto())
		if err != nil {
			return nil, err
		}
		var row, qual string
		tn := meta.TableName{Namespace: s.Namespace, Qualifier: s.Table}
		switch s.Kind() {
		case quota.SubjectUser:
			row, qual = "u."+s.User, "s"
		case quota.SubjectUserTable:
			row, qual = "u."+s.User, "s."+tn.String()
		case quota.SubjectUserNamespace:
			row, qual = "u."+s.User, "s."+s.Namespace+":"
		case quota.SubjectTable:
			row, qual = "t."+tn.String(), "s"
		case quota.SubjectNamespace:
			row, qual = "n."+s.Namespace, "s"
		case quota.SubjectRegionServer:
			row, qual = "r."+s.RegionServer, "s"
		default:
			continue
		}
		if _, ok := rows[row]; !ok {
			order = append(order, row)
		}
		rows[row] = append(rows[row], cell.Cell{Family: familyQuota, Qualifier: []byte(qual), Timestamp: 1,
			Value: append(append([]byte{}, pbufMagic...), b...)})
	}
	muts := make([]region.Mutation, 0, len(order))
	for _, row := range order {
		muts = append(muts, region.Mutation{Type: region.MutationPut, Row: []byte(row), Cells: rows[row]})
	}
	return muts, nil
}

// rebuild rewrites the view from etcd in one atomic batch.
func (v *quotaView) rebuild(ctx context.Context) error {
	return v.rebuildWith(ctx, nil)
}

// rebuildWith rewrites the view from etcd's settings and, when snaps is not
// nil, from snaps instead of etcd's space snapshots.
func (v *quotaView) rebuildWith(ctx context.Context, snaps *meta.SpaceSnapshotDoc) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	st, err := v.catalog.QuotaState(ctx)
	if err != nil {
		return err
	}
	muts, err := QuotaRows(st.Settings)
	if err != nil {
		return err
	}
	if snaps == nil {
		doc, err := v.catalog.SpaceSnapshots(ctx)
		if err != nil {
			return err
		}
		snaps = &doc
	}
	rows, err := spaceSnapshotRows(*snaps)
	if err != nil {
		return err
	}
	return v.r.Replace(ctx, append(muts, rows...))
}

// follow rebuilds the view on every quota change until ctx ends.
func (v *quotaView) follow(ctx context.Context, cli *clientv3.Client, log func(msg string, args ...any)) {
	w := cli.Watch(clientv3.WithRequireLeader(ctx), v.catalog.QuotasPrefix(), clientv3.WithPrefix())
	tick := newTicker(resyncInterval)
	defer tick.Stop()
	for {
		if err := v.rebuild(ctx); err != nil && ctx.Err() == nil {
			log("master: rebuilding hbase:quota failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-w:
		case <-tick.C:
		}
	}
}

// quotaMetaRows are hbase:meta's rows for hbase:quota: its table state and
// its one region, on this master. Empty until the master has an address.
func (m *Master) quotaMetaRows() ([]region.Mutation, error) {
	if m.addr == "" {
		return nil, nil
	}
	st := hbasepb.TableState_ENABLED
	b, err := proto.Marshal(&hbasepb.TableState{State: &st})
	if err != nil {
		return nil, err
	}
	r := meta.Region{TableID: quotaTableID, Table: QuotaTable, RegionID: quotaRegionID, Server: m.addr, StartCode: m.startCode, OpenSeq: 1}
	rr, err := regionRow(&r)
	if err != nil {
		return nil, err
	}
	return []region.Mutation{
		{Type: region.MutationPut, Row: []byte(QuotaTable.String()), Cells: []cell.Cell{{Family: familyTable, Qualifier: qualState, Timestamp: 1, Value: b}}},
		rr,
	}, nil
}
