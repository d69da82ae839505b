package client

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
)

// Admin runs DDL through the active master's MasterService, and flush and
// compaction through each region server's AdminService.
type Admin struct{ c *Conn }

// Admin returns the connection's Admin.
func (c *Conn) Admin() *Admin { return &Admin{c: c} }

// TTLForever is HBase's HConstants.FOREVER: cells never expire.
const TTLForever = math.MaxInt32

// FamilyDescriptor is a column family's schema. Zero fields take HBase's
// defaults.
type FamilyDescriptor struct {
	Name string
	// MaxVersions (VERSIONS). Default 1.
	MaxVersions int
	// MinVersions (MIN_VERSIONS). Default 0.
	MinVersions int
	// TTL in seconds (TTL). Default TTLForever.
	TTL int
	// KeepDeletedCells (KEEP_DELETED_CELLS): "FALSE", "TRUE" or "TTL".
	// Default "FALSE".
	KeepDeletedCells string
	// BlockSize in bytes (BLOCKSIZE). Default 65536.
	BlockSize int
	// BloomFilter (BLOOMFILTER): "NONE", "ROW", "ROWCOL". Default "ROW".
	BloomFilter string
	// Compression (COMPRESSION). Default "NONE".
	Compression string
	// InMemory (IN_MEMORY). Default false.
	InMemory bool
	// DataBlockEncoding (DATA_BLOCK_ENCODING). Default "NONE".
	DataBlockEncoding string
}

// EnsureDefaults fills zero fields with HBase's defaults.
func (f *FamilyDescriptor) EnsureDefaults() {
	if f.MaxVersions == 0 {
		f.MaxVersions = 1
	}
	if f.TTL == 0 {
		f.TTL = TTLForever
	}
	if f.KeepDeletedCells == "" {
		f.KeepDeletedCells = "FALSE"
	}
	if f.BlockSize == 0 {
		f.BlockSize = 64 << 10
	}
	if f.BloomFilter == "" {
		f.BloomFilter = "ROW"
	}
	if f.Compression == "" {
		f.Compression = "NONE"
	}
	if f.DataBlockEncoding == "" {
		f.DataBlockEncoding = "NONE"
	}
}

// TableDescriptor is a table's schema.
type TableDescriptor struct {
	// Name is "ns:t", or "t" in the default namespace.
	Name     string
	Families []FamilyDescriptor
	// Durability of the table's writes (DURABILITY). Default: the
	// server's (DurabilityDefault).
	Durability Durability
	// MaxFileSize in bytes (MAX_FILESIZE), the split threshold; 0 is the
	// server's default.
	MaxFileSize int64
}

// RegionInfo is one region of a table and its server.
type RegionInfo struct {
	// Name is the region name ("<table>,<start>,<id>.<encoded>.").
	Name     []byte
	StartKey []byte
	EndKey   []byte
	// Server is host:port; "" when unassigned.
	Server string
}

// ClusterStatus is the master's view of the cluster.
type ClusterStatus struct {
	ClusterID string
	Version   string
	Master    string
	// Servers are the live region servers, host:port.
	Servers []string
	// DeadServers are the region servers known dead, host:port.
	DeadServers []string
}

var durabilityNames = []string{"USE_DEFAULT", "SKIP_WAL", "ASYNC_WAL", "SYNC_WAL", "FSYNC_WAL"}

func bbp(k, v string) *hbasepb.BytesBytesPair {
	return &hbasepb.BytesBytesPair{First: []byte(k), Second: []byte(v)}
}

