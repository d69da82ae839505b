package meta

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// ErrUnknownRegion is returned when no region has the given name.
var ErrUnknownRegion = errors.New("meta: unknown region")

// VersionedRegion is a region record with the etcd revision it was read
// at, for compare-and-swap changes (ChangeRegions).
type VersionedRegion struct {
	Region
	// ModRev is the record's etcd mod revision.
	ModRev int64
}

// LookupRegion finds a region by its full HBase name or by its encoded
// name. It fails with ErrUnknownRegion.
func (c *Catalog) LookupRegion(ctx context.Context, name []byte) (VersionedRegion, error) {
	resp, err := c.cli.Get(ctx, c.RegionsPrefix(), clientv3.WithPrefix())
	if err != nil {
		return VersionedRegion{}, fmt.Errorf("meta: looking up region %q: %w", name, err)
	}
	for _, kv := range resp.Kvs {
		r, err := DecodeRegion(kv.Value)
		if err != nil {
			return VersionedRegion{}, fmt.Errorf("meta: region record %s: %w", kv.Key, err)
		}
		full, enc := r.Name()
		if bytes.Equal(full, name) || enc == string(name) {
			return VersionedRegion{Region: r, ModRev: kv.ModRevision}, nil
		}
	}
	return VersionedRegion{}, fmt.Errorf("%w: %q", ErrUnknownRegion, name)
}

// ChangeRegions replaces the records old (as read, at their revisions) by
// next in one transaction: records of next are written, and the keys of
// old that next does not reuse are deleted. It fails with
// ErrConcurrentChange, changing nothing, if any of old changed since it
// was read. Splits, merges, moves and (un)assignments all go through it.
func (c *Catalog) ChangeRegions(ctx context.Context, old []VersionedRegion, next []Region) error {
	conds := make([]clientv3.Cmp, 0, len(old))
	ops := make([]clientv3.Op, 0, len(old)+len(next))
	written := map[string]bool{}
	for i := range next {
		k := c.RegionKey(&next[i])
		op, err := putJSON(k, next[i])
		if err != nil {
			return err
		}
		ops = append(ops, op)
		written[k] = true
	}
	for i := range old {
		k := c.RegionKey(&old[i].Region)
		conds = append(conds, clientv3.Compare(clientv3.ModRevision(k), "=", old[i].ModRev))
		if !written[k] {
			ops = append(ops, clientv3.OpDelete(k))
		}
	}
	resp, err := c.cli.Txn(ctx).If(conds...).Then(ops...).Commit()
	if err != nil {
		return fmt.Errorf("meta: changing regions: %w", err)
	}
	if !resp.Succeeded {
		return fmt.Errorf("%w: a region changed while it was being split, merged or moved", ErrConcurrentChange)
	}
	return nil
}
