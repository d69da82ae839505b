package master

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/meta"
)

// The snapshot exceptions HBase's client knows by class name.
const (
	snapshotDoesNotExist = "org.apache.hadoop.hbase.snapshot.SnapshotDoesNotExistException"
	snapshotExists       = "org.apache.hadoop.hbase.snapshot.SnapshotExistsException"
	snapshotCreation     = "org.apache.hadoop.hbase.snapshot.SnapshotCreationException"
	unknownSnapshot      = "org.apache.hadoop.hbase.snapshot.UnknownSnapshotException"
	restoreSnapshotError = "org.apache.hadoop.hbase.snapshot.RestoreSnapshotException"
	snapshotTTLExpired   = "org.apache.hadoop.hbase.snapshot.SnapshotTTLExpiredException"
)

// snapshotVersion is the manifest format version HBase 2 reports (v2
// manifests).
const snapshotVersion = 2

func init() {
	masterMethods["Snapshot"] = takeSnapshot
	masterMethods["IsSnapshotDone"] = isSnapshotDone
	masterMethods["GetCompletedSnapshots"] = getCompletedSnapshots
	masterMethods["DeleteSnapshot"] = deleteSnapshot
	masterMethods["RestoreSnapshot"] = restoreSnapshot
	masterMethods["IsRestoreSnapshotDone"] = func(context.Context, *Master, []byte) (proto.Message, error) {
		// Restores and clones finish inside RestoreSnapshot.
		return &hbasepb.IsRestoreSnapshotDoneResponse{Done: proto.Bool(true)}, nil
	}
}

func snapshotName(d *hbasepb.SnapshotDescription) (string, error) {
	if d == nil {
		return "", hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "the request names no snapshot")
	}
	if err := meta.ValidateSnapshotName(d.GetName()); err != nil {
		return "", hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "%v", err)
	}
	return d.GetName(), nil
}

// requestedSnapshot decodes a request that names a snapshot and returns it
// with the snapshot's manifest, which must be complete.
func requestedSnapshot[T interface {
	proto.Message
	GetSnapshot() *hbasepb.SnapshotDescription
}](ctx context.Context, m *Master, p []byte, msg T) (T, meta.Snapshot, error) {
	req, err := decode(p, msg)
	if err != nil {
		return req, meta.Snapshot{}, err
	}
	name, err := snapshotName(req.GetSnapshot())
	if err != nil {
		return req, meta.Snapshot{}, err
	}
	s, err := m.completeSnapshot(ctx, name)
	return req, s, err
}

// completeSnapshot returns a complete snapshot's manifest, or HBase's
// SnapshotDoesNotExistException.
func (m *Master) completeSnapshot(ctx context.Context, name string) (meta.Snapshot, error) {
	s, err := m.catalog.GetSnapshot(ctx, name)
	if errors.Is(err, meta.ErrSnapshotNotFound) || (err == nil && s.State != meta.SnapshotComplete) {
		return s, hbaserpc.Errorf(snapshotDoesNotExist, true, "Snapshot '%s' doesn't exist on the filesystem", name)
	}
	return s, err
}

func snapshotToPB(s meta.Snapshot) *hbasepb.SnapshotDescription {
	typ := hbasepb.SnapshotDescription_FLUSH
	if v, ok := hbasepb.SnapshotDescription_Type_value[s.Type]; ok {
		typ = hbasepb.SnapshotDescription_Type(v)
	}
	d := &hbasepb.SnapshotDescription{
		Name:         proto.String(s.Name),
		Table:        proto.String(s.Table.String()),
		CreationTime: proto.Int64(s.CreatedMs),
		Type:         typ.Enum(),
		Version:      proto.Int32(snapshotVersion),
		Ttl:          proto.Int64(s.TTL),
	}
	if s.Owner != "" {
		d.Owner = proto.String(s.Owner)
	}
	return d
}

