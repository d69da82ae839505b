package client

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
)

// Snapshot errors: a *RemoteError of HBase's snapshot exception classes
// matches them with errors.Is.
var (
	ErrSnapshotNotFound = errors.New("client: snapshot does not exist")
	ErrSnapshotExists   = errors.New("client: snapshot exists")
)

func init() {
	classSentinels["org.apache.hadoop.hbase.snapshot.SnapshotDoesNotExistException"] = ErrSnapshotNotFound
	classSentinels["org.apache.hadoop.hbase.snapshot.UnknownSnapshotException"] = ErrSnapshotNotFound
	classSentinels["org.apache.hadoop.hbase.snapshot.SnapshotExistsException"] = ErrSnapshotExists
}

// Snapshot describes a completed snapshot, as HBase's SnapshotDescription.
type Snapshot struct {
	Name    string
	Table   string
	Created time.Time
	// Type is FLUSH (the table was flushed first) or SKIPFLUSH.
	Type  string
	TTL   time.Duration // 0: kept until deleted
	Owner string
}

// SnapshotOptions are snapshot's options: HBase's SKIP_FLUSH and TTL.
type SnapshotOptions struct {
	SkipFlush bool
	TTL       time.Duration // whole seconds; 0: forever
	// Created is the snapshot's creation time; zero: the master's clock
	// when it takes the snapshot.
	Created time.Time
}

// Snapshot takes a snapshot of table named name and waits until it is
// complete. A missing table, a taken name or a bad name fail without
// change.
func (a *Admin) Snapshot(ctx context.Context, name, table string, o SnapshotOptions) error {
	typ := hbasepb.SnapshotDescription_FLUSH
	if o.SkipFlush {
		typ = hbasepb.SnapshotDescription_SKIPFLUSH
	}
	if o.TTL < 0 || o.TTL%time.Second != 0 {
		return fmt.Errorf("%w: snapshot TTL %v is not a whole, non-negative number of seconds", ErrInvalidArgument, o.TTL)
	}
	d := &hbasepb.SnapshotDescription{Name: proto.String(name), Table: proto.String(normTable(table)), Type: typ.Enum(),
		Ttl: proto.Int64(int64(o.TTL / time.Second))}
	if !o.Created.IsZero() {
		d.CreationTime = proto.Int64(o.Created.UnixMilli())
	}
	var resp hbasepb.SnapshotResponse
	if err := a.master(ctx, "Snapshot", &hbasepb.SnapshotRequest{Snapshot: d}, &resp); err != nil {
		return err
	}
	if resp.ProcId != nil {
		return a.waitProcedure(ctx, proto.Uint64(uint64(resp.GetProcId())))
	}
	return a.waitFor(ctx, "snapshot "+name, func(ctx context.Context) (bool, error) {
		var done hbasepb.IsSnapshotDoneResponse
		err := a.master(ctx, "IsSnapshotDone", &hbasepb.IsSnapshotDoneRequest{Snapshot: d}, &done)
		return done.GetDone(), err
	})
}

// ListSnapshots returns the completed snapshots whose whole name matches
// regex ("" lists all), by name.
func (a *Admin) ListSnapshots(ctx context.Context, regex string) ([]Snapshot, error) {
	var re *regexp.Regexp
	if regex != "" {
		var err error
		if re, err = regexp.Compile("^(?:" + regex + ")$"); err != nil {
			return nil, fmt.Errorf("%w: snapshot name pattern %q: %v", ErrInvalidArgument, regex, err)
		}
	}
	var resp hbasepb.GetCompletedSnapshotsResponse
	if err := a.master(ctx, "GetCompletedSnapshots", &hbasepb.GetCompletedSnapshotsRequest{}, &resp); err != nil {
		return nil, err
	}
	var out []Snapshot
	for _, d := range resp.GetSnapshots() {
		if re != nil && !re.MatchString(d.GetName()) {
			continue
		}
		out = append(out, Snapshot{Name: d.GetName(), Table: d.GetTable(), Created: time.UnixMilli(d.GetCreationTime()),
			Type: d.GetType().String(), TTL: time.Duration(d.GetTtl()) * time.Second, Owner: d.GetOwner()})
	}
	return out, nil
}

