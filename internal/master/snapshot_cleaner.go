package master

import (
	"context"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/meta"
)

// HBase's SnapshotCleanerChore: the active master deletes the completed
// snapshots whose TTL has run out, every SnapshotCleanerInterval, while
// the snapshot cleanup switch is on (snapshot_cleanup_switch; on by
// default). Clone and restore already refuse an expired snapshot; the
// chore frees its images.

func init() {
	masterMethods["SwitchSnapshotCleanup"] = switchSnapshotCleanup
	masterMethods["IsSnapshotCleanupEnabled"] = isSnapshotCleanupEnabled
}

// snapshotExpired reports whether s's TTL (seconds; 0: none) ran out by now.
func snapshotExpired(s meta.Snapshot, now time.Time) bool {
	return s.TTL > 0 && now.UnixMilli() > s.CreatedMs+s.TTL*1000
}

func (m *Master) snapshotCleanerLoop(ctx context.Context) {
	tick := time.NewTicker(m.cfg.SnapshotCleanerInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		m.cleanExpiredSnapshots(ctx, time.Now())
	}
}

// cleanExpiredSnapshots deletes the completed snapshots expired at now,
// unless the switch is off. Snapshots still being taken are left to the
// snapshot's own procedure.
func (m *Master) cleanExpiredSnapshots(ctx context.Context, now time.Time) {
	on, err := m.catalog.SnapshotCleanupEnabled(ctx)
	if err != nil {
		m.log.Warn("master: reading the snapshot cleanup switch failed", "err", err)
		return
	}
	if !on {
		return
	}
	list, err := m.catalog.ListSnapshots(ctx)
	if err != nil {
		m.log.Warn("master: listing snapshots for the cleaner failed", "err", err)
		return
	}
	for _, s := range list {
		if s.State != meta.SnapshotComplete || !snapshotExpired(s, now) {
			continue
		}
		m.dropSnapshot(ctx, s)
		m.log.Info("master: expired snapshot deleted", "snapshot", s.Name, "ttl_s", s.TTL,
			"created", time.UnixMilli(s.CreatedMs).UTC())
	}
}

func switchSnapshotCleanup(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.SetSnapshotCleanupRequest{})
	if err != nil {
		return nil, err
	}
	if req.Enabled == nil {
		return nil, hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "snapshot cleanup: SwitchSnapshotCleanup without enabled")
	}
	// synchronous asks HBase to wait for a running chore; a cleaner pass
	// here deletes snapshots one by one and reads the switch first, so
	// the next pass sees the new value either way.
	prev, err := m.catalog.SetSnapshotCleanupEnabled(ctx, req.GetEnabled())
	if err != nil {
		return nil, err
	}
	m.log.Info("master: snapshot cleanup switched", "on", req.GetEnabled(), "was", prev)
	return &hbasepb.SetSnapshotCleanupResponse{PrevSnapshotCleanup: proto.Bool(prev)}, nil
}

func isSnapshotCleanupEnabled(ctx context.Context, m *Master, _ []byte) (proto.Message, error) {
	on, err := m.catalog.SnapshotCleanupEnabled(ctx)
	if err != nil {
		return nil, err
	}
	return &hbasepb.IsSnapshotCleanupEnabledResponse{Enabled: proto.Bool(on)}, nil
}