// schemaPB writes a descriptor as HBase's Java client does: every family
// attribute spelled out as string bytes, defaults included.
func schemaPB(d TableDescriptor) (*hbasepb.TableSchema, error) {
	if d.Name == "" {
		return nil, invalidf("table descriptor has no name")
	}
	pb := &hbasepb.TableSchema{TableName: tableNamePB(normTable(d.Name))}
	if d.Durability != DurabilityDefault {
		if int(d.Durability) >= len(durabilityNames) {
			return nil, invalidf("table %s: unknown durability %d", d.Name, d.Durability)
		}
		pb.Attributes = append(pb.Attributes, bbp("DURABILITY", durabilityNames[d.Durability]))
	}
	if d.MaxFileSize > 0 {
		pb.Attributes = append(pb.Attributes, bbp("MAX_FILESIZE", strconv.FormatInt(d.MaxFileSize, 10)))
	}
	for _, f := range d.Families {
		if f.Name == "" {
			return nil, invalidf("table %s has a family without a name", d.Name)
		}
		f.EnsureDefaults()
		pb.ColumnFamilies = append(pb.ColumnFamilies, &hbasepb.ColumnFamilySchema{
			Name: []byte(f.Name),
			Attributes: []*hbasepb.BytesBytesPair{
				bbp("VERSIONS", strconv.Itoa(f.MaxVersions)),
				bbp("MIN_VERSIONS", strconv.Itoa(f.MinVersions)),
				bbp("TTL", strconv.Itoa(f.TTL)),
				bbp("KEEP_DELETED_CELLS", strings.ToUpper(f.KeepDeletedCells)),
				bbp("BLOCKSIZE", strconv.Itoa(f.BlockSize)),
				bbp("BLOOMFILTER", strings.ToUpper(f.BloomFilter)),
				bbp("COMPRESSION", strings.ToUpper(f.Compression)),
				bbp("IN_MEMORY", strconv.FormatBool(f.InMemory)),
				bbp("DATA_BLOCK_ENCODING", strings.ToUpper(f.DataBlockEncoding)),
				bbp("BLOCKCACHE", "true"),
				bbp("REPLICATION_SCOPE", "0"),
			},
		})
	}
	return pb, nil
}

