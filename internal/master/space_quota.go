package master

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/quota"
	"github.com/weirdb/weir/internal/region"
)

// Space quotas on the master: SetQuota with a SpaceLimitRequest stores the
// quota with the throttles; a chore (spaceLoop, active master only) sums
// the region sizes region servers report into table and namespace usage,
// decides violations (quota.ComputeSpaceSnapshots), disables and re-enables
// tables under the DISABLE policy, and publishes the snapshots in etcd for
// region servers and in hbase:quota (family u, qualifier p) for clients.

// accessDenied is HBase's AccessDeniedException, which HBase's master
// throws when enabling a table its DISABLE space quota disabled.
const accessDenied = "org.apache.hadoop.hbase.security.AccessDeniedException"

func init() {
	masterMethods["GetSpaceQuotaRegionSizes"] = getSpaceQuotaRegionSizes
	masterMethods["GetQuotaStates"] = getQuotaStates
	enable := masterMethods["EnableTable"]
	masterMethods["EnableTable"] = func(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
		if err := m.refuseEnableInViolation(ctx, p); err != nil {
			return nil, err
		}
		return enable(ctx, m, p)
	}
	// As HBase's MasterQuotasObserver (hbase.quota.remove.on.table.delete,
	// default true), dropping a table or namespace drops its space quota.
	deleteTable := masterMethods["DeleteTable"]
	masterMethods["DeleteTable"] = func(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
		resp, err := deleteTable(ctx, m, p)
		if err == nil {
			if req, derr := decode(p, &hbasepb.DeleteTableRequest{}); derr == nil {
				if tn, terr := hbaseconv.TableNameFromPB(req.GetTableName()); terr == nil {
					m.dropSpaceQuota(ctx, quota.SpaceChange{Table: tn.Full(), Remove: true})
				}
			}
		}
		return resp, err
	}
	deleteNamespace := masterMethods["DeleteNamespace"]
	masterMethods["DeleteNamespace"] = func(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
		resp, err := deleteNamespace(ctx, m, p)
		if err == nil {
			if req, derr := decode(p, &hbasepb.DeleteNamespaceRequest{}); derr == nil && req.GetNamespaceName() != "" {
				m.dropSpaceQuota(ctx, quota.SpaceChange{Namespace: req.GetNamespaceName(), Remove: true})
			}
		}
		return resp, err
	}
}

// dropSpaceQuota removes the space quota of a dropped table or namespace,
// if it has one; a failure is logged (the quota then stays, harmless: it
// covers nothing).
func (m *Master) dropSpaceQuota(ctx context.Context, c quota.SpaceChange) {
	_, err := m.catalog.UpdateQuotaSettings(ctx, func(st quota.Settings) (quota.Settings, error) {
		return st.ApplySpace(c)
	})
	if err != nil {
		m.log.Warn("master: removing the space quota of a dropped table or namespace failed", "table", c.Table,
			"namespace", c.Namespace, "err", err)
		return
	}
	m.rebuildQuotaView(ctx)
}

