package meta

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/weirdb/weir/internal/region"
)

// Sentinel errors of snapshots.
var (
	ErrSnapshotExists   = errors.New("meta: snapshot exists")
	ErrSnapshotNotFound = errors.New("meta: snapshot not found")
)

// Snapshot states: a manifest is written "creating" first, which reserves
// the name while the region servers write their images, and "complete"
// once every image exists. Only complete snapshots are listed or used.
const (
	SnapshotCreating = "creating"
	SnapshotComplete = "complete"
)

// Snapshot is a snapshot's manifest: what HBase keeps in
// .hbase-snapshot/<name>/ (the description, the table descriptor, the
// region manifests), with each region's data named by the store that holds
// its image.
type Snapshot struct {
	Name       string                 `json:"name"`
	Table      TableName              `json:"table"`
	TableID    uint32                 `json:"table_id"` // the table's id when taken: the key prefix in the images
	Descriptor region.TableDescriptor `json:"descriptor"`
	CreatedMs  int64                  `json:"created_ms"`
	// Type is HBase's SnapshotDescription.Type name: FLUSH or SKIPFLUSH.
	Type  string `json:"type"`
	TTL   int64  `json:"ttl,omitempty"` // seconds, as HBase records it; 0 = forever
	Owner string `json:"owner,omitempty"`
	State string `json:"state"`
	// Regions are the table's regions when taken, in key order.
	Regions []SnapshotRegion `json:"regions"`
	// Images maps each store that holds regions of the snapshot to the
	// directory of its image, relative to that region server's data
	// directory.
	Images map[string]string `json:"images"`
}

// SnapshotRegion is one region of a snapshot and the store whose image
// holds its data.
type SnapshotRegion struct {
	StartKey []byte `json:"start_key"`
	EndKey   []byte `json:"end_key"`
	RegionID int64  `json:"region_id"`
	Store    string `json:"store"`
}

// ValidateSnapshotName checks a snapshot name by HBase's rule for table
// qualifiers (letters, digits, _ - . ; not starting with . or -). The name
// is also a directory name on the region servers, so the rule matters.
func ValidateSnapshotName(name string) error {
	if err := validateQualifier(name); err != nil {
		return fmt.Errorf("snapshot name: %w", err)
	}
	return nil
}

// SnapshotsPrefix is where snapshot manifests live.
func (c *Catalog) SnapshotsPrefix() string { return c.key("snapshots") + "/" }

func (c *Catalog) snapshotKey(name string) string { return c.SnapshotsPrefix() + name }

// CreateSnapshot records a new manifest (normally in state creating); it
// fails with ErrSnapshotExists when the name is taken.
func (c *Catalog) CreateSnapshot(ctx context.Context, s Snapshot) error {
	if err := ValidateSnapshotName(s.Name); err != nil {
		return err
	}
	ok, err := c.putSnapshot(ctx, s, "=")
	if err == nil && !ok {
		err = fmt.Errorf("%w: %s", ErrSnapshotExists, s.Name)
	}
	return err
}

// CompleteSnapshot overwrites an existing manifest with its final form.
func (c *Catalog) CompleteSnapshot(ctx context.Context, s Snapshot) error {
	s.State = SnapshotComplete
	ok, err := c.putSnapshot(ctx, s, ">")
	if err == nil && !ok {
		err = fmt.Errorf("%w: %s was deleted while being taken", ErrSnapshotNotFound, s.Name)
	}
	return err
}

// putSnapshot writes a manifest if its key's create revision compares
// with 0 by cmp ("=": absent, ">": present); ok says whether it did.
func (c *Catalog) putSnapshot(ctx context.Context, s Snapshot, cmp string) (ok bool, err error) {
	k := c.snapshotKey(s.Name)
	op, err := putJSON(k, s)
	if err != nil {
		return false, err
	}
	resp, err := c.cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(k), cmp, 0)).Then(op).Commit()
	if err != nil {
		return false, fmt.Errorf("meta: write snapshot %s: %w", s.Name, err)
	}
	return resp.Succeeded, nil
}

// GetSnapshot returns a manifest in any state.
func (c *Catalog) GetSnapshot(ctx context.Context, name string) (Snapshot, error) {
	var s Snapshot
	resp, err := c.cli.Get(ctx, c.snapshotKey(name))
	if err != nil {
		return s, fmt.Errorf("meta: get snapshot %s: %w", name, err)
	}
	if len(resp.Kvs) == 0 {
		return s, fmt.Errorf("%w: %s", ErrSnapshotNotFound, name)
	}
	if err := json.Unmarshal(resp.Kvs[0].Value, &s); err != nil {
		return s, fmt.Errorf("meta: snapshot manifest %s: %w", name, err)
	}
	return s, nil
}

