package master

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/clientsvc"
	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/region"
)

// HBaseVersion is the HBase version Weir reports: the protocol it speaks.
const HBaseVersion = "2.6.4"

// masterService is the part of HBase's MasterService Weir implements:
// table and namespace DDL, descriptors, table state, procedure results and
// cluster status. Any other method is refused by name, never faked.
type masterService struct{ m *Master }

// metaRegions serves hbase:meta, the only region on the master.
type metaRegions struct{ m *Master }

func (mr metaRegions) Region(name []byte, encoded bool) (*region.Region, error) {
	if (!encoded && string(name) == string(MetaRegionName)) || (encoded && string(name) == MetaEncodedName) {
		return mr.m.meta.region(), nil
	}
	if mr.m.quotaView != nil && ((!encoded && string(name) == string(quotaRegionName)) || (encoded && string(name) == quotaEncodedName)) {
		return mr.m.quotaView.r, nil
	}
	return nil, clientsvc.ErrNotServing
}

func newMetaClientService(m *Master) *clientsvc.Service {
	m.metaClient = clientsvc.New(metaRegions{m}, time.Minute, m.log)
	return m.metaClient
}

// handler is one MasterService method.
type handler func(ctx context.Context, m *Master, param []byte) (proto.Message, error)

func decode[T proto.Message](param []byte, msg T) (T, error) {
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(param, msg); err != nil {
		return msg, hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "malformed request: %v", err)
	}
	return msg, nil
}

var masterMethods = map[string]handler{
	"IsMasterRunning": func(_ context.Context, m *Master, _ []byte) (proto.Message, error) {
		return &hbasepb.IsMasterRunningResponse{IsMasterRunning: proto.Bool(m.active.Load())}, nil
	},
	"CreateTable":              createTable,
	"DeleteTable":              deleteTable,
	"EnableTable":              enableTable,
	"DisableTable":             disableTable,
	"truncateTable":            truncateTable,
	"ModifyTable":              modifyTable,
	"GetTableDescriptors":      getTableDescriptors,
	"GetTableNames":            getTableNames,
	"GetTableState":            getTableState,
	"CreateNamespace":          createNamespace,
	"DeleteNamespace":          deleteNamespace,
	"ModifyNamespace":          modifyNamespace,
	"GetNamespaceDescriptor":   getNamespaceDescriptor,
	"ListNamespaceDescriptors": listNamespaceDescriptors,
	"ListNamespaces":           listNamespaces,
	"ListTableDescriptorsByNamespace": func(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
		req, err := decode(p, &hbasepb.ListTableDescriptorsByNamespaceRequest{})
		if err != nil {
			return nil, err
		}
		tables, err := m.tablesIn(ctx, req.GetNamespaceName())
		if err != nil {
			return nil, err
		}
		out := &hbasepb.ListTableDescriptorsByNamespaceResponse{}
		for _, t := range tables {
			out.TableSchema = append(out.TableSchema, hbaseconv.TableDescriptorToPB(t.Name, t.Descriptor))
		}
		return out, nil
	},
	"ListTableNamesByNamespace": func(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
		req, err := decode(p, &hbasepb.ListTableNamesByNamespaceRequest{})
		if err != nil {
			return nil, err
		}
		tables, err := m.tablesIn(ctx, req.GetNamespaceName())
		if err != nil {
			return nil, err
		}
		out := &hbasepb.ListTableNamesByNamespaceResponse{}
		for _, t := range tables {
			out.TableName = append(out.TableName, hbaseconv.TableNameToPB(t.Name))
		}
		return out, nil
	},
	"getProcedureResult": getProcedureResult,
	"GetClusterStatus":   getClusterStatus,
}

func (s masterService) Serve(ctx context.Context, c *hbaserpc.Call) (hbaserpc.Response, error) {
	h, ok := masterMethods[c.Method]
	if !ok {
		return hbaserpc.Response{}, hbaserpc.Errorf(hbaserpc.UnsupportedOperation, true,
			"MasterService.%s is not supported by Weir yet", c.Method)
	}
	if c.Method != "IsMasterRunning" && !s.m.active.Load() {
		return hbaserpc.Response{}, hbaserpc.Errorf(hbaserpc.PleaseHold, false, "this master is a backup; the active one is %s",
			s.m.activeMaster(ctx))
	}
	msg, err := h(ctx, s.m, c.Param)
	if err != nil {
		return hbaserpc.Response{}, masterError(err)
	}
	return hbaserpc.Response{Msg: msg}, nil
}