// takeSnapshot is HBase's snapshot procedure, run inside the call: every
// store holding regions of the table writes a checkpoint image of it
// (after a flush unless SKIPFLUSH), and the manifest goes to etcd.
func takeSnapshot(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.SnapshotRequest{})
	if err != nil {
		return nil, err
	}
	d := req.GetSnapshot()
	name, err := snapshotName(d)
	if err != nil {
		return nil, err
	}
	tn, err := meta.ParseTableName(d.GetTable())
	if err != nil {
		return nil, hbaserpc.Errorf(snapshotCreation, true, "snapshot %s: %v", name, err)
	}
	if tn.IsSystem() {
		return nil, hbaserpc.Errorf(snapshotCreation, true, "snapshot %s: %s is a system table; Weir serves it as a view of its catalog", name, tn)
	}
	t, err := m.catalog.GetTable(ctx, tn)
	if errors.Is(err, meta.ErrTableNotFound) {
		return nil, hbaserpc.Errorf(snapshotCreation, true, "Table '%s' doesn't exist, can't take snapshot.", tn)
	}
	if err != nil {
		return nil, err
	}
	if d.GetTtl() < 0 {
		return nil, hbaserpc.Errorf(snapshotCreation, true, "snapshot %s: TTL %d is negative", name, d.GetTtl())
	}
	s, err := m.snapshotManifest(ctx, name, t, d)
	if err != nil {
		return nil, err
	}
	if err := m.catalog.CreateSnapshot(ctx, s); err != nil {
		if errors.Is(err, meta.ErrSnapshotExists) {
			return nil, hbaserpc.Errorf(snapshotExists, true, "Snapshot '%s' already stored on the filesystem.", name)
		}
		return nil, err
	}
	if err := m.takeImages(ctx, s, d.GetType() != hbasepb.SnapshotDescription_SKIPFLUSH); err != nil {
		m.dropSnapshot(ctx, s)
		return nil, hbaserpc.Errorf(snapshotCreation, true, "snapshot %s of %s failed: %v", name, tn, err)
	}
	if err := m.catalog.CompleteSnapshot(ctx, s); err != nil {
		m.dropSnapshot(ctx, s)
		return nil, hbaserpc.Errorf(snapshotCreation, true, "snapshot %s of %s failed: %v", name, tn, err)
	}
	m.log.Info("master: snapshot taken", "snapshot", name, "table", tn.String(), "regions", len(s.Regions), "stores", len(s.Images))
	return &hbasepb.SnapshotResponse{ExpectedTimeout: proto.Int64(snapshotCallTimeout.Milliseconds()),
		ProcId: proto.Int64(int64(m.procs.finish(nil)))}, nil
}

// snapshotManifest builds the manifest of a snapshot of t in state
// creating: its regions and the stores whose images will hold them.
func (m *Master) snapshotManifest(ctx context.Context, name string, t meta.Table, d *hbasepb.SnapshotDescription) (meta.Snapshot, error) {
	regions, err := m.catalog.TableRegions(ctx, t.ID)
	if err != nil {
		return meta.Snapshot{}, err
	}
	live, err := m.liveStores(ctx)
	if err != nil {
		return meta.Snapshot{}, err
	}
	typ := hbasepb.SnapshotDescription_FLUSH
	if d.Type != nil {
		typ = d.GetType()
	}
	s := meta.Snapshot{Name: name, Table: t.Name, TableID: t.ID, Descriptor: t.Descriptor, CreatedMs: time.Now().UnixMilli(),
		Type: typ.String(), TTL: d.GetTtl(), Owner: d.GetOwner(), State: meta.SnapshotCreating, Images: map[string]string{}}
	if d.GetCreationTime() > 0 {
		s.CreatedMs = d.GetCreationTime()
	}
	for _, r := range regions {
		if r.Split {
			continue
		}
		if _, ok := live[r.Store]; !ok {
			rn, _ := r.Name()
			return s, hbaserpc.Errorf(snapshotCreation, false, "snapshot %s: region %s is not on a live region server", name, rn)
		}
		s.Regions = append(s.Regions, meta.SnapshotRegion{StartKey: r.StartKey, EndKey: r.EndKey, RegionID: r.RegionID, Store: r.Store})
		s.Images[r.Store] = "snapshots/" + name
	}
	return s, nil
}

