package meta

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/weirdb/weir/internal/region"
)

// Sentinel errors of the catalog.
var (
	ErrTableExists       = errors.New("meta: table exists")
	ErrTableNotFound     = errors.New("meta: table not found")
	ErrNamespaceExists   = errors.New("meta: namespace exists")
	ErrNamespaceNotFound = errors.New("meta: namespace not found")
	ErrNamespaceNotEmpty = errors.New("meta: namespace not empty")
	ErrTableNotDisabled  = errors.New("meta: table not disabled")
	ErrTableNotEnabled   = errors.New("meta: table not enabled")
	ErrConcurrentChange  = errors.New("meta: concurrent catalog change")
	ErrBadSplitKeys      = errors.New("meta: bad split keys")
	ErrSystemTable       = errors.New("meta: system table")
)

// TableState is HBase's TableState.State, with its protobuf numbers.
type TableState int

const (
	TableEnabled   TableState = 0
	TableDisabled  TableState = 1
	TableDisabling TableState = 2
	TableEnabling  TableState = 3
)

func (s TableState) String() string {
	switch s {
	case TableEnabled:
		return "ENABLED"
	case TableDisabled:
		return "DISABLED"
	case TableDisabling:
		return "DISABLING"
	case TableEnabling:
		return "ENABLING"
	}
	return "TableState(" + strconv.Itoa(int(s)) + ")"
}

// Table is a table's catalog record.
type Table struct {
	ID         uint32                 `json:"id"`
	Name       TableName              `json:"name"`
	Descriptor region.TableDescriptor `json:"descriptor"`
	State      TableState             `json:"state"`
	CreatedMs  int64                  `json:"created_ms"`
}

// Region is a region's catalog record: its range and where it is assigned.
type Region struct {
	TableID  uint32    `json:"table_id"`
	Table    TableName `json:"table"`
	StartKey []byte    `json:"start_key"`
	EndKey   []byte    `json:"end_key"`
	RegionID int64     `json:"region_id"`
	// Store is the id of the region server store that holds the region's
	// data: the assignment. It survives the server's restarts, on any
	// address; empty while unassigned.
	Store string `json:"store,omitempty"`
	// Server is the address ("host:port") of the live server with that
	// store, as clients find it in hbase:meta.
	Server string `json:"server,omitempty"`
	// StartCode is the assigned server's start code.
	StartCode int64 `json:"start_code,omitempty"`
	Offline   bool  `json:"offline,omitempty"`
	Split     bool  `json:"split,omitempty"`
	// OpenSeq increases at every assignment, HBase's seqnumDuringOpen.
	OpenSeq int64 `json:"open_seq,omitempty"`
}

// Name returns the region's HBase name and encoded name.
func (r *Region) Name() (name []byte, encoded string) {
	return RegionName(r.Table, r.StartKey, r.RegionID)
}

// Info returns what a region server needs to open the region.
func (r *Region) Info() region.Info {
	return region.Info{TableID: r.TableID, RegionID: r.RegionID, StartKey: r.StartKey, EndKey: r.EndKey}
}

// ContainsRow reports whether row falls in the region.
func (r *Region) ContainsRow(row []byte) bool {
	return bytes.Compare(row, r.StartKey) >= 0 && (len(r.EndKey) == 0 || bytes.Compare(row, r.EndKey) < 0)
}

// Namespace is a namespace's catalog record.
type Namespace struct {
	Name   string            `json:"name"`
	Config map[string]string `json:"config,omitempty"`
}

// ServerInfo is a live region server's registration.
type ServerInfo struct {
	Host      string `json:"host"`
	Port      int    `json:"port"`
	StartCode int64  `json:"start_code"`
	InfoPort  int    `json:"info_port"`
	// StoreID identifies the server's store (its data directory); it
	// stays the same across restarts.
	StoreID string `json:"store_id"`
	// HostID names the machine; co-located instances share it.
	HostID   string `json:"host_id"`
	Instance int    `json:"instance"`
}

// Addr is "host:port".
func (s ServerInfo) Addr() string { return s.Host + ":" + strconv.Itoa(s.Port) }

// Catalog reads and writes the catalog in etcd. It is safe for concurrent
// use; every multi-key change is one etcd transaction.
type Catalog struct {
	cli    *clientv3.Client
	prefix string
	now    func() time.Time
}

