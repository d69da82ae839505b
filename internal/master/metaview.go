package master

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/region"
)

// The hbase:meta region, as HBase names it: clients ask for it by this
// name and encoded name.
var (
	MetaRegionName  = []byte("hbase:meta,,1")
	MetaEncodedName = "1588230740"
	metaTableID     = uint32(1)
	pbufMagic       = []byte("PBUF")
	familyInfo      = []byte("info")
	familyTable     = []byte("table")
	qualRegionInfo  = []byte("regioninfo")
	qualServer      = []byte("server")
	qualStartCode   = []byte("serverstartcode")
	qualSeqnum      = []byte("seqnumDuringOpen")
	qualState       = []byte("state")
	metaDescriptor  = region.TableDescriptor{Name: "hbase:meta", Families: []region.FamilyDescriptor{
		{Name: familyInfo, MaxVersions: 3}, {Name: familyTable, MaxVersions: 3}, {Name: []byte("rep_barrier"), MaxVersions: 1}}}
)

// metaView is hbase:meta, materialised from the catalog into an in-memory
// store so that the client's scans (reversed, filtered, batched) run on the
// real region code. The catalog in etcd stays the only truth: the view is
// rebuilt whenever tables or regions change.
type metaView struct {
	catalog *meta.Catalog
	memRegion
	mu sync.Mutex // serialises rebuilds
	// extra, if set, returns rows of the master's own system tables
	// (hbase:quota) to add to every rebuild.
	extra func() ([]region.Mutation, error)
}

func newMetaView(c *meta.Catalog) (*metaView, error) {
	mr, err := openMemRegion("meta", 8<<20, 4<<20, region.Info{TableID: metaTableID, RegionID: 1}, metaDescriptor,
		region.Options{RowOrder: metaRowOrder{}})
	if err != nil {
		return nil, err
	}
	return &metaView{catalog: c, memRegion: mr}, nil
}

// region serves the view.
func (v *metaView) region() *region.Region { return v.r }

// rebuild rewrites the view from the catalog in one atomic batch, so a
// concurrent scan sees the old view or the new one, never a mix.
func (v *metaView) rebuild(ctx context.Context) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	tables, err := v.catalog.ListTables(ctx)
	if err != nil {
		return err
	}
	regions, err := v.catalog.AllRegions(ctx)
	if err != nil {
		return err
	}
	muts := make([]region.Mutation, 0, len(tables)+len(regions))
	for _, t := range tables {
		st := hbasepb.TableState_State(t.State)
		b, err := proto.Marshal(&hbasepb.TableState{State: &st})
		if err != nil {
			return err
		}
		muts = append(muts, region.Mutation{Type: region.MutationPut, Row: []byte(t.Name.String()), Cells: []cell.Cell{
			{Family: familyTable, Qualifier: qualState, Timestamp: 1, Value: b}}})
	}
	for i := range regions {
		m, err := regionRow(&regions[i])
		if err != nil {
			return err
		}
		muts = append(muts, m)
	}
	if v.extra != nil {
		more, err := v.extra()
		if err != nil {
			return err
		}
		muts = append(muts, more...)
	}
	return v.r.Replace(ctx, muts)
}

// regionRow renders one region's hbase:meta row.
func regionRow(r *meta.Region) (region.Mutation, error) {
	name, _ := r.Name()
	id := uint64(r.RegionID)
	info := &hbasepb.RegionInfo{
		RegionId:  &id,
		TableName: &hbasepb.TableName{Namespace: []byte(r.Table.Namespace), Qualifier: []byte(r.Table.Qualifier)},
		StartKey:  r.StartKey,
		EndKey:    r.EndKey,
		Offline:   proto.Bool(r.Offline),
		Split:     proto.Bool(r.Split),
	}
	b, err := proto.Marshal(info)
	if err != nil {
		return region.Mutation{}, fmt.Errorf("master: encoding region info: %w", err)
	}
	cells := []cell.Cell{{Family: familyInfo, Qualifier: qualRegionInfo, Timestamp: 1, Value: append(append([]byte{}, pbufMagic...), b...)}}
	state := "CLOSED"
	if r.Server != "" {
		cells = append(cells,
			cell.Cell{Family: familyInfo, Qualifier: qualServer, Timestamp: 1, Value: []byte(r.Server)},
			cell.Cell{Family: familyInfo, Qualifier: qualStartCode, Timestamp: 1, Value: binary.BigEndian.AppendUint64(nil, uint64(r.StartCode))},
			cell.Cell{Family: familyInfo, Qualifier: qualSeqnum, Timestamp: 1, Value: binary.BigEndian.AppendUint64(nil, uint64(r.OpenSeq))})
		if !r.Offline {
			state = "OPEN"
		}
	}
	cells = append(cells, cell.Cell{Family: familyInfo, Qualifier: qualState, Timestamp: 1, Value: []byte(state)})
	return region.Mutation{Type: region.MutationPut, Row: name, Cells: cells}, nil
}

// follow rebuilds the view on every catalog change until ctx ends.
func (v *metaView) follow(ctx context.Context, cli *clientv3.Client, log func(msg string, args ...any)) {
	wctx := clientv3.WithRequireLeader(ctx)
	tw := cli.Watch(wctx, v.catalog.TablesPrefix(), clientv3.WithPrefix())
	rw := cli.Watch(wctx, v.catalog.RegionsPrefix(), clientv3.WithPrefix())
	tick := newTicker(resyncInterval)
	defer tick.Stop()
	for {
		if err := v.rebuild(ctx); err != nil && ctx.Err() == nil {
			log("master: rebuilding hbase:meta failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tw:
		case <-rw:
		case <-tick.C:
		}
	}
}