// descriptorFromPB reads a TableSchema; unknown attributes are ignored.
func descriptorFromPB(pb *hbasepb.TableSchema) TableDescriptor {
	d := TableDescriptor{Name: tableString(pb.GetTableName())}
	for _, a := range pb.GetAttributes() {
		v := string(a.GetSecond())
		switch string(a.GetFirst()) {
		case "DURABILITY":
			for i, n := range durabilityNames {
				if strings.EqualFold(n, v) {
					d.Durability = Durability(i)
				}
			}
		case "MAX_FILESIZE":
			d.MaxFileSize, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	for _, cf := range pb.GetColumnFamilies() {
		f := FamilyDescriptor{Name: string(cf.GetName())}
		for _, a := range cf.GetAttributes() {
			v := strings.TrimSpace(string(a.GetSecond()))
			switch string(a.GetFirst()) {
			case "VERSIONS":
				f.MaxVersions, _ = strconv.Atoi(v)
			case "MIN_VERSIONS":
				f.MinVersions, _ = strconv.Atoi(v)
			case "TTL":
				if strings.EqualFold(v, "FOREVER") {
					f.TTL = TTLForever
				} else {
					f.TTL, _ = strconv.Atoi(v)
				}
			case "KEEP_DELETED_CELLS":
				f.KeepDeletedCells = strings.ToUpper(v)
			case "BLOCKSIZE":
				f.BlockSize, _ = strconv.Atoi(v)
			case "BLOOMFILTER":
				f.BloomFilter = v
			case "COMPRESSION":
				f.Compression = v
			case "IN_MEMORY":
				f.InMemory = strings.EqualFold(v, "true")
			case "DATA_BLOCK_ENCODING":
				f.DataBlockEncoding = v
			}
		}
		f.EnsureDefaults()
		d.Families = append(d.Families, f)
	}
	return d
}

// master calls a MasterService method on the active master, retrying
// (and rediscovering the master) on connection errors and PleaseHold.
func (a *Admin) master(ctx context.Context, method string, req, resp proto.Message) error {
	ctx, cancel := a.c.opContext(ctx)
	defer cancel()
	err := a.c.retry(ctx, method, func(ctx context.Context) error {
		err := a.c.call(ctx, a.c.masterAddr(), svcMaster, method, req, nil, resp, nil)
		if err != nil && classify(err) != retryNo {
			a.c.rediscover(ctx)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("client: %s: %w", method, err)
	}
	return nil
}

// waitProcedure polls getProcedureResult until the procedure finishes.
func (a *Admin) waitProcedure(ctx context.Context, procID *uint64) error {
	if procID == nil {
		return nil
	}
	for n := 1; ; n++ {
		var resp hbasepb.GetProcedureResultResponse
		if err := a.master(ctx, "getProcedureResult", &hbasepb.GetProcedureResultRequest{ProcId: procID}, &resp); err != nil {
			return err
		}
		switch resp.GetState() {
		case hbasepb.GetProcedureResultResponse_FINISHED, hbasepb.GetProcedureResultResponse_NOT_FOUND:
			if e := resp.GetException(); e != nil {
				return &RemoteError{Class: e.GetGenericException().GetClassName(), Message: e.GetGenericException().GetMessage()}
			}
			return nil
		}
		if err := a.sleep(ctx, n); err != nil {
			return err
		}
	}
}

// waitFor polls cond until it holds or the operation timeout passes.
func (a *Admin) waitFor(ctx context.Context, what string, cond func(ctx context.Context) (bool, error)) error {
	ctx, cancel := a.c.opContext(ctx)
	defer cancel()
	for n := 1; ; n++ {
		ok, err := cond(ctx)
		if err != nil {
			return fmt.Errorf("client: waiting for %s: %w", what, err)
		}
		if ok {
			return nil
		}
		if err := a.sleep(ctx, n); err != nil {
			return fmt.Errorf("client: waiting for %s: %w", what, err)
		}
	}
}

func (a *Admin) sleep(ctx context.Context, n int) error {
	t := time.NewTimer(min(a.c.backoff(n), time.Second))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// CreateNamespace creates a namespace.
func (a *Admin) CreateNamespace(ctx context.Context, name string) error {
	var resp hbasepb.CreateNamespaceResponse
	if err := a.master(ctx, "CreateNamespace", &hbasepb.CreateNamespaceRequest{
		NamespaceDescriptor: &hbasepb.NamespaceDescriptor{Name: []byte(name)}}, &resp); err != nil {
		return err
	}
	return a.waitProcedure(ctx, resp.ProcId)
}

// DeleteNamespace deletes an empty namespace.
func (a *Admin) DeleteNamespace(ctx context.Context, name string) error {
	var resp hbasepb.DeleteNamespaceResponse
	if err := a.master(ctx, "DeleteNamespace", &hbasepb.DeleteNamespaceRequest{NamespaceName: proto.String(name)}, &resp); err != nil {
		return err
	}
	return a.waitProcedure(ctx, resp.ProcId)
}

// ListNamespaces returns the namespaces' names.
func (a *Admin) ListNamespaces(ctx context.Context) ([]string, error) {
	var resp hbasepb.ListNamespaceDescriptorsResponse
	if err := a.master(ctx, "ListNamespaceDescriptors", &hbasepb.ListNamespaceDescriptorsRequest{}, &resp); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(resp.GetNamespaceDescriptor()))
	for _, ns := range resp.GetNamespaceDescriptor() {
		out = append(out, string(ns.GetName()))
	}
	return out, nil
}

// CreateTable creates a table, pre-split at splitKeys, and waits until
// every region is in hbase:meta with a server.
func (a *Admin) CreateTable(ctx context.Context, d TableDescriptor, splitKeys [][]byte) error {
	pb, err := schemaPB(d)
	if err != nil {
		return err
	}
	var resp hbasepb.CreateTableResponse
	if err := a.master(ctx, "CreateTable", &hbasepb.CreateTableRequest{TableSchema: pb, SplitKeys: splitKeys}, &resp); err != nil {
		return err
	}
	if err := a.waitProcedure(ctx, resp.ProcId); err != nil {
		return err
	}
	return a.waitOnline(ctx, normTable(d.Name), len(splitKeys)+1)
}

// waitOnline waits until table has at least n regions, all served.
func (a *Admin) waitOnline(ctx context.Context, table string, n int) error {
	a.c.regions.invalidateTable(table)
	return a.waitFor(ctx, table+" regions online", func(ctx context.Context) (bool, error) {
		regions, err := a.regions(ctx, table)
		if err != nil {
			if retryable(err) {
				return false, nil
			}
			return false, err
		}
		if len(regions) < n {
			return false, nil
		}
		for _, r := range regions {
			if r.Server == "" {
				return false, nil
			}
		}
		return true, nil
	})
}

func retryable(err error) bool {
	return classify(err) != retryNo || errors.Is(err, ErrRegionOffline) || errors.Is(err, ErrNoServerForRegion)
}

func (a *Admin) tableDDL(ctx context.Context, method string, req proto.Message, resp interface {
	proto.Message
	GetProcId() uint64
}) error {
	if err := a.master(ctx, method, req, resp); err != nil {
		return err
	}
	var id *uint64
	if resp.ProtoReflect().Has(resp.ProtoReflect().Descriptor().Fields().ByName("proc_id")) {
		id = proto.Uint64(resp.GetProcId())
	}
	return a.waitProcedure(ctx, id)
}

// DeleteTable deletes a disabled table and waits until it is gone.
func (a *Admin) DeleteTable(ctx context.Context, name string) error {
	name = normTable(name)
	defer a.c.regions.invalidateTable(name)
	if err := a.tableDDL(ctx, "DeleteTable", &hbasepb.DeleteTableRequest{TableName: tableNamePB(name)}, &hbasepb.DeleteTableResponse{}); err != nil {
		return err
	}
	return a.waitFor(ctx, name+" deleted", func(ctx context.Context) (bool, error) {
		ok, err := a.TableExists(ctx, name)
		return !ok, err
	})
}

// EnableTable enables a table and waits until its regions are online.
func (a *Admin) EnableTable(ctx context.Context, name string) error {
	name = normTable(name)
	if err := a.tableDDL(ctx, "EnableTable", &hbasepb.EnableTableRequest{TableName: tableNamePB(name)}, &hbasepb.EnableTableResponse{}); err != nil {
		return err
	}
	if err := a.waitState(ctx, name, hbasepb.TableState_ENABLED); err != nil {
		return err
	}
	return a.waitOnline(ctx, name, 1)
}

// DisableTable disables a table and waits until it is disabled.
func (a *Admin) DisableTable(ctx context.Context, name string) error {
	name = normTable(name)
	defer a.c.regions.invalidateTable(name)
	if err := a.tableDDL(ctx, "DisableTable", &hbasepb.DisableTableRequest{TableName: tableNamePB(name)}, &hbasepb.DisableTableResponse{}); err != nil {
		return err
	}
	return a.waitState(ctx, name, hbasepb.TableState_DISABLED)
}

func (a *Admin) waitState(ctx context.Context, name string, want hbasepb.TableState_State) error {
	return a.waitFor(ctx, fmt.Sprintf("%s %s", name, want), func(ctx context.Context) (bool, error) {
		st, err := a.tableState(ctx, name)
		return st == want, err
	})
}

// TruncateTable empties a disabled table (keeping its split points if
// preserveSplits) and waits until it is enabled again with its regions
// online.
func (a *Admin) TruncateTable(ctx context.Context, name string, preserveSplits bool) error {
	name = normTable(name)
	a.c.regions.invalidateTable(name)
	if err := a.tableDDL(ctx, "truncateTable", &hbasepb.TruncateTableRequest{TableName: tableNamePB(name),
		PreserveSplits: proto.Bool(preserveSplits)}, &hbasepb.TruncateTableResponse{}); err != nil {
		return err
	}
	if err := a.waitState(ctx, name, hbasepb.TableState_ENABLED); err != nil {
		return err
	}
	return a.waitOnline(ctx, name, 1)
}

// ModifyTable replaces a table's descriptor (d.Name names the table).
func (a *Admin) ModifyTable(ctx context.Context, d TableDescriptor) error {
	pb, err := schemaPB(d)
	if err != nil {
		return err
	}
	return a.tableDDL(ctx, "ModifyTable", &hbasepb.ModifyTableRequest{TableName: pb.TableName, TableSchema: pb}, &hbasepb.ModifyTableResponse{})
}

// DescribeTable returns a table's descriptor.
func (a *Admin) DescribeTable(ctx context.Context, name string) (TableDescriptor, error) {
	name = normTable(name)
	var resp hbasepb.GetTableDescriptorsResponse
	if err := a.master(ctx, "GetTableDescriptors", &hbasepb.GetTableDescriptorsRequest{
		TableNames: []*hbasepb.TableName{tableNamePB(name)}}, &resp); err != nil {
		return TableDescriptor{}, err
	}
	for _, s := range resp.GetTableSchema() {
		if tableString(s.GetTableName()) == name {
			return descriptorFromPB(s), nil
		}
	}
	return TableDescriptor{}, fmt.Errorf("client: describing %s: %w", name, ErrTableNotFound)
}

// ListTables returns the names of the user tables whose full name
// matches regex (a Java regular expression matched against the whole
// name; "" lists all).
func (a *Admin) ListTables(ctx context.Context, regex string) ([]string, error) {
	req := &hbasepb.GetTableNamesRequest{}
	if regex != "" {
		req.Regex = proto.String(regex)
	}
	var resp hbasepb.GetTableNamesResponse
	if err := a.master(ctx, "GetTableNames", req, &resp); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(resp.GetTableNames()))
	for _, tn := range resp.GetTableNames() {
		out = append(out, tableString(tn))
	}
	return out, nil
}

func (a *Admin) tableState(ctx context.Context, name string) (hbasepb.TableState_State, error) {
	var resp hbasepb.GetTableStateResponse
	if err := a.master(ctx, "GetTableState", &hbasepb.GetTableStateRequest{TableName: tableNamePB(normTable(name))}, &resp); err != nil {
		return 0, err
	}
	return resp.GetTableState().GetState(), nil
}

// TableExists reports whether the table exists.
func (a *Admin) TableExists(ctx context.Context, name string) (bool, error) {
	_, err := a.tableState(ctx, name)
	if errors.Is(err, ErrTableNotFound) {
		return false, nil
	}
	return err == nil, err
}

// IsTableEnabled reports whether the table is enabled.
func (a *Admin) IsTableEnabled(ctx context.Context, name string) (bool, error) {
	st, err := a.tableState(ctx, name)
	return st == hbasepb.TableState_ENABLED, err
}

// Regions returns a table's regions in key order, read from hbase:meta
// (not the cache).
func (a *Admin) Regions(ctx context.Context, table string) ([]RegionInfo, error) {
	ctx, cancel := a.c.opContext(ctx)
	defer cancel()
	var out []RegionInfo
	err := a.c.retry(ctx, "regions", func(ctx context.Context) error {
		var err error
		out, err = a.regions(ctx, normTable(table))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("client: regions of %s: %w", table, err)
	}
	return out, nil
}

// regions walks hbase:meta region by region, from the first.
func (a *Admin) regions(ctx context.Context, table string) ([]RegionInfo, error) {
	var out []RegionInfo
	var key []byte
	for {
		l, err := a.c.locateInMeta(ctx, table, key, false)
		if err != nil {
			return nil, err
		}
		a.c.regions.add(l)
		out = append(out, RegionInfo{Name: l.name, StartKey: l.start, EndKey: l.end, Server: l.server})
		if len(l.end) == 0 {
			return out, nil
		}
		key = l.end
	}
}

// Flush flushes every region of table.
func (a *Admin) Flush(ctx context.Context, table string) error {
	return a.eachRegion(ctx, table, "FlushRegion", func(spec *hbasepb.RegionSpecifier) (proto.Message, proto.Message) {
		return &hbasepb.FlushRegionRequest{Region: spec}, &hbasepb.FlushRegionResponse{}
	})
}

// Compact asks for a compaction of every region of table (major: with
// the garbage pass that drops what HBase's major compaction drops). As
// HBase's, it returns once the region servers have queued it; they compact
// in the background, and CompactionState says when they are done.
func (a *Admin) Compact(ctx context.Context, table string, major bool) error {
	return a.eachRegion(ctx, table, "CompactRegion", func(spec *hbasepb.RegionSpecifier) (proto.Message, proto.Message) {
		return &hbasepb.CompactRegionRequest{Region: spec, Major: proto.Bool(major)}, &hbasepb.CompactRegionResponse{}
	})
}

// CompactionState is what compacts in a table, as HBase's Admin
// getCompactionState reports it. Its values are HBase's, which are flags:
// MAJOR_AND_MINOR is MAJOR|MINOR.
type CompactionState int

// The compaction states, HBase's.
const (
	CompactionNone          = CompactionState(hbasepb.GetRegionInfoResponse_NONE)
	CompactionMinor         = CompactionState(hbasepb.GetRegionInfoResponse_MINOR)
	CompactionMajor         = CompactionState(hbasepb.GetRegionInfoResponse_MAJOR)
	CompactionMajorAndMinor = CompactionState(hbasepb.GetRegionInfoResponse_MAJOR_AND_MINOR)
)

func (s CompactionState) String() string {
	switch s {
	case CompactionNone, CompactionMinor, CompactionMajor, CompactionMajorAndMinor:
		return hbasepb.GetRegionInfoResponse_CompactionState(s).String()
	}
	return fmt.Sprintf("CompactionState(%d)", int(s))
}

// CompactionState reports the compactions running or queued in table's
// regions: NONE once every one that Compact asked for is done.
func (a *Admin) CompactionState(ctx context.Context, table string) (CompactionState, error) {
	st := CompactionNone
	var resp hbasepb.GetRegionInfoResponse
	err := a.eachRegionSeen(ctx, table, "GetRegionInfo", func(spec *hbasepb.RegionSpecifier) (proto.Message, proto.Message) {
		return &hbasepb.GetRegionInfoRequest{Region: spec, CompactionState: proto.Bool(true)}, &resp
	}, func() { st |= CompactionState(resp.GetCompactionState()) })
	if err != nil {
		return CompactionNone, err
	}
	return st, nil
}

func (a *Admin) eachRegion(ctx context.Context, table, method string, mk func(*hbasepb.RegionSpecifier) (proto.Message, proto.Message)) error {
	return a.eachRegionSeen(ctx, table, method, mk, nil)
}

// eachRegionSeen calls method on every region of table, with the request
// and response mk makes for it, and seen (if not nil) after each
// response.
func (a *Admin) eachRegionSeen(ctx context.Context, table, method string, mk func(*hbasepb.RegionSpecifier) (proto.Message, proto.Message),
	seen func()) error {
	regions, err := a.Regions(ctx, table)
	if err != nil {
		return err
	}
	ctx, cancel := a.c.opContext(ctx)
	defer cancel()
	for _, r := range regions {
		spec := &hbasepb.RegionSpecifier{Type: hbasepb.RegionSpecifier_REGION_NAME.Enum(), Value: r.Name}
		req, resp := mk(spec)
		err := a.c.retry(ctx, method, func(ctx context.Context) error {
			return a.c.call(ctx, r.Server, svcAdmin, method, req, nil, resp, nil)
		})
		if err != nil {
			return fmt.Errorf("client: %s of %s on %s: %w", method, r.Name, r.Server, err)
		}
		if seen != nil {
			seen()
		}
	}
	return nil
}

// ClusterStatus returns the master's view of the cluster.
func (a *Admin) ClusterStatus(ctx context.Context) (ClusterStatus, error) {
	var resp hbasepb.GetClusterStatusResponse
	if err := a.master(ctx, "GetClusterStatus", &hbasepb.GetClusterStatusRequest{}, &resp); err != nil {
		return ClusterStatus{}, err
	}
	cs := resp.GetClusterStatus()
	out := ClusterStatus{
		ClusterID: cs.GetClusterId().GetClusterId(),
		Version:   cs.GetHbaseVersion().GetVersion(),
		Master:    serverAddr(cs.GetMaster()),
	}
	for _, s := range cs.GetLiveServers() {
		out.Servers = append(out.Servers, serverAddr(s.GetServer()))
	}
	for _, s := range cs.GetDeadServers() {
		out.DeadServers = append(out.DeadServers, serverAddr(s))
	}
	return out, nil
}