// New returns a catalog under prefix (default "/weir").
func New(cli *clientv3.Client, prefix string) *Catalog {
	if prefix == "" {
		prefix = "/weir"
	}
	return &Catalog{cli: cli, prefix: prefix, now: time.Now}
}

// Client returns the etcd client.
func (c *Catalog) Client() *clientv3.Client { return c.cli }

// Key layout (docs/format/etcd.md).
func (c *Catalog) key(parts ...string) string {
	return path.Join(append([]string{c.prefix}, parts...)...)
}

func (c *Catalog) clusterIDKey() string          { return c.key("cluster-id") }
func (c *Catalog) nextTableIDKey() string        { return c.key("next-table-id") }
func (c *Catalog) namespaceKey(ns string) string { return c.key("namespaces", ns) }
func (c *Catalog) tableKey(n TableName) string   { return c.key("tables", n.Full()) }

// ServersPrefix is where region servers register (with a lease).
func (c *Catalog) ServersPrefix() string { return c.key("servers") + "/" }

// RegionsPrefix is where region records live; region servers watch it.
func (c *Catalog) RegionsPrefix() string { return c.key("regions") + "/" }

// TablesPrefix is where table records live; region servers watch it for
// schema changes.
func (c *Catalog) TablesPrefix() string { return c.key("tables") + "/" }

// MasterPrefix is the master election's prefix.
func (c *Catalog) MasterPrefix() string { return c.key("master") + "/" }

func (c *Catalog) regionTablePrefix(tableID uint32) string {
	return c.RegionsPrefix() + fmt.Sprintf("%08x", tableID) + "/"
}

// RegionKey is the etcd key of a region record: the table id, then the
// start key in hex (hex keeps unsigned byte order, so a table's regions
// list in key order).
func (c *Catalog) RegionKey(r *Region) string {
	return c.regionTablePrefix(r.TableID) + hex.EncodeToString(r.StartKey)
}

// ClusterID returns the cluster's id, creating it on first use.
func (c *Catalog) ClusterID(ctx context.Context) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	id := fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
	k := c.clusterIDKey()
	resp, err := c.cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
		Then(clientv3.OpPut(k, id)).Else(clientv3.OpGet(k)).Commit()
	if err != nil {
		return "", fmt.Errorf("meta: cluster id: %w", err)
	}
	if resp.Succeeded {
		return id, nil
	}
	return string(resp.Responses[0].GetResponseRange().Kvs[0].Value), nil
}

// EnsureSystem creates the default and hbase namespaces if absent.
func (c *Catalog) EnsureSystem(ctx context.Context) error {
	for _, ns := range []string{DefaultNamespace, SystemNamespace} {
		if err := c.CreateNamespace(ctx, Namespace{Name: ns}); err != nil && !errors.Is(err, ErrNamespaceExists) {
			return err
		}
	}
	return nil
}

func putJSON(k string, v any) (clientv3.Op, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return clientv3.Op{}, err
	}
	return clientv3.OpPut(k, string(b)), nil
}

// CreateNamespace adds a namespace.
func (c *Catalog) CreateNamespace(ctx context.Context, ns Namespace) error {
	if err := ValidateNamespace(ns.Name); err != nil {
		return err
	}
	k := c.namespaceKey(ns.Name)
	op, err := putJSON(k, ns)
	if err != nil {
		return err
	}
	resp, err := c.cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).Then(op).Commit()
	if err != nil {
		return fmt.Errorf("meta: create namespace %q: %w", ns.Name, err)
	}
	if !resp.Succeeded {
		return fmt.Errorf("%w: %s", ErrNamespaceExists, ns.Name)
	}
	return nil
}

// ModifyNamespace replaces a namespace's configuration.
func (c *Catalog) ModifyNamespace(ctx context.Context, ns Namespace) error {
	k := c.namespaceKey(ns.Name)
	op, err := putJSON(k, ns)
	if err != nil {
		return err
	}
	resp, err := c.cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(k), ">", 0)).Then(op).Commit()
	if err != nil {
		return fmt.Errorf("meta: modify namespace %q: %w", ns.Name, err)
	}
	if !resp.Succeeded {
		return fmt.Errorf("%w: %s", ErrNamespaceNotFound, ns.Name)
	}
	return nil
}