// ListSnapshots returns every manifest (in any state), by name.
func (c *Catalog) ListSnapshots(ctx context.Context) ([]Snapshot, error) {
	resp, err := c.cli.Get(ctx, c.SnapshotsPrefix(), clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("meta: list snapshots: %w", err)
	}
	out := make([]Snapshot, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		var s Snapshot
		if err := json.Unmarshal(kv.Value, &s); err != nil {
			return nil, fmt.Errorf("meta: snapshot manifest %s: %w", kv.Key, err)
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Snapshot) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// DeleteSnapshot removes a manifest; ErrSnapshotNotFound if there is none.
func (c *Catalog) DeleteSnapshot(ctx context.Context, name string) error {
	resp, err := c.cli.Delete(ctx, c.snapshotKey(name))
	if err != nil {
		return fmt.Errorf("meta: delete snapshot %s: %w", name, err)
	}
	if resp.Deleted == 0 {
		return fmt.Errorf("%w: %s", ErrSnapshotNotFound, name)
	}
	return nil
}

// ReserveTableID takes the next table id for a table that a later
// CreateTableWith or RestoreTable records (its data is written first).
func (c *Catalog) ReserveTableID(ctx context.Context) (uint32, error) {
	for attempt := 0; attempt < 10; attempt++ {
		resp, err := c.cli.Get(ctx, c.nextTableIDKey())
		if err != nil {
			return 0, fmt.Errorf("meta: reserving a table id: %w", err)
		}
		id, rev := uint64(1), int64(0)
		if len(resp.Kvs) > 0 {
			if id, err = strconv.ParseUint(string(resp.Kvs[0].Value), 10, 32); err != nil {
				return 0, fmt.Errorf("meta: corrupt table id counter: %w", err)
			}
			rev = resp.Kvs[0].ModRevision
		}
		k := c.nextTableIDKey()
		tx, err := c.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(k), "=", rev)).
			Then(clientv3.OpPut(k, strconv.FormatUint(id+1, 10))).Commit()
		if err != nil {
			return 0, fmt.Errorf("meta: reserving a table id: %w", err)
		}
		if tx.Succeeded {
			return uint32(id), nil
		}
	}
	return 0, fmt.Errorf("%w: reserving a table id", ErrConcurrentChange)
}

// CreateTableWith records a table under an id from ReserveTableID with the
// given regions (already assigned, or not), in one transaction; it fails
// with ErrTableExists when the name is taken and ErrNamespaceNotFound when
// its namespace is missing.
func (c *Catalog) CreateTableWith(ctx context.Context, t Table, regions []Region) error {
	t.Descriptor.Name = t.Name.String()
	if _, err := c.GetNamespace(ctx, t.Name.Namespace); err != nil {
		return err
	}
	ops, err := c.tableOps(t, regions)
	if err != nil {
		return err
	}
	resp, err := c.cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(c.tableKey(t.Name)), "=", 0)).Then(ops...).Commit()
	if err != nil {
		return fmt.Errorf("meta: create table %s: %w", t.Name, err)
	}
	if !resp.Succeeded {
		return fmt.Errorf("%w: %s", ErrTableExists, t.Name)
	}
	return nil
}

// RestoreTable replaces a disabled table's record and regions by t (under
// a new id from ReserveTableID) and regions, in one transaction, provided
// the table is still disabled with the id oldID. The old id's keys are
// orphaned for the caller to clear.
func (c *Catalog) RestoreTable(ctx context.Context, oldID uint32, t Table, regions []Region) error {
	cur, rev, err := c.getTable(ctx, t.Name)
	if err != nil {
		return err
	}
	if cur.State != TableDisabled {
		return fmt.Errorf("%w: %s is %s", ErrTableNotDisabled, t.Name, cur.State)
	}
	if cur.ID != oldID {
		return fmt.Errorf("%w: %s changed during the restore", ErrConcurrentChange, t.Name)
	}
	t.Descriptor.Name = t.Name.String()
	t.State = TableDisabled
	ops, err := c.tableOps(t, regions)
	if err != nil {
		return err
	}
	ops = append(ops, clientv3.OpDelete(c.regionTablePrefix(oldID), clientv3.WithPrefix()))
	resp, err := c.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(c.tableKey(t.Name)), "=", rev)).Then(ops...).Commit()
	if err != nil {
		return fmt.Errorf("meta: restore table %s: %w", t.Name, err)
	}
	if !resp.Succeeded {
		return fmt.Errorf("%w: %s changed during the restore", ErrConcurrentChange, t.Name)
	}
	return nil
}

// tableOps are the puts of a table record and its regions.
func (c *Catalog) tableOps(t Table, regions []Region) ([]clientv3.Op, error) {
	op, err := putJSON(c.tableKey(t.Name), t)
	if err != nil {
		return nil, err
	}
	ops := []clientv3.Op{op}
	for i := range regions {
		if regions[i].TableID != t.ID {
			return nil, fmt.Errorf("meta: region %d of table %s has table id %d, want %d", i, t.Name, regions[i].TableID, t.ID)
		}
		op, err := putJSON(c.RegionKey(&regions[i]), regions[i])
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	return ops, nil
}