// setSpaceQuota serves a SetQuotaRequest carrying a space limit.
func setSpaceQuota(ctx context.Context, m *Master, req *hbasepb.SetQuotaRequest) (proto.Message, error) {
	if req.Throttle != nil || req.BypassGlobals != nil || req.GetRemoveAll() {
		return nil, badQuota("quota: a space limit cannot be combined with THROTTLE, GLOBAL_BYPASS or REMOVE_ALL in one request")
	}
	if req.UserName != nil || req.UserGroup != nil || req.RegionServer != nil {
		return nil, badQuota("quota: space quotas apply to a TABLE or a NAMESPACE, not to a USER or REGIONSERVER")
	}
	sq := req.GetSpaceLimit().GetQuota()
	if sq == nil {
		return nil, badQuota("quota: the space limit request holds no SpaceQuota")
	}
	c := quota.SpaceChange{Namespace: req.GetNamespace(), Remove: sq.GetRemove()}
	var tn *meta.TableName
	if req.TableName != nil {
		n, err := hbaseconv.TableNameFromPB(req.GetTableName())
		if err != nil {
			return nil, badQuota("quota: bad TABLE: %v", err)
		}
		if n.IsSystem() {
			return nil, badQuota("quota: %s is a system table; space quotas apply to user tables", n)
		}
		tn, c.Table = &n, n.Full()
	}
	if !c.Remove {
		if sq.SoftLimit == nil || sq.ViolationPolicy == nil {
			return nil, badQuota("quota: a space quota needs a limit and a violation policy")
		}
		if sq.GetSoftLimit() == 0 || sq.GetSoftLimit() > 1<<62 {
			return nil, badQuota("quota: space limit %d out of range (1 byte to 4 EiB)", sq.GetSoftLimit())
		}
		c.Limit = fmt.Sprint(sq.GetSoftLimit())
		p := quota.SpacePolicy(sq.GetViolationPolicy())
		if !p.Valid() {
			return nil, badQuota("quota: unknown space violation policy %d", int32(sq.GetViolationPolicy()))
		}
		c.Policy = p.String()
		if tn != nil {
			if _, err := m.catalog.GetTable(ctx, *tn); err != nil {
				return nil, err
			}
		}
		if ns := req.GetNamespace(); ns != "" {
			if _, err := m.catalog.GetNamespace(ctx, ns); err != nil {
				return nil, err
			}
		}
	}
	if _, err := m.catalog.UpdateQuotaSettings(ctx, func(st quota.Settings) (quota.Settings, error) {
		next, err := st.ApplySpace(c)
		if err != nil {
			return st, badQuota("%v", err)
		}
		return next, nil
	}); err != nil {
		return nil, err
	}
	// Decide at once, so that a new quota applies (and a removed one lifts)
	// without waiting for the next period.
	if err := m.spaceOnce(ctx); err != nil {
		m.log.Warn("master: space quota pass after SetQuota failed; the chore retries", "err", err)
	}
	m.rebuildQuotaView(ctx)
	return &hbasepb.SetQuotaResponse{}, nil
}

// spaceLoop runs the space quota chore every SpaceReportPeriod while this
// master is active.
func (m *Master) spaceLoop(ctx context.Context) {
	tick := newTicker(m.cfg.SpaceReportPeriod)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if !m.active.Load() {
			continue
		}
		if err := m.spaceOnce(ctx); err != nil && ctx.Err() == nil {
			m.log.Warn("master: space quota pass failed", "err", err)
		}
	}
}

