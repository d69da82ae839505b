package master

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/weirdb/weir/internal/meta"
)

// SplitRegion splits a region (by full or encoded name) at splitRow, or,
// when splitRow is empty, at the row its server finds splits its data in
// half. A split is metadata only: the daughters are sub-ranges of the same
// store, so one catalog transaction replaces the parent by them and the
// region server closes the parent and opens the daughters. The call
// returns when both daughters are open.
func (m *Master) SplitRegion(ctx context.Context, name, splitRow []byte) error {
	m.regionOps.Lock()
	defer m.regionOps.Unlock()
	return m.lifecycle.done("split", m.splitLocked(ctx, name, splitRow))
}

func (m *Master) splitLocked(ctx context.Context, name, splitRow []byte) error {
	vr, srv, err := m.onlineRegion(ctx, name)
	if err != nil {
		return err
	}
	_, enc := vr.Name()
	info := net.JoinHostPort(srv.Host, strconv.Itoa(srv.InfoPort))
	if len(splitRow) == 0 {
		if srv.InfoPort == 0 {
			return fmt.Errorf("%w: no split row given, and the server's info port (which finds one) is off", ErrBadSplitRow)
		}
		row, err := m.rsCall(ctx, info, meta.MovePathMidKey, url.Values{"region": {enc}}, nil)
		if err != nil {
			return fmt.Errorf("%w: region %s: %v", ErrBadSplitRow, enc, err)
		}
		splitRow = row
	}
	switch {
	case bytes.Equal(splitRow, vr.StartKey):
		return fmt.Errorf("%w: split row %q is the start row of region %s", ErrBadSplitRow, splitRow, enc)
	case !vr.ContainsRow(splitRow):
		return fmt.Errorf("%w: split row %q is outside region %s [%q, %q)", ErrBadSplitRow, splitRow, enc, vr.StartKey, vr.EndKey)
	}
	id := max(time.Now().UnixMilli(), vr.RegionID+1)
	a, b := vr.Region, vr.Region
	a.EndKey, a.RegionID, a.OpenSeq = bytes.Clone(splitRow), id, vr.OpenSeq+1
	b.StartKey, b.RegionID, b.OpenSeq = bytes.Clone(splitRow), id, vr.OpenSeq+1
	if err := m.replaceRegions(ctx, []meta.VersionedRegion{vr}, []meta.Region{a, b}); err != nil {
		return err
	}
	m.log.Info("master: split region", "region", enc, "at", string(splitRow))
	return m.waitRegionsOpen(ctx, srv, a, b)
}

// replaceRegions switches the catalog from old to next (with the
// assignment pass held off, since it writes records too) and rebuilds
// hbase:meta so clients find the new layout at once.
func (m *Master) replaceRegions(ctx context.Context, old []meta.VersionedRegion, next []meta.Region) error {
	m.assignMu.Lock()
	err := m.catalog.ChangeRegions(ctx, old, next)
	m.assignMu.Unlock()
	if err != nil {
		return err
	}
	m.rebuildMeta(ctx)
	return nil
}

// waitRegionsOpen waits until srv serves every region of rs (not at all
// when its info port is off).
func (m *Master) waitRegionsOpen(ctx context.Context, srv meta.ServerInfo, rs ...meta.Region) error {
	if srv.InfoPort == 0 {
		return nil
	}
	info := net.JoinHostPort(srv.Host, strconv.Itoa(srv.InfoPort))
	for i := range rs {
		_, enc := rs[i].Name()
		if err := m.waitOpen(ctx, info, enc); err != nil {
			return err
		}
	}
	return nil
}

// MergeRegions merges two adjacent regions of one table into one. When
// they live on different stores, the second moves to the first's store
// first; then the merge is metadata only.
func (m *Master) MergeRegions(ctx context.Context, names ...[]byte) error {
	if len(names) != 2 {
		return fmt.Errorf("%w: Weir merges exactly two regions at a time, got %d", ErrNotMergeable, len(names))
	}
	m.regionOps.Lock()
	defer m.regionOps.Unlock()
	return m.lifecycle.done("merge", m.mergeLocked(ctx, names[0], names[1]))
}

func (m *Master) mergeLocked(ctx context.Context, first, second []byte) error {
	a, _, err := m.onlineRegion(ctx, first)
	if err != nil {
		return err
	}
	b, _, err := m.onlineRegion(ctx, second)
	if err != nil {
		return err
	}
	_, encA := a.Name()
	_, encB := b.Name()
	switch {
	case encA == encB:
		return fmt.Errorf("%w: cannot merge region %s with itself", ErrNotMergeable, encA)
	case a.TableID != b.TableID:
		return fmt.Errorf("%w: regions %s (%s) and %s (%s) belong to different tables", ErrNotMergeable, encA, a.Table, encB, b.Table)
	}
	if bytes.Compare(b.StartKey, a.StartKey) < 0 {
		a, b = b, a
		encA, encB = encB, encA
	}
	if !bytes.Equal(a.EndKey, b.StartKey) {
		return fmt.Errorf("%w: regions %s and %s are not adjacent", ErrNotMergeable, encA, encB)
	}
	if a.Store != b.Store {
		if _, err := m.moveLocked(ctx, []byte(encB), a.Store); err != nil {
			return fmt.Errorf("master: moving %s next to %s for the merge: %w", encB, encA, err)
		}
		if b, _, err = m.onlineRegion(ctx, []byte(encB)); err != nil {
			return err
		}
	}
	a, srv, err := m.onlineRegion(ctx, []byte(encA))
	if err != nil {
		return err
	}
	merged := a.Region
	merged.EndKey = b.EndKey
	merged.RegionID = max(time.Now().UnixMilli(), a.RegionID+1, b.RegionID+1)
	merged.OpenSeq = max(a.OpenSeq, b.OpenSeq) + 1
	if err := m.replaceRegions(ctx, []meta.VersionedRegion{a, b}, []meta.Region{merged}); err != nil {
		return err
	}
	m.log.Info("master: merged regions", "first", encA, "second", encB)
	return m.waitRegionsOpen(ctx, srv, merged)
}

// SetRegionOnline is HBase's assign (online) and unassign (!online): an
// unassigned region is closed and stays closed, keeping its store (its
// data is there), until assigned again or its table is re-enabled.
// Assigning an open region changes nothing.
func (m *Master) SetRegionOnline(ctx context.Context, name []byte, online bool) error {
	m.regionOps.Lock()
	defer m.regionOps.Unlock()
	op := "unassign"
	if online {
		op = "assign"
	}
	return m.lifecycle.done(op, m.setOnlineLocked(ctx, name, online))
}

func (m *Master) setOnlineLocked(ctx context.Context, name []byte, online bool) error {
	vr, err := m.catalog.LookupRegion(ctx, name)
	if err != nil {
		return err
	}
	if vr.Offline == !online {
		return nil
	}
	if online {
		t, err := m.catalog.GetTable(ctx, vr.Table)
		if err != nil {
			return err
		}
		if t.State != meta.TableEnabled {
			return fmt.Errorf("%w: table %s is %s", meta.ErrTableNotEnabled, vr.Table, t.State)
		}
	}
	next := vr.Region
	next.Offline = !online
	if err := m.replaceRegions(ctx, []meta.VersionedRegion{vr}, []meta.Region{next}); err != nil {
		return err
	}
	// An assignment pass gives an unassigned region a store at once.
	if err := m.assignOnce(ctx); err != nil {
		m.log.Warn("master: assignment pass failed", "err", err)
	}
	m.rebuildMeta(ctx)
	return nil
}
