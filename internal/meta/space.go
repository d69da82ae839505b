package meta

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/weirdb/weir/internal/quota"
)

// Space quota keys (docs/format/etcd.md). They live outside QuotasPrefix so
// that the frequent size reports do not wake the throttle watchers:
//
//	<prefix>/space/sizes/<store id>  JSON SpaceSizeReport: a store's region sizes
//	<prefix>/space/snapshots         JSON SpaceSnapshotDoc: the master's decision

// SpacePrefix is where the space quota keys live.
func (c *Catalog) SpacePrefix() string { return c.key("space") + "/" }

// SpaceSnapshotsKey is the key region servers watch for quota snapshots.
func (c *Catalog) SpaceSnapshotsKey() string { return c.key("space", "snapshots") }

func (c *Catalog) spaceSizesPrefix() string { return c.key("space", "sizes") + "/" }

// RegionSize is one region's size on its store: on-disk bytes of its key
// range plus its share of the unflushed memtable.
type RegionSize struct {
	// Encoded is the region's encoded name (Region.Name).
	Encoded string `json:"encoded"`
	Table   string `json:"table"` // full name, "ns:qualifier"
	Bytes   int64  `json:"bytes"`
}

// SpaceSizeReport is what a region server reports of the regions its
// store holds.
type SpaceSizeReport struct {
	Store   string       `json:"store"`
	Server  string       `json:"server"`
	TimeMs  int64        `json:"time_ms"`
	Regions []RegionSize `json:"regions"`
}

// PutSpaceSizes stores a region server's report, replacing its previous
// one. It is not bound to the server's lease: a store's regions stay with
// it while its server restarts, and so does their size.
func (c *Catalog) PutSpaceSizes(ctx context.Context, r SpaceSizeReport) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := c.cli.Put(ctx, c.spaceSizesPrefix()+r.Store, string(b)); err != nil {
		return fmt.Errorf("meta: storing space sizes of store %s: %w", r.Store, err)
	}
	return nil
}

// SpaceSizeReports reads every store's latest report.
func (c *Catalog) SpaceSizeReports(ctx context.Context) ([]SpaceSizeReport, error) {
	resp, err := c.cli.Get(ctx, c.spaceSizesPrefix(), clientv3.WithPrefix())
	if err != nil {
		return nil, err
	}
	out := make([]SpaceSizeReport, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		var r SpaceSizeReport
		if err := json.Unmarshal(kv.Value, &r); err != nil {
			return nil, fmt.Errorf("meta: decoding space sizes %s: %w", kv.Key, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// SpaceSnapshotDoc is the stored decision of the master's space quota
// chore.
type SpaceSnapshotDoc struct {
	quota.SpaceSnapshots
	// Disabled lists the tables the master disabled for a DISABLE policy
	// (full names); it enables them again when the violation ends.
	Disabled []string `json:"disabled,omitempty"`
}

// DecodeSpaceSnapshots parses a stored SpaceSnapshotDoc; empty input is no
// snapshots.
func DecodeSpaceSnapshots(v []byte) (SpaceSnapshotDoc, error) {
	var d SpaceSnapshotDoc
	if len(v) > 0 {
		if err := json.Unmarshal(v, &d); err != nil {
			return d, fmt.Errorf("meta: decoding space snapshots: %w", err)
		}
	}
	if d.Tables == nil {
		d.Tables = map[string]quota.SpaceSnapshot{}
	}
	if d.Namespaces == nil {
		d.Namespaces = map[string]quota.SpaceSnapshot{}
	}
	return d, nil
}

// SpaceSnapshots reads the stored decision.
func (c *Catalog) SpaceSnapshots(ctx context.Context) (SpaceSnapshotDoc, error) {
	resp, err := c.cli.Get(ctx, c.SpaceSnapshotsKey())
	if err != nil {
		return SpaceSnapshotDoc{}, err
	}
	var v []byte
	if len(resp.Kvs) > 0 {
		v = resp.Kvs[0].Value
	}
	return DecodeSpaceSnapshots(v)
}

// PutSpaceSnapshots stores d if it differs from what is stored (region
// servers watch the key, so an unchanged decision is not rewritten) and
// reports whether it wrote.
func (c *Catalog) PutSpaceSnapshots(ctx context.Context, d SpaceSnapshotDoc) (bool, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return false, err
	}
	key := c.SpaceSnapshotsKey()
	resp, err := c.cli.Get(ctx, key)
	if err != nil {
		return false, err
	}
	if len(resp.Kvs) > 0 && bytes.Equal(resp.Kvs[0].Value, b) {
		return false, nil
	}
	if _, err := c.cli.Put(ctx, key, string(b)); err != nil {
		return false, fmt.Errorf("meta: storing space snapshots: %w", err)
	}
	return true, nil
}