// GetNamespace returns one namespace.
func (c *Catalog) GetNamespace(ctx context.Context, name string) (Namespace, error) {
	var ns Namespace
	resp, err := c.cli.Get(ctx, c.namespaceKey(name))
	if err != nil {
		return ns, fmt.Errorf("meta: get namespace %q: %w", name, err)
	}
	if len(resp.Kvs) == 0 {
		return ns, fmt.Errorf("%w: %s", ErrNamespaceNotFound, name)
	}
	return ns, json.Unmarshal(resp.Kvs[0].Value, &ns)
}

// ListNamespaces returns every namespace, by name.
func (c *Catalog) ListNamespaces(ctx context.Context) ([]Namespace, error) {
	resp, err := c.cli.Get(ctx, c.key("namespaces")+"/", clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("meta: list namespaces: %w", err)
	}
	out := make([]Namespace, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		var ns Namespace
		if err := json.Unmarshal(kv.Value, &ns); err != nil {
			return nil, fmt.Errorf("meta: namespace record %s: %w", kv.Key, err)
		}
		out = append(out, ns)
	}
	return out, nil
}

// DeleteNamespace removes an empty, non-built-in namespace.
func (c *Catalog) DeleteNamespace(ctx context.Context, name string) error {
	if name == DefaultNamespace || name == SystemNamespace {
		return fmt.Errorf("%w: namespace %q is built in", ErrInvalidName, name)
	}
	tables, err := c.ListTables(ctx)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if t.Name.Namespace == name {
			return fmt.Errorf("%w: %s holds table %s", ErrNamespaceNotEmpty, name, t.Name)
		}
	}
	resp, err := c.cli.Delete(ctx, c.namespaceKey(name))
	if err != nil {
		return fmt.Errorf("meta: delete namespace %q: %w", name, err)
	}
	if resp.Deleted == 0 {
		return fmt.Errorf("%w: %s", ErrNamespaceNotFound, name)
	}
	return nil
}

// CreateTable records a new table, enabled, with one region per range
// between sorted, distinct, non-empty split keys. The regions start
// unassigned. It fails with ErrTableExists or ErrNamespaceNotFound.
func (c *Catalog) CreateTable(ctx context.Context, name TableName, desc region.TableDescriptor, splitKeys [][]byte) (Table, []Region, error) {
	desc.Name = name.String()
	desc.EnsureDefaults()
	if err := desc.Validate(); err != nil {
		return Table{}, nil, err
	}
	for i, k := range splitKeys {
		if len(k) == 0 {
			return Table{}, nil, fmt.Errorf("%w: split key %d is empty", ErrBadSplitKeys, i)
		}
		if i > 0 && bytes.Compare(splitKeys[i-1], k) >= 0 {
			return Table{}, nil, fmt.Errorf("%w: split keys must be sorted and distinct (%q then %q)", ErrBadSplitKeys, splitKeys[i-1], k)
		}
	}
	if _, err := c.GetNamespace(ctx, name.Namespace); err != nil {
		return Table{}, nil, err
	}
	for attempt := 0; attempt < 10; attempt++ {
		idResp, err := c.cli.Get(ctx, c.nextTableIDKey())
		if err != nil {
			return Table{}, nil, fmt.Errorf("meta: create table %s: %w", name, err)
		}
		id := uint32(1)
		var idRev int64
		if len(idResp.Kvs) > 0 {
			n, err := strconv.ParseUint(string(idResp.Kvs[0].Value), 10, 32)
			if err != nil {
				return Table{}, nil, fmt.Errorf("meta: corrupt table id counter: %w", err)
			}
			id, idRev = uint32(n), idResp.Kvs[0].ModRevision
		}
		now := c.now()
		t := Table{ID: id, Name: name, Descriptor: desc, State: TableEnabled, CreatedMs: now.UnixMilli()}
		regions := make([]Region, 0, len(splitKeys)+1)
		start := []byte{}
		for i := 0; i <= len(splitKeys); i++ {
			var end []byte
			if i < len(splitKeys) {
				end = splitKeys[i]
			}
			regions = append(regions, Region{TableID: id, Table: name, StartKey: start, EndKey: end, RegionID: now.UnixMilli()})
			start = end
		}
		ops := []clientv3.Op{clientv3.OpPut(c.nextTableIDKey(), strconv.FormatUint(uint64(id)+1, 10))}
		op, err := putJSON(c.tableKey(name), t)
		if err != nil {
			return Table{}, nil, err
		}
		ops = append(ops, op)
		for i := range regions {
			op, err := putJSON(c.RegionKey(&regions[i]), regions[i])
			if err != nil {
				return Table{}, nil, err
			}
			ops = append(ops, op)
		}
		resp, err := c.cli.Txn(ctx).If(
			clientv3.Compare(clientv3.CreateRevision(c.tableKey(name)), "=", 0),
			clientv3.Compare(clientv3.ModRevision(c.nextTableIDKey()), "=", idRev),
		).Then(ops...).Commit()
		if err != nil {
			return Table{}, nil, fmt.Errorf("meta: create table %s: %w", name, err)
		}
		if resp.Succeeded {
			return t, regions, nil
		}
		if _, err := c.GetTable(ctx, name); err == nil {
			return Table{}, nil, fmt.Errorf("%w: %s", ErrTableExists, name)
		}
		// Another table took the id: try the next one.
	}
	return Table{}, nil, fmt.Errorf("%w: creating %s", ErrConcurrentChange, name)
}