func imageStores(s meta.Snapshot) []string {
	out := make([]string, 0, len(s.Images))
	for st := range s.Images {
		out = append(out, st)
	}
	slices.Sort(out)
	return out
}

func (m *Master) takeImages(ctx context.Context, s meta.Snapshot, flush bool) error {
	live, err := m.liveStores(ctx)
	if err != nil {
		return err
	}
	err = eachStore(imageStores(s), func(store string) error {
		return m.callStore(ctx, live, store, meta.SnapshotTakeImage,
			meta.ImageRequest{Snapshot: s.Name, TableID: s.TableID, Flush: flush}, nil)
	})
	if err != nil {
		return err
	}
	// A truncate or restore between reading the regions and the images
	// would leave the images without the table's current keys.
	if t, err := m.catalog.GetTable(ctx, s.Table); err != nil || t.ID != s.TableID {
		return fmt.Errorf("table %s changed while its images were taken", s.Table)
	}
	return nil
}

// dropSnapshot removes a snapshot's manifest and then frees its images on
// the live stores; a store that is down frees its image when its server
// starts (it sweeps images without a manifest).
func (m *Master) dropSnapshot(ctx context.Context, s meta.Snapshot) {
	if err := m.catalog.DeleteSnapshot(ctx, s.Name); err != nil && !errors.Is(err, meta.ErrSnapshotNotFound) {
		m.log.Warn("master: deleting a snapshot manifest", "snapshot", s.Name, "err", err)
	}
	live, err := m.liveStores(ctx)
	if err != nil {
		m.log.Warn("master: snapshot images stay until their servers restart", "snapshot", s.Name, "err", err)
		return
	}
	for _, st := range imageStores(s) {
		if _, ok := live[st]; !ok {
			continue
		}
		if err := m.callStore(ctx, live, st, meta.SnapshotDeleteImage, meta.ImageRequest{Snapshot: s.Name}, nil); err != nil {
			m.log.Warn("master: freeing a snapshot image; its server frees it at restart", "snapshot", s.Name, "store", st, "err", err)
		}
	}
}

func isSnapshotDone(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.IsSnapshotDoneRequest{})
	if err != nil {
		return nil, err
	}
	name, err := snapshotName(req.GetSnapshot())
	if err != nil {
		return nil, err
	}
	s, err := m.catalog.GetSnapshot(ctx, name)
	if errors.Is(err, meta.ErrSnapshotNotFound) {
		return nil, hbaserpc.Errorf(unknownSnapshot, true, "Snapshot '%s' is not currently being taken and has not been taken", name)
	}
	if err != nil {
		return nil, err
	}
	return &hbasepb.IsSnapshotDoneResponse{Done: proto.Bool(s.State == meta.SnapshotComplete), Snapshot: snapshotToPB(s)}, nil
}

func getCompletedSnapshots(ctx context.Context, m *Master, _ []byte) (proto.Message, error) {
	list, err := m.catalog.ListSnapshots(ctx)
	if err != nil {
		return nil, err
	}
	out := &hbasepb.GetCompletedSnapshotsResponse{}
	for _, s := range list {
		if s.State == meta.SnapshotComplete {
			out.Snapshots = append(out.Snapshots, snapshotToPB(s))
		}
	}
	return out, nil
}