// masterError maps catalog errors onto the exceptions HBase's Admin throws.
func masterError(err error) error {
	var re *hbaserpc.Error
	switch {
	case errors.As(err, &re):
		return re
	case errors.Is(err, meta.ErrTableExists):
		return hbaserpc.Errorf(hbaserpc.TableExists, true, "%v", err)
	case errors.Is(err, meta.ErrTableNotFound):
		return hbaserpc.Errorf(hbaserpc.TableNotFound, true, "%v", err)
	case errors.Is(err, meta.ErrTableNotDisabled):
		return hbaserpc.Errorf(hbaserpc.TableNotDisabled, true, "%v", err)
	case errors.Is(err, meta.ErrTableNotEnabled):
		return hbaserpc.Errorf(hbaserpc.TableNotEnabled, true, "%v", err)
	case errors.Is(err, meta.ErrNamespaceNotFound):
		return hbaserpc.Errorf(hbaserpc.NamespaceNotFound, true, "%v", err)
	case errors.Is(err, meta.ErrNamespaceExists):
		return hbaserpc.Errorf(hbaserpc.NamespaceExist, true, "%v", err)
	case errors.Is(err, meta.ErrInvalidName), errors.Is(err, meta.ErrBadSplitKeys), errors.Is(err, meta.ErrNamespaceNotEmpty),
		errors.Is(err, region.ErrInvalidArgument), errors.Is(err, hbaseconv.ErrInvalid), errors.Is(err, meta.ErrSystemTable):
		return hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "%v", err)
	}
	return hbaserpc.Errorf(hbaserpc.IOException, false, "%v", err)
}

func tableNameOf(pb *hbasepb.TableName) (meta.TableName, error) {
	tn, err := hbaseconv.TableNameFromPB(pb)
	if err != nil {
		return tn, err
	}
	if tn.IsSystem() {
		return tn, hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "%s is a system table; Weir serves it as a view of its catalog", tn)
	}
	return tn, nil
}

func createTable(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.CreateTableRequest{})
	if err != nil {
		return nil, err
	}
	name, desc, err := hbaseconv.TableDescriptorFromPB(req.GetTableSchema())
	if err != nil {
		return nil, err
	}
	if name.IsSystem() {
		return nil, hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "cannot create table %s in the system namespace", name)
	}
	t, _, err := m.catalog.CreateTable(ctx, name, desc, req.GetSplitKeys())
	if err != nil {
		return nil, err
	}
	m.changed(ctx)
	m.waitTableOnline(ctx, t)
	return &hbasepb.CreateTableResponse{ProcId: proto.Uint64(m.procs.finish(nil))}, nil
}

func deleteTable(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.DeleteTableRequest{})
	if err != nil {
		return nil, err
	}
	name, err := tableNameOf(req.GetTableName())
	if err != nil {
		return nil, err
	}
	if _, err := m.catalog.DeleteTable(ctx, name); err != nil {
		return nil, err
	}
	m.changed(ctx)
	return &hbasepb.DeleteTableResponse{ProcId: proto.Uint64(m.procs.finish(nil))}, nil
}

func enableTable(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.EnableTableRequest{})
	if err != nil {
		return nil, err
	}
	name, err := tableNameOf(req.GetTableName())
	if err != nil {
		return nil, err
	}
	t, err := m.catalog.SetEnabled(ctx, name, true)
	if err != nil {
		return nil, err
	}
	m.changed(ctx)
	m.waitTableOnline(ctx, t)
	return &hbasepb.EnableTableResponse{ProcId: proto.Uint64(m.procs.finish(nil))}, nil
}

func disableTable(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.DisableTableRequest{})
	if err != nil {
		return nil, err
	}
	name, err := tableNameOf(req.GetTableName())
	if err != nil {
		return nil, err
	}
	if _, err := m.catalog.SetEnabled(ctx, name, false); err != nil {
		return nil, err
	}
	m.changed(ctx)
	return &hbasepb.DisableTableResponse{ProcId: proto.Uint64(m.procs.finish(nil))}, nil
}

// truncateTable empties a disabled table (HBase's truncate: the table ends
// enabled, with fresh regions).
func truncateTable(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.TruncateTableRequest{})
	if err != nil {
		return nil, err
	}
	name, err := tableNameOf(req.GetTableName())
	if err != nil {
		return nil, err
	}
	if _, _, err := m.catalog.TruncateTable(ctx, name, req.GetPreserveSplits()); err != nil {
		return nil, err
	}
	t, err := m.catalog.SetEnabled(ctx, name, true)
	if err != nil {
		return nil, err
	}
	m.changed(ctx)
	m.waitTableOnline(ctx, t)
	return &hbasepb.TruncateTableResponse{ProcId: proto.Uint64(m.procs.finish(nil))}, nil
}