// GetTable returns a table's record.
func (c *Catalog) GetTable(ctx context.Context, name TableName) (Table, error) {
	t, _, err := c.getTable(ctx, name)
	return t, err
}

func (c *Catalog) getTable(ctx context.Context, name TableName) (Table, int64, error) {
	var t Table
	resp, err := c.cli.Get(ctx, c.tableKey(name))
	if err != nil {
		return t, 0, fmt.Errorf("meta: get table %s: %w", name, err)
	}
	if len(resp.Kvs) == 0 {
		return t, 0, fmt.Errorf("%w: %s", ErrTableNotFound, name)
	}
	if err := json.Unmarshal(resp.Kvs[0].Value, &t); err != nil {
		return t, 0, fmt.Errorf("meta: table record %s: %w", name, err)
	}
	return t, resp.Kvs[0].ModRevision, nil
}

// ListTables returns every table, ordered by full name.
func (c *Catalog) ListTables(ctx context.Context) ([]Table, error) {
	resp, err := c.cli.Get(ctx, c.TablesPrefix(), clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("meta: list tables: %w", err)
	}
	out := make([]Table, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		var t Table
		if err := json.Unmarshal(kv.Value, &t); err != nil {
			return nil, fmt.Errorf("meta: table record %s: %w", kv.Key, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// UpdateTable applies fn to a table's record in a compare-and-swap loop.
func (c *Catalog) UpdateTable(ctx context.Context, name TableName, fn func(*Table) error) (Table, error) {
	for attempt := 0; attempt < 10; attempt++ {
		t, rev, err := c.getTable(ctx, name)
		if err != nil {
			return t, err
		}
		if err := fn(&t); err != nil {
			return t, err
		}
		op, err := putJSON(c.tableKey(name), t)
		if err != nil {
			return t, err
		}
		resp, err := c.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(c.tableKey(name)), "=", rev)).Then(op).Commit()
		if err != nil {
			return t, fmt.Errorf("meta: update table %s: %w", name, err)
		}
		if resp.Succeeded {
			return t, nil
		}
	}
	return Table{}, fmt.Errorf("%w: updating %s", ErrConcurrentChange, name)
}

// DeleteTable removes a disabled table's record and its regions.
func (c *Catalog) DeleteTable(ctx context.Context, name TableName) (Table, error) {
	t, rev, err := c.getTable(ctx, name)
	if err != nil {
		return t, err
	}
	if t.State != TableDisabled {
		return t, fmt.Errorf("%w: %s is %s", ErrTableNotDisabled, name, t.State)
	}
	resp, err := c.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(c.tableKey(name)), "=", rev)).
		Then(clientv3.OpDelete(c.tableKey(name)), clientv3.OpDelete(c.regionTablePrefix(t.ID), clientv3.WithPrefix())).Commit()
	if err != nil {
		return t, fmt.Errorf("meta: delete table %s: %w", name, err)
	}
	if !resp.Succeeded {
		return t, fmt.Errorf("%w: deleting %s", ErrConcurrentChange, name)
	}
	return t, nil
}