func deleteSnapshot(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	_, s, err := requestedSnapshot(ctx, m, p, &hbasepb.DeleteSnapshotRequest{})
	if err != nil {
		return nil, err
	}
	m.dropSnapshot(ctx, s)
	m.log.Info("master: snapshot deleted", "snapshot", s.Name)
	return &hbasepb.DeleteSnapshotResponse{}, nil
}

// restoreSnapshot is HBase's RestoreSnapshot: a clone when the target
// table (the request's table, else the snapshot's) does not exist, a
// restore of a disabled table when it does. Both copy the images into a
// fresh table id on the stores that hold them, then switch the catalog to
// that id in one transaction, so a failure changes nothing.
func restoreSnapshot(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, s, err := requestedSnapshot(ctx, m, p, &hbasepb.RestoreSnapshotRequest{})
	if err != nil {
		return nil, err
	}
	name := s.Name
	if snapshotExpired(s, time.Now()) {
		return nil, hbaserpc.Errorf(snapshotTTLExpired, true, "TTL for snapshot '%s' has already expired.", name)
	}
	target := s.Table
	if tbl := req.GetSnapshot().GetTable(); tbl != "" {
		if target, err = meta.ParseTableName(tbl); err != nil {
			return nil, hbaserpc.Errorf(restoreSnapshotError, true, "restore of %s: %v", name, err)
		}
	}
	if target.IsSystem() {
		return nil, hbaserpc.Errorf(restoreSnapshotError, true, "restore of %s: %s is a system table", name, target)
	}
	cur, err := m.catalog.GetTable(ctx, target)
	switch {
	case errors.Is(err, meta.ErrTableNotFound):
		err = m.cloneSnapshot(ctx, s, target)
	case err != nil:
	case cur.State != meta.TableDisabled:
		err = hbaserpc.Errorf(hbaserpc.TableNotDisabled, true, "%s: restoring a snapshot needs the table disabled (it is %s)", target, cur.State)
	default:
		err = m.restoreInto(ctx, s, cur)
	}
	if err != nil {
		return nil, err
	}
	m.changed(ctx)
	if t, err := m.catalog.GetTable(ctx, target); err == nil && t.State == meta.TableEnabled {
		m.waitTableOnline(ctx, t) // a clone, served when the call returns
	}
	return &hbasepb.RestoreSnapshotResponse{ProcId: proto.Uint64(m.procs.finish(nil))}, nil
}

// materialize copies a snapshot's images into table id dst on the stores
// that hold them and returns the new table's regions, on those stores.
// On failure it clears whatever it copied.
func (m *Master) materialize(ctx context.Context, s meta.Snapshot, target meta.TableName, dst uint32, offline bool) ([]meta.Region, error) {
	live, err := m.liveStores(ctx)
	if err != nil {
		return nil, err
	}
	byStore := map[string][]meta.RowRange{}
	now := time.Now().UnixMilli()
	regions := make([]meta.Region, 0, len(s.Regions))
	for _, r := range s.Regions {
		byStore[r.Store] = append(byStore[r.Store], meta.RowRange{Start: r.StartKey, End: r.EndKey})
		srv, ok := live[r.Store]
		if !ok {
			return nil, hbaserpc.Errorf(restoreSnapshotError, false,
				"snapshot %s: the image of region [%q, %q) is on store %s, which has no live region server", s.Name, r.StartKey, r.EndKey, r.Store)
		}
		regions = append(regions, meta.Region{TableID: dst, Table: target, StartKey: r.StartKey, EndKey: r.EndKey, RegionID: now,
			Store: r.Store, Server: srv.Addr(), StartCode: srv.StartCode, Offline: offline, OpenSeq: 1})
	}
	start := time.Now()
	var keys atomic.Int64
	err = eachStore(imageStores(s), func(store string) error {
		var out meta.CopyImageResponse
		err := m.callStore(ctx, live, store, meta.SnapshotCopyImage,
			meta.CopyImageRequest{Snapshot: s.Name, SrcTableID: s.TableID, DstTableID: dst, Ranges: byStore[store]}, &out)
		keys.Add(out.Keys)
		return err
	})
	if err != nil {
		m.clearTableID(ctx, dst, imageStores(s))
		return nil, hbaserpc.Errorf(restoreSnapshotError, false, "snapshot %s: copying its images: %v", s.Name, err)
	}
	m.log.Info("master: copied snapshot images", "snapshot", s.Name, "table", target.String(), "keys", keys.Load(), "took", time.Since(start))
	return regions, nil
}

