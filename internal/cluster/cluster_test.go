package cluster

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/master"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/region"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// startCluster starts a cluster in a fresh temporary directory (unless
// cfg.DataDir is set) and closes it when the test ends.
func startCluster(t *testing.T, cfg Config) *Cluster {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Start(ctx, cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantClass fails unless err is an exception of the given Java class.
func wantClass(t *testing.T, err error, class string) {
	t.Helper()
	if !hbaserpc.IsClass(err, class) {
		t.Fatalf("got error %v, want %s", err, class)
	}
}

var splits3 = [][]byte{[]byte("g"), []byte("n"), []byte("t")}

// TestRegistry checks the bootstrap a 2.6 client does: the "Regist"
// preamble and ClientMetaService agree on the cluster id, the active master
// is this master, and hbase:meta has a location.
func TestRegistry(t *testing.T) {
	c := startCluster(t, Config{})
	ctx := testCtx(t)
	cl := newClient(t, c.MasterAddr())

	id, err := hbaserpc.FetchClusterID(ctx, c.MasterAddr())
	must(t, err)
	resp := &hbasepb.GetClusterIdResponse{}
	_, err = cl.call(ctx, c.MasterAddr(), "ClientMetaService", "GetClusterId", &hbasepb.GetClusterIdRequest{}, nil, resp)
	must(t, err)
	if id == "" || resp.GetClusterId() != id || id != c.Master.ClusterID() {
		t.Fatalf("cluster ids: preamble %q, GetClusterId %q, master %q", id, resp.GetClusterId(), c.Master.ClusterID())
	}
	// A region server answers the preamble with the same id.
	rsID, err := hbaserpc.FetchClusterID(ctx, c.RegionServers[0].Addr())
	must(t, err)
	if rsID != id {
		t.Fatalf("region server cluster id %q, master %q", rsID, id)
	}

	am := &hbasepb.GetActiveMasterResponse{}
	_, err = cl.call(ctx, c.MasterAddr(), "ClientMetaService", "GetActiveMaster", &hbasepb.GetActiveMasterRequest{}, nil, am)
	must(t, err)
	if got := fmt.Sprintf("%s:%d", am.GetServerName().GetHostName(), am.GetServerName().GetPort()); got != c.MasterAddr() {
		t.Fatalf("active master %s, want %s", got, c.MasterAddr())
	}

	ml := &hbasepb.GetMetaRegionLocationsResponse{}
	_, err = cl.call(ctx, c.MasterAddr(), "ClientMetaService", "GetMetaRegionLocations", &hbasepb.GetMetaRegionLocationsRequest{}, nil, ml)
	must(t, err)
	if len(ml.GetMetaLocations()) == 0 {
		t.Fatal("no meta locations")
	}
	loc := ml.GetMetaLocations()[0]
	if string(loc.GetRegionInfo().GetTableName().GetQualifier()) != "meta" ||
		fmt.Sprintf("%s:%d", loc.GetServerName().GetHostName(), loc.GetServerName().GetPort()) != c.MasterAddr() {
		t.Fatalf("meta location %v", loc)
	}

	run := &hbasepb.IsMasterRunningResponse{}
	must(t, cl.masterCall(ctx, "IsMasterRunning", &hbasepb.IsMasterRunningRequest{}, run))
	if !run.GetIsMasterRunning() {
		t.Fatal("IsMasterRunning = false on the active master")
	}
}

// TestDDL walks a table through its life: namespace, pre-split create,
// duplicate create, descriptors, disable/enable, truncate, delete.
func TestDDL(t *testing.T) {
	c := startCluster(t, Config{RegionServers: 2})
	ctx := testCtx(t)
	cl := newClient(t, c.MasterAddr())

	must(t, cl.masterCall(ctx, "CreateNamespace", &hbasepb.CreateNamespaceRequest{
		NamespaceDescriptor: &hbasepb.NamespaceDescriptor{Name: []byte("ns1")}}, &hbasepb.CreateNamespaceResponse{}))
	nsd := &hbasepb.GetNamespaceDescriptorResponse{}
	must(t, cl.masterCall(ctx, "GetNamespaceDescriptor", &hbasepb.GetNamespaceDescriptorRequest{NamespaceName: proto.String("ns1")}, nsd))
	if string(nsd.GetNamespaceDescriptor().GetName()) != "ns1" {
		t.Fatalf("namespace descriptor %v", nsd)
	}

	const tbl = "ns1:ddl"
	fams := []region.FamilyDescriptor{{Name: []byte("cf"), MaxVersions: 3}, {Name: []byte("x"), MaxVersions: 1}}
	must(t, cl.createTable(ctx, tbl, fams, splits3...))

	locs, err := cl.regions(ctx, tbl)
	must(t, err)
	if len(locs) != 4 {
		t.Fatalf("%d regions, want 4", len(locs))
	}
	wantStarts := []string{"", "g", "n", "t"}
	servers := map[string]bool{}
	for i, l := range locs {
		if string(l.Region.StartKey) != wantStarts[i] {
			t.Errorf("region %d starts at %q, want %q", i, l.Region.StartKey, wantStarts[i])
		}
		if i+1 < len(locs) && string(l.Region.EndKey) != wantStarts[i+1] {
			t.Errorf("region %d ends at %q", i, l.Region.EndKey)
		}
		if l.Server == "" {
			t.Errorf("region %q has no server", l.Name)
		}
		servers[l.Server] = true
	}
	if len(servers) != 2 {
		t.Errorf("regions on %d servers, want both: %v", len(servers), servers)
	}
	// Every row key locates to the region holding it.
	for _, row := range []string{"a", "g", "h", "n", "s", "t", "zzz"} {
		l, err := cl.locate(ctx, tbl, []byte(row))
		must(t, err)
		if !l.contains([]byte(row)) {
			t.Errorf("row %q located in %q", row, l.Name)
		}
	}

	err = cl.createTable(ctx, tbl, fams)
	wantClass(t, err, hbaserpc.TableExists)

	gd := &hbasepb.GetTableDescriptorsResponse{}
	must(t, cl.masterCall(ctx, "GetTableDescriptors", &hbasepb.GetTableDescriptorsRequest{
		TableNames: []*hbasepb.TableName{hbaseconv.TableNameToPB(tableName(tbl))}}, gd))
	if len(gd.GetTableSchema()) != 1 {
		t.Fatalf("%d descriptors", len(gd.GetTableSchema()))
	}
	_, desc, err := hbaseconv.TableDescriptorFromPB(gd.GetTableSchema()[0])
	must(t, err)
	if len(desc.Families) != 2 || desc.Family([]byte("cf")).MaxVersions != 3 || desc.Family([]byte("x")).MaxVersions != 1 {
		t.Fatalf("descriptor families %+v", desc.Families)
	}
	names := &hbasepb.GetTableNamesResponse{}
	must(t, cl.masterCall(ctx, "GetTableNames", &hbasepb.GetTableNamesRequest{Namespace: proto.String("ns1")}, names))
	if len(names.GetTableNames()) != 1 || string(names.GetTableNames()[0].GetQualifier()) != "ddl" {
		t.Fatalf("table names %v", names.GetTableNames())
	}

	for _, r := range []string{"a", "h", "p", "z"} {
		must(t, cl.put(ctx, tbl, r, kv("cf", "q", "v-"+r)))
	}

	// Disable: meta says DISABLED and the regions stop serving.
	must(t, cl.disableTable(ctx, tbl))
	st, ok, err := cl.tableState(ctx, tbl)
	must(t, err)
	if !ok || st != hbasepb.TableState_DISABLED {
		t.Fatalf("table state %v (present %v), want DISABLED", st, ok)
	}
	waitFor(t, 10*time.Second, "gets to fail with NotServingRegion on the disabled table", func() bool {
		_, err := getDirect(ctx, cl, locs[1], "h")
		return hbaserpc.IsClass(err, hbaserpc.NotServingRegion)
	})
	err = cl.disableTable(ctx, tbl)
	wantClass(t, err, hbaserpc.TableNotEnabled)

	// Enable: data is back.
	must(t, cl.enableTable(ctx, tbl))
	st, _, err = cl.tableState(ctx, tbl)
	must(t, err)
	if st != hbasepb.TableState_ENABLED {
		t.Fatalf("state after enable %v", st)
	}
	res, err := cl.getRow(ctx, tbl, "h")
	must(t, err)
	if v, _ := value(res, "cf", "q"); v != "v-h" {
		t.Fatalf("after enable: %v", res.Cells)
	}

	// Truncate (preserving splits) empties the table and keeps 4 regions.
	must(t, cl.disableTable(ctx, tbl))
	must(t, cl.masterCall(ctx, "truncateTable", &hbasepb.TruncateTableRequest{
		TableName: hbaseconv.TableNameToPB(tableName(tbl)), PreserveSplits: proto.Bool(true)}, &hbasepb.TruncateTableResponse{}))
	must(t, cl.waitAssigned(ctx, tbl, 4))
	all, _, err := cl.scan(ctx, tbl, region.Scan{}, 10)
	must(t, err)
	if len(all) != 0 {
		t.Fatalf("after truncate: rows %v", rows(all))
	}
	locs2, err := cl.regions(ctx, tbl)
	must(t, err)
	for i := range locs2 {
		if string(locs2[i].Region.StartKey) != wantStarts[i] {
			t.Fatalf("after truncate region %d starts at %q", i, locs2[i].Region.StartKey)
		}
	}
	must(t, cl.put(ctx, tbl, "b", kv("cf", "q", "after")))

	// Delete needs a disabled table; then the table is gone.
	err = cl.deleteTable(ctx, tbl)
	wantClass(t, err, hbaserpc.TableNotDisabled)
	must(t, cl.disableTable(ctx, tbl))
	must(t, cl.deleteTable(ctx, tbl))
	locs, err = cl.regions(ctx, tbl)
	must(t, err)
	if len(locs) != 0 {
		t.Fatalf("%d regions left in meta after delete", len(locs))
	}
	if _, ok, err := cl.tableState(ctx, tbl); err != nil || ok {
		t.Fatalf("table state row after delete: present %v, err %v", ok, err)
	}
	wantClass(t, cl.deleteTable(ctx, tbl), hbaserpc.TableNotFound)
	wantClass(t, cl.enableTable(ctx, tbl), hbaserpc.TableNotFound)
	_, err = cl.getRow(ctx, tbl, "b")
	if err == nil {
		t.Fatal("get on a deleted table succeeded")
	}
	// The namespace can go once empty.
	must(t, cl.masterCall(ctx, "DeleteNamespace", &hbasepb.DeleteNamespaceRequest{NamespaceName: proto.String("ns1")},
		&hbasepb.DeleteNamespaceResponse{}))
}

// getDirect sends a Get to the server meta named for l, without retries.
func getDirect(ctx context.Context, cl *testClient, l location, row string) (region.Result, error) {
	pb, err := hbaseconv.GetToPB(region.Get{Row: []byte(row)})
	if err != nil {
		return region.Result{}, err
	}
	resp := &hbasepb.GetResponse{}
	cells, err := cl.call(ctx, l.Server, "ClientService", "Get", &hbasepb.GetRequest{Region: hbaseconv.RegionSpecifierFromName(l.Name), Get: pb}, nil, resp)
	if err != nil {
		return region.Result{}, err
	}
	res, _, err := hbaseconv.ResultFromPB(resp.GetResult(), cells)
	return res, err
}

func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestData covers ClientService over a 4-region table: put/get/delete,
// versions, scans across every region both ways with small caching, Multi
// over several regions, checkAndMutate, increment, and a filter.
func TestData(t *testing.T) {
	c := startCluster(t, Config{})
	ctx := testCtx(t)
	cl := newClient(t, c.MasterAddr())
	const tbl = "data"
	must(t, cl.createTable(ctx, tbl, []region.FamilyDescriptor{{Name: []byte("cf"), MaxVersions: 3}}, splits3...))

	t.Run("PutGetDelete", func(t *testing.T) {
		must(t, cl.put(ctx, tbl, "pgd", kv("cf", "a", "1"), kv("cf", "b", "2")))
		res, err := cl.getRow(ctx, tbl, "pgd")
		must(t, err)
		if a, _ := value(res, "cf", "a"); a != "1" || len(res.Cells) != 2 {
			t.Fatalf("get: %v", res.Cells)
		}
		must(t, cl.deleteRow(ctx, tbl, "pgd"))
		res, err = cl.getRow(ctx, tbl, "pgd")
		must(t, err)
		if len(res.Cells) != 0 {
			t.Fatalf("after delete: %v", res.Cells)
		}
		ex, err := cl.get(ctx, tbl, region.Get{Row: []byte("pgd"), ExistenceOnly: true})
		must(t, err)
		if ex.Exists {
			t.Fatal("deleted row exists")
		}
	})

	t.Run("Versions", func(t *testing.T) {
		for ts := int64(1); ts <= 4; ts++ {
			must(t, cl.put(ctx, tbl, "ver", kvAt("cf", "q", fmt.Sprint("v", ts), ts*1000)))
		}
		res, err := cl.get(ctx, tbl, region.Get{Row: []byte("ver"), MaxVersions: 10})
		must(t, err)
		var got []string
		for _, cl := range res.Cells {
			got = append(got, fmt.Sprintf("%s@%d", cl.Value, cl.Timestamp))
		}
		// VERSIONS => 3 keeps the newest three, newest first.
		if want := []string{"v4@4000", "v3@3000", "v2@2000"}; !slices.Equal(got, want) {
			t.Fatalf("versions %v, want %v", got, want)
		}
		// Versions are counted within the time range (as HBase does before
		// a compaction drops the excess version).
		res, err = cl.get(ctx, tbl, region.Get{Row: []byte("ver"), MaxVersions: 2, TimeRange: cell.TimeRange{Min: 0, Max: 3500}})
		must(t, err)
		if len(res.Cells) != 2 || string(res.Cells[0].Value) != "v3" || string(res.Cells[1].Value) != "v2" {
			t.Fatalf("time range read: %v", res.Cells)
		}
		res, err = cl.getRow(ctx, tbl, "ver")
		must(t, err)
		if len(res.Cells) != 1 || string(res.Cells[0].Value) != "v4" {
			t.Fatalf("default read: %v", res.Cells)
		}
		must(t, cl.deleteRow(ctx, tbl, "ver"))
	})

	t.Run("ScanAcrossRegions", func(t *testing.T) {
		want := []string{"a1", "a2", "f", "g", "h", "m", "n", "o", "s", "t", "u", "z1", "z2"}
		muts := make([]region.Mutation, len(want))
		for i, r := range want {
			muts[i] = putMutation(r, kv("cf", "q", r))
		}
		resp, nRegions, err := cl.multiPut(ctx, tbl, muts)
		must(t, err)
		if nRegions != 4 {
			t.Fatalf("multi spanned %d regions, want 4", nRegions)
		}
		checkMulti(t, resp, len(want))

		got, st, err := cl.scan(ctx, tbl, region.Scan{}, 2)
		must(t, err)
		if !slices.Equal(rows(got), want) {
			t.Fatalf("forward scan rows %v, want %v", rows(got), want)
		}
		if st.regions != 4 || st.maxPerRPC > 2 {
			t.Fatalf("forward scan stats %+v: want 4 regions, at most 2 rows per RPC", st)
		}
		got, st, err = cl.scan(ctx, tbl, region.Scan{Reversed: true}, 2)
		must(t, err)
		rev := slices.Clone(want)
		slices.Reverse(rev)
		if !slices.Equal(rows(got), rev) {
			t.Fatalf("reversed scan rows %v, want %v", rows(got), rev)
		}
		if st.regions != 4 || st.maxPerRPC > 2 {
			t.Fatalf("reversed scan stats %+v", st)
		}
		// Bounded scans that start and stop inside regions.
		got, _, err = cl.scan(ctx, tbl, region.Scan{StartRow: []byte("f"), StopRow: []byte("t")}, 2)
		must(t, err)
		if w := []string{"f", "g", "h", "m", "n", "o", "s"}; !slices.Equal(rows(got), w) {
			t.Fatalf("[f,t) rows %v, want %v", rows(got), w)
		}
		got, _, err = cl.scan(ctx, tbl, region.Scan{StartRow: []byte("t"), StopRow: []byte("f"), Reversed: true}, 2)
		must(t, err)
		if w := []string{"t", "s", "o", "n", "m", "h", "g"}; !slices.Equal(rows(got), w) {
			t.Fatalf("reversed [t,f) rows %v, want %v", rows(got), w)
		}
		got, _, err = cl.scan(ctx, tbl, region.Scan{Filter: &filter.PrefixFilter{Prefix: []byte("z")}}, 2)
		must(t, err)
		if w := []string{"z1", "z2"}; !slices.Equal(rows(got), w) {
			t.Fatalf("PrefixFilter rows %v, want %v", rows(got), w)
		}
		got, _, err = cl.scan(ctx, tbl, region.Scan{Limit: 5}, 2)
		must(t, err)
		if !slices.Equal(rows(got), want[:5]) {
			t.Fatalf("limit 5 rows %v", rows(got))
		}
		for _, r := range want {
			must(t, cl.deleteRow(ctx, tbl, r))
		}
	})

	t.Run("CheckAndMutate", func(t *testing.T) {
		must(t, cl.put(ctx, tbl, "cam", kv("cf", "state", "open")))
		eq := func(v string) region.Condition {
			return region.Condition{Family: []byte("cf"), Qualifier: []byte("state"), Op: filter.Equal,
				Comparator: &filter.BinaryComparator{Value: []byte(v)}}
		}
		ok, err := cl.checkAndPut(ctx, tbl, "cam", eq("closed"), kv("cf", "state", "x"))
		must(t, err)
		if ok {
			t.Fatal("checkAndPut applied on a false condition")
		}
		ok, err = cl.checkAndPut(ctx, tbl, "cam", eq("open"), kv("cf", "state", "closed"))
		must(t, err)
		if !ok {
			t.Fatal("checkAndPut not applied on a true condition")
		}
		res, err := cl.getRow(ctx, tbl, "cam")
		must(t, err)
		if v, _ := value(res, "cf", "state"); v != "closed" {
			t.Fatalf("state %q", v)
		}
		// A nil comparator means "absent".
		ok, err = cl.checkAndPut(ctx, tbl, "cam", region.Condition{Family: []byte("cf"), Qualifier: []byte("new"), Op: filter.Equal},
			kv("cf", "new", "1"))
		must(t, err)
		if !ok {
			t.Fatal("checkAndPut if-absent not applied")
		}
		ok, err = cl.checkAndPut(ctx, tbl, "cam", region.Condition{Family: []byte("cf"), Qualifier: []byte("new"), Op: filter.Equal},
			kv("cf", "new", "2"))
		must(t, err)
		if ok {
			t.Fatal("checkAndPut if-absent applied over a present column")
		}
	})

	t.Run("Increment", func(t *testing.T) {
		for i, want := range []int64{5, 3, 103} {
			delta := []int64{5, -2, 100}[i]
			got, err := cl.increment(ctx, tbl, "ctr", "cf", "n", delta)
			must(t, err)
			if got != want {
				t.Fatalf("increment %d: %d, want %d", i, got, want)
			}
		}
		must(t, cl.put(ctx, tbl, "ctr", kv("cf", "s", "not a counter")))
		_, err := cl.increment(ctx, tbl, "ctr", "cf", "s", 1)
		wantClass(t, err, hbaserpc.DoNotRetryIOException)
	})
}

// checkMulti checks that every action of a Multi has a result, by index.
func checkMulti(t *testing.T, resp *hbasepb.MultiResponse, n int) {
	t.Helper()
	seen := map[uint32]bool{}
	for _, rar := range resp.GetRegionActionResult() {
		if rar.GetException() != nil {
			t.Fatalf("region action exception %s", rar.GetException().GetName())
		}
		for _, roe := range rar.GetResultOrException() {
			if roe.GetException() != nil {
				t.Fatalf("action %d: %s", roe.GetIndex(), roe.GetException().GetName())
			}
			if roe.GetResult() == nil {
				t.Fatalf("action %d has no result", roe.GetIndex())
			}
			seen[roe.GetIndex()] = true
		}
	}
	if len(seen) != n {
		t.Fatalf("%d action results, want %d", len(seen), n)
	}
}

// TestMultiPerActionErrors sends one Multi whose actions partly fail: the
// good ones apply, the bad one carries its own exception.
func TestMultiPerActionErrors(t *testing.T) {
	c := startCluster(t, Config{})
	ctx := testCtx(t)
	cl := newClient(t, c.MasterAddr())
	must(t, cl.createTable(ctx, "multi", families("cf"), []byte("m")))
	muts := []region.Mutation{
		putMutation("a", kv("cf", "q", "1")),
		putMutation("b", kv("nope", "q", "2")),
		putMutation("x", kv("cf", "q", "3")),
	}
	resp, n, err := cl.multiPut(ctx, "multi", muts)
	must(t, err)
	if n != 2 {
		t.Fatalf("spanned %d regions", n)
	}
	byIndex := map[uint32]*hbasepb.ResultOrException{}
	for _, rar := range resp.GetRegionActionResult() {
		for _, roe := range rar.GetResultOrException() {
			byIndex[roe.GetIndex()] = roe
		}
	}
	if len(byIndex) != 3 {
		t.Fatalf("%d results", len(byIndex))
	}
	if byIndex[0].GetException() != nil || byIndex[2].GetException() != nil {
		t.Fatalf("good actions failed: %v / %v", byIndex[0], byIndex[2])
	}
	if e := byIndex[1].GetException(); e == nil || e.GetName() != hbaserpc.NoSuchColumnFamily {
		t.Fatalf("bad action: %v", byIndex[1])
	}
	for _, r := range []string{"a", "x"} {
		res, err := cl.getRow(ctx, "multi", r)
		must(t, err)
		if len(res.Cells) != 1 {
			t.Fatalf("row %s: %v", r, res.Cells)
		}
	}
}

// TestErrors checks the exception classes clients act on, and that a
// failed call leaves the connection usable.
func TestErrors(t *testing.T) {
	c := startCluster(t, Config{})
	ctx := testCtx(t)
	cl := newClient(t, c.MasterAddr())
	must(t, cl.createTable(ctx, "errs", families("cf")))
	must(t, cl.put(ctx, "errs", "r", kv("cf", "q", "v")))

	err := cl.put(ctx, "errs", "r", kv("nofamily", "q", "v"))
	wantClass(t, err, hbaserpc.NoSuchColumnFamily)
	_, err = cl.get(ctx, "errs", region.Get{Row: []byte("r"), Columns: []region.Columns{{Family: []byte("nofamily")}}})
	wantClass(t, err, hbaserpc.NoSuchColumnFamily)

	l, err := cl.locate(ctx, "errs", []byte("r"))
	must(t, err)
	cc, err := cl.conn(ctx, l.Server, "ClientService")
	must(t, err)
	g, _ := hbaseconv.GetToPB(region.Get{Row: []byte("r")})
	bogus, _ := meta.RegionName(tableName("errs"), nil, 12345)
	_, err = cc.Call(ctx, "Get", &hbasepb.GetRequest{Region: hbaseconv.RegionSpecifierFromName(bogus), Get: g}, nil, &hbasepb.GetResponse{})
	wantClass(t, err, hbaserpc.NotServingRegion)

	// Malformed bytes: field 1 of GetRequest (the region specifier) holds
	// an invalid message.
	_, err = cc.Call(ctx, "Get", &wrapperspb.BytesValue{Value: []byte{0xff, 0xff, 0xff}}, nil, &hbasepb.GetResponse{})
	wantClass(t, err, hbaserpc.DoNotRetryIOException)
	_, err = cc.Call(ctx, "NoSuchMethod", &hbasepb.GetRequest{Region: hbaseconv.RegionSpecifierFromName(l.Name), Get: g}, nil, &hbasepb.GetResponse{})
	wantClass(t, err, hbaserpc.UnsupportedOperation)
	// The same connection still serves.
	resp := &hbasepb.GetResponse{}
	cells, err := cc.Call(ctx, "Get", &hbasepb.GetRequest{Region: hbaseconv.RegionSpecifierFromName(l.Name), Get: g}, nil, resp)
	must(t, err)
	res, _, err := hbaseconv.ResultFromPB(resp.GetResult(), cells)
	must(t, err)
	if v, _ := value(res, "cf", "q"); v != "v" || cc.Err() != nil {
		t.Fatalf("after errors: %v, conn err %v", res.Cells, cc.Err())
	}

	// Master errors.
	_, err = cl.call(ctx, c.MasterAddr(), "MasterService", "DeleteTable", &wrapperspb.BytesValue{Value: []byte{0xff}}, nil, &hbasepb.DeleteTableResponse{})
	wantClass(t, err, hbaserpc.DoNotRetryIOException)
	wantClass(t, cl.deleteTable(ctx, "nosuchtable"), hbaserpc.TableNotFound)
	err = cl.createTable(ctx, "hbase:mine", families("cf"))
	wantClass(t, err, hbaserpc.DoNotRetryIOException)
}

// TestDurabilityAcrossRestart restarts a whole cluster on the same data
// directory (`weir standalone` restarted on the same --data): every row is
// still there. The ports are fixed, as standalone's defaults are.
func TestDurabilityAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	base := freePorts(t, 3)
	cfg := Config{DataDir: dir, MasterPort: base, RegionServerPort: base + 1, EtcdPort: base + 2}
	ctx := testCtx(t)

	c1, err := Start(ctx, cfg)
	must(t, err)
	cl := newClient(t, c1.MasterAddr())
	must(t, cl.createTable(ctx, "dur", families("cf"), []byte("k5")))
	const n = 50
	for i := range n {
		must(t, cl.put(ctx, "dur", fmt.Sprintf("k%02d", i), kv("cf", "q", fmt.Sprint(i))))
	}
	must(t, cl.deleteRow(ctx, "dur", "k07"))
	cl.close()
	c1.Close()

	c2 := startCluster(t, cfg)
	cl2 := newClient(t, c2.MasterAddr())
	must(t, cl2.waitAssigned(ctx, "dur", 2))
	got, _, err := cl2.scan(ctx, "dur", region.Scan{}, 7)
	must(t, err)
	if len(got) != n-1 {
		t.Fatalf("after restart: %d rows, want %d: %v", len(got), n-1, rows(got))
	}
	for i, r := range got {
		want := i
		if i >= 7 {
			want = i + 1
		}
		if v, _ := value(r, "cf", "q"); string(r.Row()) != fmt.Sprintf("k%02d", want) || v != fmt.Sprint(want) {
			t.Fatalf("row %d: %s=%s", i, r.Row(), v)
		}
	}
	// And it still takes writes.
	must(t, cl2.put(ctx, "dur", "k07", kv("cf", "q", "back")))
}

// TestRegionServerRestart stops one of two region servers and starts it
// again on its address: its regions come back with their data.
func TestRegionServerRestart(t *testing.T) {
	base := freePorts(t, 2)
	c := startCluster(t, Config{RegionServers: 2, RegionServerPort: base})
	ctx := testCtx(t)
	cl := newClient(t, c.MasterAddr())
	must(t, cl.createTable(ctx, "rsr", families("cf"), splits3...))
	want := []string{"a", "h", "p", "w"}
	for _, r := range want {
		must(t, cl.put(ctx, "rsr", r, kv("cf", "q", r)))
	}
	locs, err := cl.regions(ctx, "rsr")
	must(t, err)
	addr1 := c.RegionServers[1].Addr()
	var onRS1 []location
	for _, l := range locs {
		if l.Server == addr1 {
			onRS1 = append(onRS1, l)
		}
	}
	if len(onRS1) == 0 {
		t.Fatalf("no region on server 1 (%s): %v", addr1, locs)
	}

	c.StopRegionServer(1)
	_, err = getDirect(ctx, cl, onRS1[0], string(onRS1[0].Region.StartKey)+"x")
	if err == nil {
		t.Fatal("get on a stopped server succeeded")
	}
	must(t, c.StartRegionServer(ctx, 1))
	if c.RegionServers[1].Addr() != addr1 {
		t.Fatalf("restarted on %s, want %s", c.RegionServers[1].Addr(), addr1)
	}
	got, _, err := cl.scan(ctx, "rsr", region.Scan{}, 2)
	must(t, err)
	if !slices.Equal(rows(got), want) {
		t.Fatalf("after restart rows %v, want %v", rows(got), want)
	}
	locs2, err := cl.regions(ctx, "rsr")
	must(t, err)
	for i := range locs2 {
		if locs2[i].Server != locs[i].Server {
			t.Errorf("region %q moved from %s to %s", locs2[i].Name, locs[i].Server, locs2[i].Server)
		}
	}
	must(t, cl.put(ctx, "rsr", "zz", kv("cf", "q", "new")))
}

// TestMasterFailover runs a backup master on the same etcd: it stays a
// backup while the first leads, takes over when the first closes, and then
// serves DDL and hbase:meta.
func TestMasterFailover(t *testing.T) {
	c := startCluster(t, Config{})
	ctx := testCtx(t)
	cl := newClient(t, c.MasterAddr())
	must(t, cl.createTable(ctx, "before", families("cf")))
	must(t, cl.put(ctx, "before", "r", kv("cf", "q", "v")))

	m2, err := master.Start(ctx, master.Config{Etcd: c.EtcdClient, Port: 0, SessionTTL: time.Second})
	must(t, err)
	closed := false
	t.Cleanup(func() {
		if !closed {
			m2.Close()
		}
	})
	cl2 := newClient(t, m2.Addr())
	time.Sleep(300 * time.Millisecond)
	if m2.IsActive() {
		t.Fatal("backup master active while the first leads")
	}
	// The backup names the active master and refuses DDL.
	am := &hbasepb.GetActiveMasterResponse{}
	_, err = cl2.call(ctx, m2.Addr(), "ClientMetaService", "GetActiveMaster", &hbasepb.GetActiveMasterRequest{}, nil, am)
	must(t, err)
	if got := fmt.Sprintf("%s:%d", am.GetServerName().GetHostName(), am.GetServerName().GetPort()); got != c.MasterAddr() {
		t.Fatalf("backup says the active master is %s, want %s", got, c.MasterAddr())
	}
	wantClass(t, cl2.createTable(ctx, "refused", families("cf")), hbaserpc.PleaseHold)

	start := time.Now()
	c.Master.Close()
	c.Master = m2 // the cluster's Close now closes m2
	closed = true
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	must(t, m2.WaitActive(wctx))
	t.Logf("backup took over after %v", time.Since(start))

	must(t, cl2.createTable(ctx, "after", families("cf"), []byte("m")))
	must(t, cl2.put(ctx, "after", "x", kv("cf", "q", "1")))
	res, err := cl2.getRow(ctx, "before", "r")
	must(t, err)
	if v, _ := value(res, "cf", "q"); v != "v" {
		t.Fatalf("old table after failover: %v", res.Cells)
	}
	got, _, err := cl2.scan(ctx, "after", region.Scan{}, 1)
	must(t, err)
	if !slices.Equal(rows(got), []string{"x"}) {
		t.Fatalf("new table rows %v", rows(got))
	}
}

// TestScannerLease: a scanner idle past its lease is gone.
func TestScannerLease(t *testing.T) {
	c := startCluster(t, Config{ScannerLease: time.Second})
	ctx := testCtx(t)
	cl := newClient(t, c.MasterAddr())
	must(t, cl.createTable(ctx, "lease", families("cf")))
	for _, r := range []string{"a", "b", "c"} {
		must(t, cl.put(ctx, "lease", r, kv("cf", "q", r)))
	}
	l, err := cl.locate(ctx, "lease", []byte("a"))
	must(t, err)
	pbScan, err := hbaseconv.ScanToPB(region.Scan{}, hbaseconv.ScanOptions{Caching: 1})
	must(t, err)
	resp := &hbasepb.ScanResponse{}
	_, err = cl.call(ctx, l.Server, "ClientService", "Scan", &hbasepb.ScanRequest{Region: hbaseconv.RegionSpecifierFromName(l.Name),
		Scan: pbScan, NumberOfRows: proto.Uint32(1)}, nil, resp)
	must(t, err)
	if !resp.GetMoreResultsInRegion() || resp.ScannerId == nil {
		t.Fatalf("open: %v", resp)
	}
	next := func() error {
		_, err := cl.call(ctx, l.Server, "ClientService", "Scan", &hbasepb.ScanRequest{ScannerId: resp.ScannerId,
			NumberOfRows: proto.Uint32(1), NextCallSeq: proto.Uint64(0)}, nil, &hbasepb.ScanResponse{})
		return err
	}
	time.Sleep(2500 * time.Millisecond)
	wantClass(t, next(), hbaserpc.UnknownScanner)
}

// TestScannerProtocol checks the scanner exchange details the Java client
// relies on: next_call_seq ordering, a scanner ending with its region
// (disable), a Multi naming an unknown region, and per-region PageFilter
// paging with reversed filtered scans across regions.
func TestScannerProtocol(t *testing.T) {
	c := startCluster(t, Config{})
	ctx := testCtx(t)
	cl := newClient(t, c.MasterAddr())
	must(t, cl.createTable(ctx, "sp", families("cf"), splits3...))
	for _, r := range []string{"a", "b", "h", "m", "za", "zb", "zz"} {
		must(t, cl.put(ctx, "sp", r, kv("cf", "q", r)))
	}
	got, _, err := cl.scan(ctx, "sp", region.Scan{Reversed: true, Filter: &filter.PrefixFilter{Prefix: []byte("z")}}, 2)
	must(t, err)
	if w := []string{"zz", "zb", "za"}; !slices.Equal(rows(got), w) {
		t.Fatalf("reversed PrefixFilter rows %v, want %v", rows(got), w)
	}
	// HBase applies a PageFilter per region: one row from each non-empty one.
	got, _, err = cl.scan(ctx, "sp", region.Scan{Filter: &filter.PageFilter{PageSize: 1}}, 2)
	must(t, err)
	if w := []string{"a", "h", "za"}; !slices.Equal(rows(got), w) {
		t.Fatalf("PageFilter rows %v, want %v", rows(got), w)
	}
	res, err := cl.get(ctx, "sp", region.Get{Row: []byte("l"), ClosestRowBefore: true})
	must(t, err)
	if string(res.Row()) != "h" {
		t.Fatalf("closest row before l: %v", res.Cells)
	}

	l, err := cl.locate(ctx, "sp", []byte("a"))
	must(t, err)
	pbScan, err := hbaseconv.ScanToPB(region.Scan{}, hbaseconv.ScanOptions{Caching: 1})
	must(t, err)
	open := func() *hbasepb.ScanResponse {
		resp := &hbasepb.ScanResponse{}
		_, err := cl.call(ctx, l.Server, "ClientService", "Scan", &hbasepb.ScanRequest{Region: hbaseconv.RegionSpecifierFromName(l.Name),
			Scan: pbScan, NumberOfRows: proto.Uint32(0)}, nil, resp)
		must(t, err)
		return resp
	}
	next := func(id *uint64, seq uint64) (*hbasepb.ScanResponse, []region.Result, error) {
		resp := &hbasepb.ScanResponse{}
		cells, err := cl.call(ctx, l.Server, "ClientService", "Scan", &hbasepb.ScanRequest{ScannerId: id,
			NumberOfRows: proto.Uint32(1), NextCallSeq: proto.Uint64(seq)}, nil, resp)
		if err != nil {
			return nil, nil, err
		}
		res, err := scanResults(resp, cells)
		return resp, res, err
	}
	s1 := open()
	_, _, err = next(s1.ScannerId, 5)
	wantClass(t, err, hbaserpc.OutOfOrderScannerNext)
	_, res1, err := next(s1.ScannerId, 0)
	must(t, err)
	if !slices.Equal(rows(res1), []string{"a"}) {
		t.Fatalf("first next: %v", rows(res1))
	}
	// A second scanner whose region closes under it.
	s2 := open()
	must(t, cl.disableTable(ctx, "sp"))
	waitFor(t, 10*time.Second, "the region to close", func() bool {
		_, err := getDirect(ctx, cl, l, "a")
		return hbaserpc.IsClass(err, hbaserpc.NotServingRegion)
	})
	_, _, err = next(s2.ScannerId, 0)
	wantClass(t, err, hbaserpc.UnknownScanner)
	// Closing a scanner that is gone is not an error.
	_, err = cl.call(ctx, l.Server, "ClientService", "Scan", &hbasepb.ScanRequest{ScannerId: s2.ScannerId, CloseScanner: proto.Bool(true)},
		nil, &hbasepb.ScanResponse{})
	must(t, err)
	must(t, cl.enableTable(ctx, "sp"))

	// A Multi naming an unknown region answers with a region-level exception.
	bogus, _ := meta.RegionName(tableName("sp"), nil, 1)
	mresp := &hbasepb.MultiResponse{}
	_, err = cl.call(ctx, l.Server, "ClientService", "Multi", &hbasepb.MultiRequest{RegionAction: []*hbasepb.RegionAction{{
		Region: hbaseconv.RegionSpecifierFromName(bogus),
		Action: []*hbasepb.Action{{Index: proto.Uint32(0), Get: &hbasepb.Get{Row: []byte("a")}}}}}}, nil, mresp)
	must(t, err)
	if rar := mresp.GetRegionActionResult(); len(rar) != 1 || rar[0].GetException().GetName() != hbaserpc.NotServingRegion {
		t.Fatalf("multi on unknown region: %v", mresp)
	}
}

// TestDDLErrors checks the exceptions DDL mistakes get.
func TestDDLErrors(t *testing.T) {
	c := startCluster(t, Config{})
	ctx := testCtx(t)
	cl := newClient(t, c.MasterAddr())
	wantClass(t, cl.createTable(ctx, "bad", families("cf"), []byte("b"), []byte("a")), hbaserpc.DoNotRetryIOException)
	wantClass(t, cl.createTable(ctx, "bad", families("cf"), []byte("b"), []byte("b")), hbaserpc.DoNotRetryIOException)
	wantClass(t, cl.createTable(ctx, "nofam", nil), hbaserpc.DoNotRetryIOException)
	wantClass(t, cl.createTable(ctx, "nons:tbl", families("cf")), hbaserpc.NamespaceNotFound)
	must(t, cl.createTable(ctx, "tr", families("cf"), []byte("m")))
	must(t, cl.put(ctx, "tr", "z", kv("cf", "q", "v")))
	trunc := func(preserve bool) error {
		return cl.masterCall(ctx, "truncateTable", &hbasepb.TruncateTableRequest{TableName: hbaseconv.TableNameToPB(tableName("tr")),
			PreserveSplits: proto.Bool(preserve)}, &hbasepb.TruncateTableResponse{})
	}
	wantClass(t, trunc(true), hbaserpc.TableNotDisabled)
	must(t, cl.disableTable(ctx, "tr"))
	must(t, trunc(false))
	must(t, cl.waitAssigned(ctx, "tr", 1))
	got, _, err := cl.scan(ctx, "tr", region.Scan{}, 2)
	must(t, err)
	if len(got) != 0 {
		t.Fatalf("rows after truncate %v", rows(got))
	}
}