func modifyTable(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.ModifyTableRequest{})
	if err != nil {
		return nil, err
	}
	name, err := tableNameOf(req.GetTableName())
	if err != nil {
		return nil, err
	}
	_, desc, err := hbaseconv.TableDescriptorFromPB(req.GetTableSchema())
	if err != nil {
		return nil, err
	}
	desc.Name = name.String()
	desc.EnsureDefaults()
	if err := desc.Validate(); err != nil {
		return nil, err
	}
	if _, err := m.catalog.UpdateTable(ctx, name, func(t *meta.Table) error { t.Descriptor = desc; return nil }); err != nil {
		return nil, err
	}
	m.changed(ctx)
	return &hbasepb.ModifyTableResponse{ProcId: proto.Uint64(m.procs.finish(nil))}, nil
}

// systemTables are listed for include_sys_tables requests.
func (m *Master) systemTables() []meta.Table {
	return []meta.Table{{Name: meta.MetaTable, Descriptor: metaDescriptor, State: meta.TableEnabled},
		{Name: QuotaTable, Descriptor: quotaDescriptor, State: meta.TableEnabled}}
}

func getTableDescriptors(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.GetTableDescriptorsRequest{})
	if err != nil {
		return nil, err
	}
	tables, err := m.catalog.ListTables(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetIncludeSysTables() || len(req.GetTableNames()) > 0 {
		tables = append(tables, m.systemTables()...)
	}
	tables, err = filterTables(tables, req.Regex, req.Namespace)
	if err != nil {
		return nil, err
	}
	out := &hbasepb.GetTableDescriptorsResponse{}
	if names := req.GetTableNames(); len(names) > 0 {
		for _, pn := range names {
			tn, err := hbaseconv.TableNameFromPB(pn)
			if err != nil {
				return nil, err
			}
			for _, t := range tables {
				if t.Name == tn {
					out.TableSchema = append(out.TableSchema, hbaseconv.TableDescriptorToPB(t.Name, t.Descriptor))
				}
			}
		}
		return out, nil
	}
	for _, t := range tables {
		out.TableSchema = append(out.TableSchema, hbaseconv.TableDescriptorToPB(t.Name, t.Descriptor))
	}
	return out, nil
}

func getTableNames(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.GetTableNamesRequest{})
	if err != nil {
		return nil, err
	}
	tables, err := m.catalog.ListTables(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetIncludeSysTables() {
		tables = append(tables, m.systemTables()...)
	}
	if tables, err = filterTables(tables, req.Regex, req.Namespace); err != nil {
		return nil, err
	}
	out := &hbasepb.GetTableNamesResponse{}
	for _, t := range tables {
		out.TableNames = append(out.TableNames, hbaseconv.TableNameToPB(t.Name))
	}
	return out, nil
}

// filterTables keeps the tables whose full name matches regex (Java's
// matches(): the whole name) and that live in namespace, when given.
func filterTables(tables []meta.Table, regex, namespace *string) ([]meta.Table, error) {
	var re *regexp.Regexp
	if regex != nil && *regex != "" {
		var err error
		if re, err = regexp.Compile("^(?:" + *regex + ")$"); err != nil {
			return nil, hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "bad table name pattern %q: %v", *regex, err)
		}
	}
	out := tables[:0:0]
	for _, t := range tables {
		if namespace != nil && *namespace != "" && t.Name.Namespace != *namespace {
			continue
		}
		if re != nil && !re.MatchString(t.Name.String()) {
			continue
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b meta.Table) int {
		if a.Name.Full() < b.Name.Full() {
			return -1
		}
		if a.Name.Full() > b.Name.Full() {
			return 1
		}
		return 0
	})
	return out, nil
}

func getTableState(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.GetTableStateRequest{})
	if err != nil {
		return nil, err
	}
	tn, err := hbaseconv.TableNameFromPB(req.GetTableName())
	if err != nil {
		return nil, err
	}
	state := meta.TableEnabled
	if !tn.IsSystem() {
		t, err := m.catalog.GetTable(ctx, tn)
		if err != nil {
			return nil, err
		}
		state = t.State
	}
	ts, err := hbaseconv.TableStateToPB(state)
	if err != nil {
		return nil, err
	}
	return &hbasepb.GetTableStateResponse{TableState: ts}, nil
}

func (m *Master) tablesIn(ctx context.Context, ns string) ([]meta.Table, error) {
	if _, err := m.catalog.GetNamespace(ctx, ns); err != nil {
		return nil, err
	}
	tables, err := m.catalog.ListTables(ctx)
	if err != nil {
		return nil, err
	}
	return filterTables(tables, nil, &ns)
}

func createNamespace(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.CreateNamespaceRequest{})
	if err != nil {
		return nil, err
	}
	ns, err := hbaseconv.NamespaceFromPB(req.GetNamespaceDescriptor())
	if err != nil {
		return nil, err
	}
	if err := m.catalog.CreateNamespace(ctx, ns); err != nil {
		return nil, err
	}
	return &hbasepb.CreateNamespaceResponse{ProcId: proto.Uint64(m.procs.finish(nil))}, nil
}

