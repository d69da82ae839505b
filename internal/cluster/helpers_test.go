package cluster

// A small test-only HBase client over internal/hbaserpc: it finds regions
// the way HBase's client does (a reversed scan of hbase:meta), caches one
// connection per (server, service), and follows regions across boundaries
// for scans. It is deliberately simple: no location cache (every operation
// looks its region up again), a few retries on NotServingRegionException.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/region"
	"github.com/weirdb/weir/internal/regionserver"
	"github.com/weirdb/weir/internal/storage"
)

// metaRegionName is the region every hbase:meta request names.
var metaRegionName = []byte("hbase:meta,,1")

// nines is HConstants.NINES, the region id suffix of a meta lookup.
const nines = "99999999999999"

type testClient struct {
	t          testing.TB
	masterAddr string
	mu         sync.Mutex
	conns      map[string]*hbaserpc.ClientConn
}

// newClient returns a client bootstrapped from the master at addr. Its
// connections close when the test ends.
func newClient(t testing.TB, masterAddr string) *testClient {
	c := &testClient{t: t, masterAddr: masterAddr, conns: map[string]*hbaserpc.ClientConn{}}
	t.Cleanup(c.close)
	return c
}

func (c *testClient) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, cc := range c.conns {
		_ = cc.Close()
		delete(c.conns, k)
	}
}

// conn returns the cached connection for (addr, service), dialling a new
// one if there is none or the cached one broke.
func (c *testClient) conn(ctx context.Context, addr, service string) (*hbaserpc.ClientConn, error) {
	key := service + "@" + addr
	c.mu.Lock()
	defer c.mu.Unlock()
	if cc := c.conns[key]; cc != nil {
		if cc.Err() == nil {
			return cc, nil
		}
		_ = cc.Close()
		delete(c.conns, key)
	}
	cc, err := hbaserpc.Dial(ctx, addr, hbaserpc.DialOptions{User: "test", Service: service, DialTimeout: 3 * time.Second})
	if err != nil {
		return nil, err
	}
	c.conns[key] = cc
	return cc, nil
}

// call makes one call on (addr, service).
func (c *testClient) call(ctx context.Context, addr, service, method string, req proto.Message, reqCells []cell.Cell, resp proto.Message) ([]cell.Cell, error) {
	cc, err := c.conn(ctx, addr, service)
	if err != nil {
		return nil, err
	}
	return cc.Call(ctx, method, req, reqCells, resp)
}

// masterCall calls MasterService on the bootstrap master.
func (c *testClient) masterCall(ctx context.Context, method string, req, resp proto.Message) error {
	_, err := c.call(ctx, c.masterAddr, "MasterService", method, req, nil, resp)
	return err
}

// ---- DDL ----

func tableName(s string) meta.TableName {
	tn, err := meta.ParseTableName(s)
	if err != nil {
		panic(err)
	}
	return tn
}

func families(names ...string) []region.FamilyDescriptor {
	out := make([]region.FamilyDescriptor, len(names))
	for i, n := range names {
		out[i] = region.FamilyDescriptor{Name: []byte(n), MaxVersions: 1}
	}
	return out
}

// createTable creates table with the given families and split keys and
// waits until every region has a server in hbase:meta.
func (c *testClient) createTable(ctx context.Context, table string, fams []region.FamilyDescriptor, splits ...[]byte) error {
	tn := tableName(table)
	desc := region.TableDescriptor{Name: tn.String(), Families: fams}
	desc.EnsureDefaults()
	req := &hbasepb.CreateTableRequest{TableSchema: hbaseconv.TableDescriptorToPB(tn, desc), SplitKeys: splits}
	if err := c.masterCall(ctx, "CreateTable", req, &hbasepb.CreateTableResponse{}); err != nil {
		return err
	}
	return c.waitAssigned(ctx, table, len(splits)+1)
}