// ReplaceRegions atomically swaps a table's regions for new ones (truncate,
// split, merge), provided the table record is unchanged.
func (c *Catalog) ReplaceRegions(ctx context.Context, tableID uint32, remove []Region, add []Region) error {
	ops := make([]clientv3.Op, 0, len(remove)+len(add))
	for i := range remove {
		ops = append(ops, clientv3.OpDelete(c.RegionKey(&remove[i])))
	}
	for i := range add {
		op, err := putJSON(c.RegionKey(&add[i]), add[i])
		if err != nil {
			return err
		}
		ops = append(ops, op)
	}
	if _, err := c.cli.Txn(ctx).Then(ops...).Commit(); err != nil {
		return fmt.Errorf("meta: replace regions of table %d: %w", tableID, err)
	}
	return nil
}

// TableRegions returns a table's regions in key order.
func (c *Catalog) TableRegions(ctx context.Context, tableID uint32) ([]Region, error) {
	return c.listRegions(ctx, c.regionTablePrefix(tableID))
}

// AllRegions returns every region of every table.
func (c *Catalog) AllRegions(ctx context.Context) ([]Region, error) {
	return c.listRegions(ctx, c.RegionsPrefix())
}

func (c *Catalog) listRegions(ctx context.Context, prefix string) ([]Region, error) {
	resp, err := c.cli.Get(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("meta: list regions: %w", err)
	}
	out := make([]Region, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		var r Region
		if err := json.Unmarshal(kv.Value, &r); err != nil {
			return nil, fmt.Errorf("meta: region record %s: %w", kv.Key, err)
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Region) int {
		if a.TableID != b.TableID {
			return int(a.TableID) - int(b.TableID)
		}
		return bytes.Compare(a.StartKey, b.StartKey)
	})
	return out, nil
}

// PutRegion writes one region record (an assignment change).
func (c *Catalog) PutRegion(ctx context.Context, r Region) error {
	op, err := putJSON(c.RegionKey(&r), r)
	if err != nil {
		return err
	}
	if _, err := c.cli.Txn(ctx).Then(op).Commit(); err != nil {
		return fmt.Errorf("meta: put region: %w", err)
	}
	return nil
}

// DecodeRegion parses a region record's value (from a watch).
func DecodeRegion(v []byte) (Region, error) {
	var r Region
	err := json.Unmarshal(v, &r)
	return r, err
}

// RegisterServer records a live region server under a lease of ttl; the
// record vanishes when the lease expires (the server died). The caller
// keeps the lease alive.
func (c *Catalog) RegisterServer(ctx context.Context, s ServerInfo, ttl time.Duration) (clientv3.LeaseID, error) {
	lease, err := c.cli.Grant(ctx, int64(max(ttl/time.Second, 1)))
	if err != nil {
		return 0, fmt.Errorf("meta: register %s: %w", s.Addr(), err)
	}
	op, err := putJSON(c.ServersPrefix()+s.Addr(), s)
	if err != nil {
		return 0, err
	}
	if _, err := c.cli.Put(ctx, string(op.KeyBytes()), string(op.ValueBytes()), clientv3.WithLease(lease.ID)); err != nil {
		return 0, fmt.Errorf("meta: register %s: %w", s.Addr(), err)
	}
	return lease.ID, nil
}