func deleteNamespace(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.DeleteNamespaceRequest{})
	if err != nil {
		return nil, err
	}
	if err := m.catalog.DeleteNamespace(ctx, req.GetNamespaceName()); err != nil {
		return nil, err
	}
	return &hbasepb.DeleteNamespaceResponse{ProcId: proto.Uint64(m.procs.finish(nil))}, nil
}

func modifyNamespace(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.ModifyNamespaceRequest{})
	if err != nil {
		return nil, err
	}
	ns, err := hbaseconv.NamespaceFromPB(req.GetNamespaceDescriptor())
	if err != nil {
		return nil, err
	}
	if err := m.catalog.ModifyNamespace(ctx, ns); err != nil {
		return nil, err
	}
	return &hbasepb.ModifyNamespaceResponse{ProcId: proto.Uint64(m.procs.finish(nil))}, nil
}

func getNamespaceDescriptor(ctx context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.GetNamespaceDescriptorRequest{})
	if err != nil {
		return nil, err
	}
	ns, err := m.catalog.GetNamespace(ctx, req.GetNamespaceName())
	if err != nil {
		return nil, err
	}
	return &hbasepb.GetNamespaceDescriptorResponse{NamespaceDescriptor: hbaseconv.NamespaceToPB(ns)}, nil
}

func listNamespaceDescriptors(ctx context.Context, m *Master, _ []byte) (proto.Message, error) {
	list, err := m.catalog.ListNamespaces(ctx)
	if err != nil {
		return nil, err
	}
	out := &hbasepb.ListNamespaceDescriptorsResponse{}
	for _, ns := range list {
		out.NamespaceDescriptor = append(out.NamespaceDescriptor, hbaseconv.NamespaceToPB(ns))
	}
	return out, nil
}

func listNamespaces(ctx context.Context, m *Master, _ []byte) (proto.Message, error) {
	list, err := m.catalog.ListNamespaces(ctx)
	if err != nil {
		return nil, err
	}
	out := &hbasepb.ListNamespacesResponse{}
	for _, ns := range list {
		out.NamespaceName = append(out.NamespaceName, ns.Name)
	}
	return out, nil
}

func getProcedureResult(_ context.Context, m *Master, p []byte) (proto.Message, error) {
	req, err := decode(p, &hbasepb.GetProcedureResultRequest{})
	if err != nil {
		return nil, err
	}
	res, ok := m.procs.result(req.GetProcId())
	if !ok {
		return &hbasepb.GetProcedureResultResponse{State: hbasepb.GetProcedureResultResponse_NOT_FOUND.Enum()}, nil
	}
	t := uint64(res.finished.UnixMilli())
	return &hbasepb.GetProcedureResultResponse{State: hbasepb.GetProcedureResultResponse_FINISHED.Enum(),
		SubmittedTime: &t, LastUpdate: &t}, nil
}

func getClusterStatus(ctx context.Context, m *Master, _ []byte) (proto.Message, error) {
	servers, err := m.catalog.Servers(ctx)
	if err != nil {
		return nil, err
	}
	cs := &hbasepb.ClusterStatus{
		HbaseVersion: &hbasepb.HBaseVersionFileContent{Version: proto.String(HBaseVersion)},
		ClusterId:    &hbasepb.ClusterId{ClusterId: proto.String(m.clusterID)},
		Master:       m.serverName(),
		BalancerOn:   proto.Bool(m.bal.enabled.Load()),
	}
	for _, s := range servers {
		cs.LiveServers = append(cs.LiveServers, &hbasepb.LiveServerInfo{
			Server:     hbaseconv.ServerNameToPB(s),
			ServerLoad: &hbasepb.ServerLoad{InfoServerPort: proto.Uint32(uint32(s.InfoPort))},
		})
		cs.ServersName = append(cs.ServersName, hbaseconv.ServerNameToPB(s))
	}
	return &hbasepb.GetClusterStatusResponse{ClusterStatus: cs}, nil
}

// changed runs an assignment pass and rebuilds hbase:meta before a DDL call
// returns, as HBase's procedures finish with the regions assigned and meta
// updated: a client that creates a table and at once asks tableExists or
// getRegions sees the new state. The background loops would get there too,
// a moment later.
func (m *Master) changed(ctx context.Context) {
	if err := m.assignOnce(ctx); err != nil {
		m.log.Warn("master: assignment after DDL failed; the assignment loop retries", "err", err)
	}
	if err := m.meta.rebuild(ctx); err != nil {
		m.log.Warn("master: hbase:meta rebuild after DDL failed; the view catches up by watch", "err", err)
	}
}