// regionSizes maps every live region (by encoded name) to its reported
// size, and returns the catalog's tables. A region's size is taken from
// its own store's latest report.
func (m *Master) regionSizes(ctx context.Context) (map[string]int64, []meta.Table, []meta.Region, error) {
	reports, err := m.catalog.SpaceSizeReports(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	regions, err := m.catalog.AllRegions(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	tables, err := m.catalog.ListTables(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	byStore := make(map[string]map[string]int64, len(reports))
	for _, r := range reports {
		sizes := make(map[string]int64, len(r.Regions))
		for _, rs := range r.Regions {
			sizes[rs.Encoded] = rs.Bytes
		}
		byStore[r.Store] = sizes
	}
	out := make(map[string]int64, len(regions))
	for i := range regions {
		r := &regions[i]
		if r.Split || r.Store == "" {
			continue
		}
		_, enc := r.Name()
		if n, ok := byStore[r.Store][enc]; ok {
			out[enc] = n
		}
	}
	return out, tables, regions, nil
}

// tableUsage sums region sizes by table (full name) for every user table.
func (m *Master) tableUsage(ctx context.Context) (map[string]int64, []meta.Table, error) {
	sizes, tables, regions, err := m.regionSizes(ctx)
	if err != nil {
		return nil, nil, err
	}
	usage := make(map[string]int64, len(tables))
	for _, t := range tables {
		if !t.Name.IsSystem() {
			usage[t.Name.Full()] = 0
		}
	}
	for i := range regions {
		r := &regions[i]
		_, enc := r.Name()
		if n, ok := sizes[enc]; ok {
			if _, user := usage[r.Table.Full()]; user {
				usage[r.Table.Full()] += n
			}
		}
	}
	return usage, tables, nil
}

// spaceOnce is one pass of the chore: usage, decision, DISABLE policy,
// publication. Concurrent passes (the chore and a SetQuota) are serialised
// with DDL by assignMu's sibling spaceMu.
func (m *Master) spaceOnce(ctx context.Context) error {
	m.spaceMu.Lock()
	defer m.spaceMu.Unlock()
	usage, tables, err := m.tableUsage(ctx)
	if err != nil {
		return err
	}
	st, err := m.catalog.QuotaState(ctx)
	if err != nil {
		return err
	}
	prev, err := m.catalog.SpaceSnapshots(ctx)
	if err != nil {
		return err
	}
	doc := meta.SpaceSnapshotDoc{SpaceSnapshots: quota.ComputeSpaceSnapshots(st.Settings, usage)}
	state := make(map[string]meta.TableState, len(tables))
	names := make(map[string]meta.TableName, len(tables))
	for _, t := range tables {
		state[t.Name.Full()], names[t.Name.Full()] = t.State, t.Name
	}
	wasDisabled := make(map[string]bool, len(prev.Disabled))
	for _, t := range prev.Disabled {
		wasDisabled[t] = true
	}
	changed := false
	for _, t := range slices.Sorted(maps.Keys(doc.Tables)) {
		if _, exists := names[t]; !exists || doc.Tables[t].Enforced() != quota.SpaceDisable {
			continue
		}
		switch {
		case state[t] == meta.TableEnabled:
			if _, err := m.catalog.SetEnabled(ctx, names[t], false); err != nil && !errors.Is(err, meta.ErrTableNotEnabled) {
				return fmt.Errorf("disabling %s for its space quota: %w", t, err)
			}
			m.log.Warn("master: table disabled: its space quota is violated", "table", t,
				"usage", doc.Tables[t].Usage, "limit", doc.Tables[t].Limit)
			doc.Disabled, changed = append(doc.Disabled, t), true
		case wasDisabled[t]:
			doc.Disabled = append(doc.Disabled, t)
		}
	}
	for _, t := range prev.Disabled {
		if doc.Tables[t].Enforced() == quota.SpaceDisable {
			continue
		}
		if _, exists := names[t]; exists && state[t] == meta.TableDisabled {
			if _, err := m.catalog.SetEnabled(ctx, names[t], true); err != nil && !errors.Is(err, meta.ErrTableNotDisabled) {
				return fmt.Errorf("enabling %s after its space quota violation: %w", t, err)
			}
			m.log.Info("master: table enabled: its space quota is no longer violated", "table", t)
			changed = true
		}
	}
	if !reflect.DeepEqual(prev, doc) {
		// hbase:quota shows a snapshot before region servers can act on it,
		// as in HBase, whose region servers read the snapshots the master
		// wrote there: a client refused for a space quota finds the
		// violation in hbase:quota when it looks.
		if err := m.quotaView.rebuildWith(ctx, &doc); err != nil {
			m.log.Warn("master: hbase:quota rebuild failed; the view catches up by watch", "err", err)
		}
	}
	published, err := m.catalog.PutSpaceSnapshots(ctx, doc)
	if err != nil {
		return err
	}
	if changed {
		m.changed(ctx)
	}
	if published {
		m.rebuildQuotaView(ctx)
	}
	return nil
}

// refuseEnableInViolation is HBase's check in HMaster.enableTable: a table
// its DISABLE space quota disabled stays disabled until the quota is lifted
// or the usage falls.
func (m *Master) refuseEnableInViolation(ctx context.Context, p []byte) error {
	// A pass disables a violating table before it publishes the snapshots
	// this reads: wait for a pass in progress to finish.
	m.spaceMu.Lock()
	defer m.spaceMu.Unlock()
	req, err := decode(p, &hbasepb.EnableTableRequest{})
	if err != nil {
		return err
	}
	tn, err := hbaseconv.TableNameFromPB(req.GetTableName())
	if err != nil || tn.IsSystem() {
		return nil // enableTable reports it
	}
	doc, err := m.catalog.SpaceSnapshots(ctx)
	if err != nil {
		return err
	}
	if doc.Tables[tn.Full()].Enforced() == quota.SpaceDisable {
		return hbaserpc.Errorf(accessDenied, true, "Enabling the table '%s' is disallowed due to a violated space quota.", tn)
	}
	return nil
}

func getSpaceQuotaRegionSizes(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	if _, err := decode(p, &hbasepb.GetSpaceQuotaRegionSizesRequest{}); err != nil {
		return nil, err
	}
	usage, _, err := m.tableUsage(ctx)
	if err != nil {
		return nil, err
	}
	out := &hbasepb.GetSpaceQuotaRegionSizesResponse{}
	for _, t := range slices.Sorted(maps.Keys(usage)) {
		tn, err := meta.ParseTableName(t)
		if err != nil {
			return nil, err
		}
		out.Sizes = append(out.Sizes, &hbasepb.GetSpaceQuotaRegionSizesResponse_RegionSizes{
			TableName: hbaseconv.TableNameToPB(tn), Size: proto.Uint64(uint64(usage[t]))})
	}
	return out, nil
}

func getQuotaStates(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	if _, err := decode(p, &hbasepb.GetQuotaStatesRequest{}); err != nil {
		return nil, err
	}
	doc, err := m.catalog.SpaceSnapshots(ctx)
	if err != nil {
		return nil, err
	}
	out := &hbasepb.GetQuotaStatesResponse{}
	for _, t := range slices.Sorted(maps.Keys(doc.Tables)) {
		tn, err := meta.ParseTableName(t)
		if err != nil {
			return nil, err
		}
		out.TableSnapshots = append(out.TableSnapshots, &hbasepb.GetQuotaStatesResponse_TableQuotaSnapshot{
			TableName: hbaseconv.TableNameToPB(tn), Snapshot: doc.Tables[t].ToProto()})
	}
	for _, ns := range slices.Sorted(maps.Keys(doc.Namespaces)) {
		out.NsSnapshots = append(out.NsSnapshots, &hbasepb.GetQuotaStatesResponse_NamespaceQuotaSnapshot{
			Namespace: proto.String(ns), Snapshot: doc.Namespaces[ns].ToProto()})
	}
	return out, nil
}

// spaceSnapshotRows are hbase:quota's usage cells, as HBase's
// QuotaTableUtil writes them: row t.<table> or n.<namespace>, family u,
// qualifier p, value a bare SpaceQuotaSnapshot (no PBUF magic).
func spaceSnapshotRows(doc meta.SpaceSnapshotDoc) ([]region.Mutation, error) {
	var out []region.Mutation
	add := func(row string, s quota.SpaceSnapshot) error {
		b, err := proto.Marshal(s.ToProto())
		if err != nil {
			return err
		}
		out = append(out, region.Mutation{Type: region.MutationPut, Row: []byte(row), Cells: []cell.Cell{
			{Family: familyUsage, Qualifier: []byte("p"), Timestamp: 1, Value: b}}})
		return nil
	}
	for _, t := range slices.Sorted(maps.Keys(doc.Tables)) {
		tn, err := meta.ParseTableName(t)
		if err != nil {
			return nil, err
		}
		if err := add("t."+tn.String(), doc.Tables[t]); err != nil {
			return nil, err
		}
	}
	for _, ns := range slices.Sorted(maps.Keys(doc.Namespaces)) {
		if err := add("n."+ns, doc.Namespaces[ns]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// defaultSpaceReportPeriod is weir.quota.space.report.period's default.
const defaultSpaceReportPeriod = 5 * time.Second

// rebuildQuotaView brings hbase:quota up to date before a call returns, so
// that a client reading it next sees the change.
func (m *Master) rebuildQuotaView(ctx context.Context) {
	if err := m.quotaView.rebuild(ctx); err != nil {
		m.log.Warn("master: hbase:quota rebuild failed; the view catches up by watch", "err", err)
	}
}