// DeleteSnapshot deletes a snapshot and frees its files.
func (a *Admin) DeleteSnapshot(ctx context.Context, name string) error {
	return a.master(ctx, "DeleteSnapshot", &hbasepb.DeleteSnapshotRequest{
		Snapshot: &hbasepb.SnapshotDescription{Name: proto.String(name)}}, &hbasepb.DeleteSnapshotResponse{})
}

// CloneSnapshot creates table with the snapshot's descriptor, region
// boundaries and content, and waits until its regions are online. An
// existing table fails with ErrTableExists, as in HBase.
func (a *Admin) CloneSnapshot(ctx context.Context, name, table string) error {
	table = normTable(table)
	exists, err := a.TableExists(ctx, table)
	if err != nil {
		return err
	}
	if exists {
		return fmt.Errorf("client: clone of snapshot %s: %w: %s", name, ErrTableExists, table)
	}
	if err := a.restore(ctx, name, table); err != nil {
		return err
	}
	// The clone's regions enter the catalog in one transaction.
	return a.waitOnline(ctx, table, 1)
}

// RestoreSnapshot brings the snapshot's table, which must be disabled,
// back to the snapshot's descriptor, regions and content; it stays
// disabled. If the table no longer exists, it is cloned back.
func (a *Admin) RestoreSnapshot(ctx context.Context, name string) error {
	list, err := a.ListSnapshots(ctx, regexp.QuoteMeta(name))
	if err != nil {
		return err
	}
	if len(list) == 0 {
		return fmt.Errorf("client: restore of snapshot %s: %w", name, ErrSnapshotNotFound)
	}
	table := normTable(list[0].Table)
	exists, err := a.TableExists(ctx, table)
	if err != nil {
		return err
	}
	a.c.regions.invalidateTable(table)
	if err := a.restore(ctx, name, table); err != nil {
		return err
	}
	if !exists {
		return a.waitOnline(ctx, table, 1)
	}
	return nil
}

// restore sends RestoreSnapshot (a clone when table does not exist) and
// waits for its procedure.
func (a *Admin) restore(ctx context.Context, name, table string) error {
	d := &hbasepb.SnapshotDescription{Name: proto.String(name), Table: proto.String(table)}
	var resp hbasepb.RestoreSnapshotResponse
	if err := a.master(ctx, "RestoreSnapshot", &hbasepb.RestoreSnapshotRequest{Snapshot: d}, &resp); err != nil {
		return err
	}
	return a.waitProcedure(ctx, resp.ProcId)
}

// SnapshotCleanupSwitch turns the master's cleaner of expired snapshots
// on or off and returns its previous state (Admin.snapshotCleanupSwitch).
func (a *Admin) SnapshotCleanupSwitch(ctx context.Context, on, synchronous bool) (bool, error) {
	var resp hbasepb.SetSnapshotCleanupResponse
	req := &hbasepb.SetSnapshotCleanupRequest{Enabled: proto.Bool(on), Synchronous: proto.Bool(synchronous)}
	if err := a.master(ctx, "SwitchSnapshotCleanup", req, &resp); err != nil {
		return false, err
	}
	return resp.GetPrevSnapshotCleanup(), nil
}

// SnapshotCleanupEnabled reports whether the cleaner of expired snapshots
// is on (Admin.isSnapshotCleanupEnabled).
func (a *Admin) SnapshotCleanupEnabled(ctx context.Context) (bool, error) {
	var resp hbasepb.IsSnapshotCleanupEnabledResponse
	if err := a.master(ctx, "IsSnapshotCleanupEnabled", &hbasepb.IsSnapshotCleanupEnabledRequest{}, &resp); err != nil {
		return false, err
	}
	return resp.GetEnabled(), nil
}