// clearTableID asks the live servers of stores to delete the keys of a
// table id that the catalog does not (or no longer) have.
func (m *Master) clearTableID(ctx context.Context, id uint32, stores []string) {
	live, err := m.liveStores(ctx)
	if err != nil {
		m.log.Warn("master: clearing an orphaned table id", "table_id", id, "err", err)
		return
	}
	if stores == nil {
		for st := range live {
			stores = append(stores, st)
		}
	}
	for _, st := range stores {
		if _, ok := live[st]; !ok {
			continue
		}
		if err := m.callStore(ctx, live, st, meta.SnapshotClearTable, meta.ClearTableRequest{TableID: id}, nil); err != nil {
			m.log.Warn("master: clearing an orphaned table id", "table_id", id, "store", st, "err", err)
		}
	}
}

func (m *Master) cloneSnapshot(ctx context.Context, s meta.Snapshot, target meta.TableName) error {
	if _, err := m.catalog.GetNamespace(ctx, target.Namespace); err != nil {
		return err
	}
	id, err := m.catalog.ReserveTableID(ctx)
	if err != nil {
		return err
	}
	regions, err := m.materialize(ctx, s, target, id, false)
	if err != nil {
		return err
	}
	t := meta.Table{ID: id, Name: target, Descriptor: s.Descriptor, State: meta.TableEnabled, CreatedMs: time.Now().UnixMilli()}
	if err := m.catalog.CreateTableWith(ctx, t, regions); err != nil {
		m.clearTableID(ctx, id, imageStores(s))
		return err
	}
	m.log.Info("master: cloned snapshot", "snapshot", s.Name, "table", target.String())
	return nil
}

// restoreInto gives the disabled table cur the snapshot's descriptor,
// regions and content; it stays disabled, as after HBase's restore.
func (m *Master) restoreInto(ctx context.Context, s meta.Snapshot, cur meta.Table) error {
	id, err := m.catalog.ReserveTableID(ctx)
	if err != nil {
		return err
	}
	regions, err := m.materialize(ctx, s, cur.Name, id, true)
	if err != nil {
		return err
	}
	t := cur
	t.ID, t.Descriptor = id, s.Descriptor
	if err := m.catalog.RestoreTable(ctx, cur.ID, t, regions); err != nil {
		m.clearTableID(ctx, id, imageStores(s))
		return err
	}
	// The old id's keys are orphaned on whatever stores held its regions:
	// clear them everywhere (a store that is down keeps them as garbage).
	m.clearTableID(ctx, cur.ID, nil)
	m.log.Info("master: restored snapshot", "snapshot", s.Name, "table", cur.Name.String())
	return nil
}

// dropUnfinishedSnapshots removes the snapshots left in state creating by
// an earlier active master that died during the call: only the active
// master takes snapshots, inside the call, so they will never complete.
// (If that master still runs the call, its final write fails and it
// cleans up too.)
func (m *Master) dropUnfinishedSnapshots(ctx context.Context) {
	list, err := m.catalog.ListSnapshots(ctx)
	if err != nil {
		m.log.Warn("master: listing snapshots to drop unfinished ones", "err", err)
		return
	}
	for _, s := range list {
		if s.State == meta.SnapshotCreating {
			m.log.Warn("master: dropping a snapshot an earlier master did not finish", "snapshot", s.Name)
			m.dropSnapshot(ctx, s)
		}
	}
}