// Servers returns the live region servers, by address.
func (c *Catalog) Servers(ctx context.Context) ([]ServerInfo, error) {
	resp, err := c.cli.Get(ctx, c.ServersPrefix(), clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("meta: list servers: %w", err)
	}
	out := make([]ServerInfo, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		var s ServerInfo
		if err := json.Unmarshal(kv.Value, &s); err != nil {
			return nil, fmt.Errorf("meta: server record %s: %w", kv.Key, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// TruncateTable replaces a disabled table's regions by fresh, unassigned
// ones (with the same split points if preserveSplits) under a new table id,
// so the old data's keys are orphaned for the region servers to clear. The
// table comes back disabled; the caller enables it.
func (c *Catalog) TruncateTable(ctx context.Context, name TableName, preserveSplits bool) (Table, []Region, error) {
	t, rev, err := c.getTable(ctx, name)
	if err != nil {
		return t, nil, err
	}
	if t.State != TableDisabled {
		return t, nil, fmt.Errorf("%w: %s is %s", ErrTableNotDisabled, name, t.State)
	}
	old, err := c.TableRegions(ctx, t.ID)
	if err != nil {
		return t, nil, err
	}
	var splits [][]byte
	if preserveSplits {
		for _, r := range old[1:] {
			splits = append(splits, r.StartKey)
		}
	}
	idResp, err := c.cli.Get(ctx, c.nextTableIDKey())
	if err != nil || len(idResp.Kvs) == 0 {
		return t, nil, fmt.Errorf("meta: truncate %s: reading the table id counter: %v", name, err)
	}
	n, err := strconv.ParseUint(string(idResp.Kvs[0].Value), 10, 32)
	if err != nil {
		return t, nil, fmt.Errorf("meta: corrupt table id counter: %w", err)
	}
	oldID := t.ID
	t.ID = uint32(n)
	now := c.now().UnixMilli()
	regions := make([]Region, 0, len(splits)+1)
	start := []byte{}
	for i := 0; i <= len(splits); i++ {
		var end []byte
		if i < len(splits) {
			end = splits[i]
		}
		regions = append(regions, Region{TableID: t.ID, Table: name, StartKey: start, EndKey: end, RegionID: now})
		start = end
	}
	ops := []clientv3.Op{
		clientv3.OpPut(c.nextTableIDKey(), strconv.FormatUint(n+1, 10)),
		clientv3.OpDelete(c.regionTablePrefix(oldID), clientv3.WithPrefix()),
	}
	op, err := putJSON(c.tableKey(name), t)
	if err != nil {
		return t, nil, err
	}
	ops = append(ops, op)
	for i := range regions {
		op, err := putJSON(c.RegionKey(&regions[i]), regions[i])
		if err != nil {
			return t, nil, err
		}
		ops = append(ops, op)
	}
	resp, err := c.cli.Txn(ctx).If(
		clientv3.Compare(clientv3.ModRevision(c.tableKey(name)), "=", rev),
		clientv3.Compare(clientv3.ModRevision(c.nextTableIDKey()), "=", idResp.Kvs[0].ModRevision),
	).Then(ops...).Commit()
	if err != nil {
		return t, nil, fmt.Errorf("meta: truncate %s: %w", name, err)
	}
	if !resp.Succeeded {
		return t, nil, fmt.Errorf("%w: truncating %s", ErrConcurrentChange, name)
	}
	return t, regions, nil
}

// SetEnabled enables or disables a table: its state and its regions'
// offline flags change in one transaction, so region servers close (or
// reopen) them. A disabled region keeps its server, where its data is.
func (c *Catalog) SetEnabled(ctx context.Context, name TableName, enabled bool) (Table, error) {
	t, rev, err := c.getTable(ctx, name)
	if err != nil {
		return t, err
	}
	switch {
	case enabled && t.State == TableEnabled:
		return t, fmt.Errorf("%w: %s is already enabled", ErrTableNotDisabled, name)
	case !enabled && t.State == TableDisabled:
		return t, fmt.Errorf("%w: %s is already disabled", ErrTableNotEnabled, name)
	}
	regions, err := c.TableRegions(ctx, t.ID)
	if err != nil {
		return t, err
	}
	t.State = TableDisabled
	if enabled {
		t.State = TableEnabled
	}
	op, err := putJSON(c.tableKey(name), t)
	if err != nil {
		return t, err
	}
	ops := []clientv3.Op{op}
	for i := range regions {
		if regions[i].Split {
			continue
		}
		regions[i].Offline = !enabled
		op, err := putJSON(c.RegionKey(&regions[i]), regions[i])
		if err != nil {
			return t, err
		}
		ops = append(ops, op)
	}
	resp, err := c.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(c.tableKey(name)), "=", rev)).Then(ops...).Commit()
	if err != nil {
		return t, fmt.Errorf("meta: set %s enabled=%v: %w", name, enabled, err)
	}
	if !resp.Succeeded {
		return t, fmt.Errorf("%w: %s", ErrConcurrentChange, name)
	}
	return t, nil
}