// waitAssigned waits until table has n regions in meta, each with a server.
func (c *testClient) waitAssigned(ctx context.Context, table string, n int) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		locs, err := c.regions(ctx, table)
		if err == nil && len(locs) == n {
			ok := true
			for _, l := range locs {
				ok = ok && l.Server != ""
			}
			if ok {
				// Meta names the server before the server has opened the
				// region; a Get through onRegion retries until it serves,
				// so tests that send raw requests do not meet
				// NotServingRegionException.
				for _, l := range locs {
					if _, err := c.get(ctx, table, region.Get{Row: append(bytes.Clone(l.Region.StartKey), 0)}); err != nil {
						return fmt.Errorf("table %s: region %s not serving: %w", table, l.Name, err)
					}
				}
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("table %s: %d regions in meta (err %v), want %d assigned", table, len(locs), err, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (c *testClient) disableTable(ctx context.Context, table string) error {
	return c.masterCall(ctx, "DisableTable", &hbasepb.DisableTableRequest{TableName: hbaseconv.TableNameToPB(tableName(table))},
		&hbasepb.DisableTableResponse{})
}

func (c *testClient) enableTable(ctx context.Context, table string) error {
	return c.masterCall(ctx, "EnableTable", &hbasepb.EnableTableRequest{TableName: hbaseconv.TableNameToPB(tableName(table))},
		&hbasepb.EnableTableResponse{})
}

func (c *testClient) deleteTable(ctx context.Context, table string) error {
	return c.masterCall(ctx, "DeleteTable", &hbasepb.DeleteTableRequest{TableName: hbaseconv.TableNameToPB(tableName(table))},
		&hbasepb.DeleteTableResponse{})
}

// ---- hbase:meta ----

// location is one region as hbase:meta describes it.
type location struct {
	Region meta.Region
	Name   []byte // region name
	Server string // "host:port"; "" when unassigned
}

func (l location) contains(row []byte) bool {
	return bytes.Compare(row, l.Region.StartKey) >= 0 && (len(l.Region.EndKey) == 0 || bytes.Compare(row, l.Region.EndKey) < 0)
}

// metaScan runs one scan of hbase:meta on the master, returning every row.
func (c *testClient) metaScan(ctx context.Context, s region.Scan, caching int) ([]region.Result, error) {
	pbScan, err := hbaseconv.ScanToPB(s, hbaseconv.ScanOptions{Caching: caching, ReadType: hbaseconv.ReadPread})
	if err != nil {
		return nil, err
	}
	req := &hbasepb.ScanRequest{Region: hbaseconv.RegionSpecifierFromName(metaRegionName), Scan: pbScan,
		NumberOfRows: proto.Uint32(uint32(caching)), CloseScanner: proto.Bool(false)}
	var out []region.Result
	var seq uint64
	for {
		resp := &hbasepb.ScanResponse{}
		cells, err := c.call(ctx, c.masterAddr, "ClientService", "Scan", req, nil, resp)
		if err != nil {
			return nil, err
		}
		res, err := scanResults(resp, cells)
		if err != nil {
			return nil, err
		}
		out = append(out, res...)
		if !resp.GetMoreResults() || !resp.GetMoreResultsInRegion() || (s.Limit > 0 && len(out) >= s.Limit) {
			if resp.GetMoreResultsInRegion() {
				_, _ = c.call(ctx, c.masterAddr, "ClientService", "Scan",
					&hbasepb.ScanRequest{ScannerId: resp.ScannerId, CloseScanner: proto.Bool(true)}, nil, &hbasepb.ScanResponse{})
			}
			return out, nil
		}
		req = &hbasepb.ScanRequest{ScannerId: resp.ScannerId, NumberOfRows: proto.Uint32(uint32(caching)), NextCallSeq: proto.Uint64(seq)}
		seq++
	}
}

// parseLocation reads a region row of hbase:meta.
func parseLocation(res region.Result) (location, error) {
	var l location
	var info []byte
	for _, cl := range res.Cells {
		if string(cl.Family) != "info" {
			continue
		}
		switch string(cl.Qualifier) {
		case "regioninfo":
			info = cl.Value
		case "server":
			l.Server = string(cl.Value)
		}
	}
	if !bytes.HasPrefix(info, []byte("PBUF")) {
		return l, fmt.Errorf("meta row %q: info:regioninfo %q lacks the PBUF magic", res.Row(), info)
	}
	pb := &hbasepb.RegionInfo{}
	if err := proto.Unmarshal(info[4:], pb); err != nil {
		return l, fmt.Errorf("meta row %q: %w", res.Row(), err)
	}
	r, err := hbaseconv.RegionInfoFromPB(pb)
	if err != nil {
		return l, err
	}
	l.Region = r
	l.Name, _ = r.Name()
	if !bytes.Equal(l.Name, res.Row()) {
		return l, fmt.Errorf("meta row %q holds region %q", res.Row(), l.Name)
	}
	return l, nil
}

var errTableNotFound = errors.New("table not found in hbase:meta")

// locateFrom does HBase's meta lookup: a reversed scan from
// "<table>,<row>,<suffix>" to "<table>,," inclusive, caching 5, taking the
// first region row. suffix is NINES for the region holding row, ZEROES for
// the region before it.
func (c *testClient) locateFrom(ctx context.Context, table string, row []byte, suffix string) (location, error) {
	tn := tableName(table).String()
	start := append(append([]byte(tn+","), row...), ","+suffix...)
	res, err := c.metaScan(ctx, region.Scan{StartRow: start, StopRow: []byte(tn + ",,"), IncludeStopRow: true, Reversed: true,
		Columns: []region.Columns{{Family: []byte("info")}}, Limit: 1}, 5)
	if err != nil {
		return location{}, err
	}
	if len(res) == 0 {
		return location{}, fmt.Errorf("%w: %s (row %q)", errTableNotFound, table, row)
	}
	return parseLocation(res[0])
}

// locate finds the region holding row.
func (c *testClient) locate(ctx context.Context, table string, row []byte) (location, error) {
	l, err := c.locateFrom(ctx, table, row, nines)
	if err != nil {
		return l, err
	}
	if l.Region.Table != tableName(table) || !l.contains(row) {
		return l, fmt.Errorf("meta lookup of %s row %q found region %q", table, row, l.Name)
	}
	return l, nil
}

// regions lists the table's regions in order (a forward meta scan over
// the table's rows).
func (c *testClient) regions(ctx context.Context, table string) ([]location, error) {
	tn := tableName(table).String()
	res, err := c.metaScan(ctx, region.Scan{StartRow: []byte(tn + ",,"), StopRow: []byte(tn + " ,,"),
		Columns: []region.Columns{{Family: []byte("info")}}}, 100)
	if err != nil {
		return nil, err
	}
	out := make([]location, 0, len(res))
	for _, r := range res {
		l, err := parseLocation(r)
		if err != nil {
			return nil, err
		}
		if l.Region.Table == tableName(table) {
			out = append(out, l)
		}
	}
	return out, nil
}

// tableState reads the table:state row of hbase:meta ("" if absent).
func (c *testClient) tableState(ctx context.Context, table string) (hbasepb.TableState_State, bool, error) {
	g, err := hbaseconv.GetToPB(region.Get{Row: []byte(tableName(table).String()), Columns: []region.Columns{{Family: []byte("table")}}})
	if err != nil {
		return 0, false, err
	}
	resp := &hbasepb.GetResponse{}
	cells, err := c.call(ctx, c.masterAddr, "ClientService", "Get",
		&hbasepb.GetRequest{Region: hbaseconv.RegionSpecifierFromName(metaRegionName), Get: g}, nil, resp)
	if err != nil {
		return 0, false, err
	}
	res, _, err := hbaseconv.ResultFromPB(resp.GetResult(), cells)
	if err != nil {
		return 0, false, err
	}
	for _, cl := range res.Cells {
		if string(cl.Qualifier) == "state" {
			ts := &hbasepb.TableState{}
			if err := proto.Unmarshal(cl.Value, ts); err != nil {
				return 0, false, err
			}
			return ts.GetState(), true, nil
		}
	}
	return 0, false, nil
}

// ---- data operations ----

// retryable reports errors worth a fresh lookup and another try: the
// region is not (yet) served where meta says, or its server is restarting.
func retryable(err error) bool {
	var ne net.Error
	return hbaserpc.IsClass(err, hbaserpc.NotServingRegion) || hbaserpc.IsClass(err, hbaserpc.RegionOpening) ||
		hbaserpc.IsClass(err, hbaserpc.ServerNotRunningYet) || errors.As(err, &ne) || errors.Is(err, hbaserpc.ErrClosed)
}

const maxAttempts = 40

// onRegion runs f against the region holding row, looking it up again and
// retrying on retryable errors (assignment is asynchronous).
func (c *testClient) onRegion(ctx context.Context, table string, row []byte, f func(l location, cc *hbaserpc.ClientConn) error) error {
	var err error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		var l location
		if l, err = c.locate(ctx, table, row); err != nil {
			if errors.Is(err, errTableNotFound) {
				return err
			}
			continue
		}
		if l.Server == "" {
			err = fmt.Errorf("region %q has no server", l.Name)
			continue
		}
		var cc *hbaserpc.ClientConn
		if cc, err = c.conn(ctx, l.Server, "ClientService"); err != nil {
			continue
		}
		if err = f(l, cc); err == nil || !retryable(err) {
			return err
		}
	}
	return err
}

func (c *testClient) get(ctx context.Context, table string, g region.Get) (region.Result, error) {
	var res region.Result
	err := c.onRegion(ctx, table, g.Row, func(l location, cc *hbaserpc.ClientConn) error {
		pb, err := hbaseconv.GetToPB(g)
		if err != nil {
			return err
		}
		resp := &hbasepb.GetResponse{}
		cells, err := cc.Call(ctx, "Get", &hbasepb.GetRequest{Region: hbaseconv.RegionSpecifierFromName(l.Name), Get: pb}, nil, resp)
		if err != nil {
			return err
		}
		res, _, err = hbaseconv.ResultFromPB(resp.GetResult(), cells)
		return err
	})
	return res, err
}

// getRow reads the newest version of every column of row.
func (c *testClient) getRow(ctx context.Context, table string, row string) (region.Result, error) {
	return c.get(ctx, table, region.Get{Row: []byte(row)})
}

// mutate sends one MutateRequest (with an optional condition).
func (c *testClient) mutate(ctx context.Context, table string, conv hbaseconv.Converted, cond *region.Condition) (*hbasepb.MutateResponse, []cell.Cell, error) {
	mp, cells, err := hbaseconv.MutationToPB(conv, true)
	if err != nil {
		return nil, nil, err
	}
	row := mp.GetRow()
	var resp *hbasepb.MutateResponse
	var respCells []cell.Cell
	err = c.onRegion(ctx, table, row, func(l location, cc *hbaserpc.ClientConn) error {
		req := &hbasepb.MutateRequest{Region: hbaseconv.RegionSpecifierFromName(l.Name), Mutation: mp}
		if cond != nil {
			if req.Condition, err = hbaseconv.ConditionToPB(row, *cond); err != nil {
				return err
			}
		}
		resp = &hbasepb.MutateResponse{}
		var err error
		respCells, err = cc.Call(ctx, "Mutate", req, cells, resp)
		return err
	})
	return resp, respCells, err
}

func putMutation(row string, cells ...cell.Cell) region.Mutation {
	for i := range cells {
		cells[i].Row = []byte(row)
		if cells[i].Timestamp == 0 {
			cells[i].Timestamp = cell.LatestTimestamp
		}
		cells[i].Type = cell.TypePut
	}
	return region.Mutation{Type: region.MutationPut, Row: []byte(row), Cells: cells}
}

// kv is a cell of family f, qualifier q, value v at the server's time.
func kv(f, q, v string) cell.Cell {
	return cell.Cell{Family: []byte(f), Qualifier: []byte(q), Value: []byte(v), Timestamp: cell.LatestTimestamp}
}

// kvAt is a cell with an explicit timestamp.
func kvAt(f, q, v string, ts int64) cell.Cell {
	return cell.Cell{Family: []byte(f), Qualifier: []byte(q), Value: []byte(v), Timestamp: ts}
}

func (c *testClient) put(ctx context.Context, table, row string, cells ...cell.Cell) error {
	_, _, err := c.mutate(ctx, table, hbaseconv.Converted{Kind: hbaseconv.KindPut, Mutation: putMutation(row, cells...)}, nil)
	return err
}

// deleteRow deletes the whole row.
func (c *testClient) deleteRow(ctx context.Context, table, row string) error {
	_, _, err := c.mutate(ctx, table, hbaseconv.Converted{Kind: hbaseconv.KindDelete,
		Mutation: region.Mutation{Type: region.MutationDelete, Row: []byte(row)}}, nil)
	return err
}

// checkAndPut puts cells if cond holds on row, reporting whether it did.
func (c *testClient) checkAndPut(ctx context.Context, table, row string, cond region.Condition, cells ...cell.Cell) (bool, error) {
	resp, _, err := c.mutate(ctx, table, hbaseconv.Converted{Kind: hbaseconv.KindPut, Mutation: putMutation(row, cells...)}, &cond)
	if err != nil {
		return false, err
	}
	return resp.GetProcessed(), nil
}

// increment adds delta to f:q of row and returns the new value.
func (c *testClient) increment(ctx context.Context, table, row, f, q string, delta int64) (int64, error) {
	resp, cells, err := c.mutate(ctx, table, hbaseconv.Converted{Kind: hbaseconv.KindIncrement, RMW: region.ReadModifyWrite{
		Row: []byte(row), Columns: []region.ColumnDelta{{Family: []byte(f), Qualifier: []byte(q), Delta: delta}}}}, nil)
	if err != nil {
		return 0, err
	}
	res, _, err := hbaseconv.ResultFromPB(resp.GetResult(), cells)
	if err != nil {
		return 0, err
	}
	if len(res.Cells) != 1 || len(res.Cells[0].Value) != 8 {
		return 0, fmt.Errorf("increment returned %v", res.Cells)
	}
	return int64(binary.BigEndian.Uint64(res.Cells[0].Value)), nil
}

// multiPut sends puts of several rows in ONE Multi request: one
// RegionAction per region (every region must live on the same server).
// It returns the response and how many regions the request spanned.
func (c *testClient) multiPut(ctx context.Context, table string, muts []region.Mutation) (*hbasepb.MultiResponse, int, error) {
	var server string
	byRegion := map[string]*hbasepb.RegionAction{}
	var order []string
	var reqCells []cell.Cell
	for i, m := range muts {
		l, err := c.locate(ctx, table, m.Row)
		if err != nil {
			return nil, 0, err
		}
		if server != "" && l.Server != server {
			return nil, 0, fmt.Errorf("multiPut: regions on two servers (%s, %s)", server, l.Server)
		}
		server = l.Server
		ra := byRegion[string(l.Name)]
		if ra == nil {
			ra = &hbasepb.RegionAction{Region: hbaseconv.RegionSpecifierFromName(l.Name)}
			byRegion[string(l.Name)] = ra
			order = append(order, string(l.Name))
		}
		mp, _, err := hbaseconv.MutationToPB(hbaseconv.Converted{Kind: hbaseconv.KindPut, Mutation: m}, true)
		if err != nil {
			return nil, 0, err
		}
		ra.Action = append(ra.Action, &hbasepb.Action{Index: proto.Uint32(uint32(i)), Mutation: mp})
	}
	// The cellblock follows the RegionAction order, not the input order.
	req := &hbasepb.MultiRequest{}
	for _, name := range order {
		ra := byRegion[name]
		req.RegionAction = append(req.RegionAction, ra)
		for _, a := range ra.Action {
			m := muts[a.GetIndex()]
			_, cells, err := hbaseconv.MutationToPB(hbaseconv.Converted{Kind: hbaseconv.KindPut, Mutation: m}, true)
			if err != nil {
				return nil, 0, err
			}
			reqCells = append(reqCells, cells...)
		}
	}
	resp := &hbasepb.MultiResponse{}
	if _, err := c.call(ctx, server, "ClientService", "Multi", req, reqCells, resp); err != nil {
		return nil, 0, err
	}
	return resp, len(order), nil
}

// scanStats records the shape of a scan's exchange.
type scanStats struct {
	regions   int // regions visited
	calls     int // Scan RPCs
	maxPerRPC int // most results in one response
}

func scanResults(resp *hbasepb.ScanResponse, cells []cell.Cell) ([]region.Result, error) {
	var out []region.Result
	if len(resp.GetCellsPerResult()) > 0 {
		off := 0
		for i, n := range resp.GetCellsPerResult() {
			if off+int(n) > len(cells) {
				return nil, fmt.Errorf("scan response: cells_per_result overruns the cellblock")
			}
			r := region.Result{Cells: cells[off : off+int(n)]}
			if i < len(resp.GetPartialFlagPerResult()) {
				r.Partial = resp.GetPartialFlagPerResult()[i]
			}
			out = append(out, r)
			off += int(n)
		}
		return out, nil
	}
	for _, pb := range resp.GetResults() {
		r, _, err := hbaseconv.ResultFromPB(pb, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// scan runs s over the table region by region, as HBase's client does:
// open a scanner in the region holding the start row, call next with
// caching rows per RPC until more_results_in_region is false, then go on
// to the next region (forward: the one holding the region's end key;
// reversed: the one before its start key) until the table or the scan
// ends.
func (c *testClient) scan(ctx context.Context, table string, s region.Scan, caching int) ([]region.Result, scanStats, error) {
	var st scanStats
	var out []region.Result
	var l location
	var err error
	for attempt := 0; ; attempt++ {
		if s.Reversed && len(s.StartRow) == 0 {
			var locs []location
			if locs, err = c.regions(ctx, table); err == nil {
				if len(locs) == 0 {
					return nil, st, fmt.Errorf("%w: %s", errTableNotFound, table)
				}
				l = locs[len(locs)-1]
			}
		} else {
			l, err = c.locate(ctx, table, s.StartRow)
		}
		if err == nil || attempt > maxAttempts {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		return nil, st, err
	}
	for {
		st.regions++
		res, more, err := c.scanRegion(ctx, l, s, caching, &st)
		if err != nil {
			return out, st, err
		}
		out = append(out, res...)
		if !more {
			return out, st, nil
		}
		if s.Limit > 0 && len(out) >= s.Limit {
			return out[:s.Limit], st, nil
		}
		// Next region.
		if !s.Reversed {
			if len(l.Region.EndKey) == 0 || (len(s.StopRow) > 0 && bytes.Compare(l.Region.EndKey, s.StopRow) >= 0) {
				return out, st, nil
			}
			l, err = c.locate(ctx, table, l.Region.EndKey)
		} else {
			if len(l.Region.StartKey) == 0 || (len(s.StopRow) > 0 && bytes.Compare(l.Region.StartKey, s.StopRow) <= 0) {
				return out, st, nil
			}
			l, err = c.locateFrom(ctx, table, l.Region.StartKey, "00000000000000")
		}
		if err != nil {
			return out, st, err
		}
	}
}

// scanRegion scans one region; more reports whether the scan goes on in
// the next region.
func (c *testClient) scanRegion(ctx context.Context, l location, s region.Scan, caching int, st *scanStats) ([]region.Result, bool, error) {
	pbScan, err := hbaseconv.ScanToPB(s, hbaseconv.ScanOptions{Caching: caching})
	if err != nil {
		return nil, false, err
	}
	var out []region.Result
	for attempt := 0; ; attempt++ {
		req := &hbasepb.ScanRequest{Region: hbaseconv.RegionSpecifierFromName(l.Name), Scan: pbScan, NumberOfRows: proto.Uint32(uint32(caching))}
		var seq uint64
		for {
			resp := &hbasepb.ScanResponse{}
			st.calls++
			var cells []cell.Cell
			cells, err = c.call(ctx, l.Server, "ClientService", "Scan", req, nil, resp)
			if err != nil {
				break
			}
			res, err := scanResults(resp, cells)
			if err != nil {
				return nil, false, err
			}
			st.maxPerRPC = max(st.maxPerRPC, len(res))
			out = append(out, res...)
			if !resp.GetMoreResults() {
				return out, false, nil
			}
			if !resp.GetMoreResultsInRegion() {
				return out, true, nil
			}
			req = &hbasepb.ScanRequest{ScannerId: resp.ScannerId, NumberOfRows: proto.Uint32(uint32(caching)), NextCallSeq: proto.Uint64(seq)}
			seq++
		}
		if !retryable(err) || len(out) > 0 || attempt >= maxAttempts {
			return nil, false, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// rows returns the row keys of results.
func rows(results []region.Result) []string {
	out := make([]string, 0, len(results))
	for _, r := range results {
		out = append(out, string(r.Row()))
	}
	return out
}

// value returns the newest value of f:q in res, and whether there is one.
func value(res region.Result, f, q string) (string, bool) {
	for _, cl := range res.Cells {
		if string(cl.Family) == f && string(cl.Qualifier) == q {
			return string(cl.Value), true
		}
	}
	return "", false
}

// freePorts reserves n consecutive free TCP ports on 127.0.0.1 (best
// effort: it checks that each can be bound, then releases them).
func freePorts(t testing.TB, n int) int {
	t.Helper()
	for try := 0; try < 50; try++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		base := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if base+n > 65535 {
			continue
		}
		ok := true
		var ls []net.Listener
		for i := 0; i < n && ok; i++ {
			li, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(base+i)))
			if err != nil {
				ok = false
				break
			}
			ls = append(ls, li)
		}
		for _, li := range ls {
			_ = li.Close()
		}
		if ok {
			return base
		}
	}
	t.Fatal("no free consecutive ports")
	return 0
}

// storeKeys counts the keys in rs's store of rows starting with prefix,
// whatever their table: dead versions and delete markers included.
func storeKeys(t *testing.T, rs *regionserver.RegionServer, prefix string) int {
	t.Helper()
	it, err := rs.Store().NewIter(storage.IterOptions{})
	must(t, err)
	defer it.Close()
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if _, row, err := storage.DecodeRow(it.Key()); err == nil && bytes.HasPrefix(row, []byte(prefix)) {
			n++
		}
	}
	must(t, it.Error())
	return n
}
