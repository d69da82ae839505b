package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go.uber.org/goleak"
	"io"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/weirdb/weir/client"
	"github.com/weirdb/weir/internal/cluster"
	"github.com/weirdb/weir/internal/filter"
)

var (
	testCluster *cluster.Cluster
	testConn    *client.Conn
)

func TestMain(m *testing.M) {
	code := run(m)
	// run has closed the connection and the cluster: nothing may remain.
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "weir-client-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	testCluster, err = cluster.Start(ctx, cluster.Config{DataDir: dir, RegionServers: 2})
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting cluster:", err)
		return 1
	}
	defer testCluster.Close()
	testConn, err = client.Connect(ctx, testCluster.MasterAddr(), client.WithUser("tester"),
		client.WithOperationTimeout(20*time.Second), client.WithPause(20*time.Millisecond))
	if err != nil {
		fmt.Fprintln(os.Stderr, "connecting:", err)
		return 1
	}
	defer testConn.Close()
	return m.Run()
}

var (
	fam  = []byte("f")
	fam2 = []byte("g")
)

func b(s string) []byte { return []byte(s) }

// createTable creates a table with families f and g (3 versions), split
// at splits, and drops it when the test ends.
func createTable(t testing.TB, name string, splits ...string) *client.Table {
	t.Helper()
	ctx := context.Background()
	var keys [][]byte
	for _, s := range splits {
		keys = append(keys, b(s))
	}
	adm := testConn.Admin()
	err := adm.CreateTable(ctx, client.TableDescriptor{Name: name, Families: []client.FamilyDescriptor{
		{Name: "f", MaxVersions: 3}, {Name: "g"}}}, keys)
	if err != nil {
		t.Fatalf("CreateTable(%s): %v", name, err)
	}
	t.Cleanup(func() {
		_ = adm.DisableTable(ctx, name)
		_ = adm.DeleteTable(ctx, name)
	})
	return testConn.Table(name)
}

func mustPut(t *testing.T, tbl *client.Table, row, q, v string) {
	t.Helper()
	if err := tbl.Put(context.Background(), client.NewPut(b(row)).AddColumn(fam, b(q), b(v))); err != nil {
		t.Fatalf("Put(%s): %v", row, err)
	}
}

func getValue(t *testing.T, tbl *client.Table, row, q string) string {
	t.Helper()
	res, err := tbl.Get(context.Background(), client.NewGet(b(row)).AddColumn(fam, b(q)))
	if err != nil {
		t.Fatalf("Get(%s): %v", row, err)
	}
	return string(res.Value(fam, b(q)))
}

func TestConnect(t *testing.T) {
	if testConn.ClusterID() == "" {
		t.Error("empty cluster id")
	}
	cs, err := testConn.Admin().ClusterStatus(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(cs.Servers) != 2 || cs.Master == "" {
		t.Errorf("cluster status %+v: want 2 servers and a master", cs)
	}
	if _, err := client.Connect(context.Background(), ""); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("Connect(\"\") = %v", err)
	}
}

func TestDDL(t *testing.T) {
	ctx := context.Background()
	adm := testConn.Admin()
	if err := adm.CreateNamespace(ctx, "ddlns"); err != nil {
		t.Fatal(err)
	}
	if err := adm.CreateNamespace(ctx, "ddlns"); !errors.Is(err, client.ErrNamespaceExists) {
		t.Errorf("second CreateNamespace = %v", err)
	}
	nss, err := adm.ListNamespaces(ctx)
	if err != nil || !slices.Contains(nss, "ddlns") || !slices.Contains(nss, "default") {
		t.Fatalf("ListNamespaces = %v, %v", nss, err)
	}
	name := "ddlns:t1"
	d := client.TableDescriptor{Name: name, Families: []client.FamilyDescriptor{
		{Name: "f", MaxVersions: 5, TTL: 3600, BloomFilter: "ROWCOL", InMemory: true, BlockSize: 32768},
	}, MaxFileSize: 1 << 30}
	if err := adm.CreateTable(ctx, d, [][]byte{b("d"), b("m"), b("t")}); err != nil {
		t.Fatal(err)
	}
	if err := adm.CreateTable(ctx, d, nil); !errors.Is(err, client.ErrTableExists) {
		t.Errorf("second CreateTable = %v", err)
	}
	regions, err := adm.Regions(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	var starts []string
	for _, r := range regions {
		starts = append(starts, string(r.StartKey))
		if r.Server == "" {
			t.Errorf("region %s has no server", r.Name)
		}
	}
	if !slices.Equal(starts, []string{"", "d", "m", "t"}) {
		t.Errorf("region starts %q", starts)
	}
	got, err := adm.DescribeTable(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	f := got.Families[0]
	if got.Name != name || len(got.Families) != 1 || f.Name != "f" || f.MaxVersions != 5 || f.TTL != 3600 ||
		f.BloomFilter != "ROWCOL" || !f.InMemory || f.BlockSize != 32768 || got.MaxFileSize != 1<<30 {
		t.Errorf("DescribeTable = %+v", got)
	}
	tables, err := adm.ListTables(ctx, "ddlns:.*")
	if err != nil || !slices.Equal(tables, []string{name}) {
		t.Errorf("ListTables = %v, %v", tables, err)
	}
	if ok, err := adm.TableExists(ctx, name); !ok || err != nil {
		t.Errorf("TableExists = %v, %v", ok, err)
	}
	tbl := testConn.Table(name)
	mustPut(t, tbl, "a", "q", "1")
	mustPut(t, tbl, "x", "q", "2")

	if err := adm.DisableTable(ctx, name); err != nil {
		t.Fatal(err)
	}
	if ok, err := adm.IsTableEnabled(ctx, name); ok || err != nil {
		t.Errorf("IsTableEnabled after disable = %v, %v", ok, err)
	}
	if _, err := tbl.Get(ctx, client.NewGet(b("a"))); !errors.Is(err, client.ErrTableDisabled) {
		t.Errorf("Get on a disabled table = %v", err)
	}
	if err := adm.EnableTable(ctx, name); err != nil {
		t.Fatal(err)
	}
	if v := getValue(t, tbl, "x", "q"); v != "2" {
		t.Errorf("after enable, x = %q", v)
	}
	if err := adm.DisableTable(ctx, name); err != nil {
		t.Fatal(err)
	}
	if err := adm.TruncateTable(ctx, name, true); err != nil {
		t.Fatal(err)
	}
	if v := getValue(t, tbl, "x", "q"); v != "" {
		t.Errorf("after truncate, x = %q", v)
	}
	if regions, err := adm.Regions(ctx, name); err != nil || len(regions) != 4 {
		t.Errorf("after truncate with splits kept: %d regions, %v", len(regions), err)
	}
	d.Families = append(d.Families, client.FamilyDescriptor{Name: "g"})
	if err := adm.ModifyTable(ctx, d); err != nil {
		t.Fatal(err)
	}
	if got, err := adm.DescribeTable(ctx, name); err != nil || len(got.Families) != 2 {
		t.Errorf("after ModifyTable: %+v, %v", got, err)
	}
	if err := adm.Flush(ctx, name); err != nil {
		t.Errorf("Flush: %v", err)
	}
	if err := adm.Compact(ctx, name, true); err != nil {
		t.Errorf("Compact: %v", err)
	}
	if err := adm.DisableTable(ctx, name); err != nil {
		t.Fatal(err)
	}
	if err := adm.DeleteTable(ctx, name); err != nil {
		t.Fatal(err)
	}
	if ok, err := adm.TableExists(ctx, name); ok || err != nil {
		t.Errorf("TableExists after delete = %v, %v", ok, err)
	}
	if err := adm.DeleteNamespace(ctx, "ddlns"); err != nil {
		t.Fatal(err)
	}
}

func TestPutGetDelete(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, "pgd")
	for ts := int64(1); ts <= 4; ts++ {
		if err := tbl.Put(ctx, client.NewPut(b("r")).AddColumnTS(fam, b("q"), ts*10, fmt.Appendf(nil, "v%d", ts))); err != nil {
			t.Fatal(err)
		}
	}
	res, err := tbl.Get(ctx, client.NewGet(b("r")).AddColumn(fam, b("q")).SetMaxVersions(10))
	if err != nil {
		t.Fatal(err)
	}
	var vals []string
	for _, c := range res.Cells {
		vals = append(vals, string(c.Value))
	}
	// The family keeps 3 versions.
	if !slices.Equal(vals, []string{"v4", "v3", "v2"}) || string(res.Row) != "r" {
		t.Errorf("versions = %q (row %q)", vals, res.Row)
	}
	res, err = tbl.Get(ctx, client.NewGet(b("r")).SetTimeRange(15, 35).SetMaxVersions(5))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 2 || string(res.Cells[0].Value) != "v3" || string(res.Cells[1].Value) != "v2" {
		t.Errorf("time range [15,35) = %v", res.Cells)
	}
	// Delete the newest version: the one before shows.
	if err := tbl.Delete(ctx, client.NewDelete(b("r")).AddColumn(fam, b("q"))); err != nil {
		t.Fatal(err)
	}
	if v := getValue(t, tbl, "r", "q"); v != "v3" {
		t.Errorf("after deleting the latest version: %q", v)
	}
	if err := tbl.Delete(ctx, client.NewDelete(b("r")).AddColumns(fam, b("q"))); err != nil {
		t.Fatal(err)
	}
	if v := getValue(t, tbl, "r", "q"); v != "" {
		t.Errorf("after deleting all versions: %q", v)
	}
	// Family and whole-row deletes.
	if err := tbl.Put(ctx, client.NewPut(b("r2")).AddColumn(fam, b("a"), b("1")).AddColumn(fam2, b("b"), b("2"))); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Delete(ctx, client.NewDelete(b("r2")).AddFamily(fam)); err != nil {
		t.Fatal(err)
	}
	res, err = tbl.Get(ctx, client.NewGet(b("r2")))
	if err != nil || len(res.Cells) != 1 || string(res.Cells[0].Family) != "g" {
		t.Errorf("after family delete: %v, %v", res, err)
	}
	if err := tbl.Delete(ctx, client.NewDelete(b("r2"))); err != nil {
		t.Fatal(err)
	}
	if ok, err := tbl.Exists(ctx, client.NewGet(b("r2"))); ok || err != nil {
		t.Errorf("Exists after row delete = %v, %v", ok, err)
	}
	mustPut(t, tbl, "r3", "q", "x")
	if ok, err := tbl.Exists(ctx, client.NewGet(b("r3"))); !ok || err != nil {
		t.Errorf("Exists = %v, %v", ok, err)
	}
	// DeleteFamilyVersion removes exactly one timestamp.
	if err := tbl.Put(ctx, client.NewPut(b("r4")).AddColumnTS(fam, b("q"), 5, b("old")).AddColumnTS(fam, b("q"), 6, b("new"))); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Delete(ctx, client.NewDelete(b("r4")).AddFamilyVersion(fam, 6)); err != nil {
		t.Fatal(err)
	}
	if v := getValue(t, tbl, "r4", "q"); v != "old" {
		t.Errorf("after DeleteFamilyVersion: %q", v)
	}
}

func TestIncrementAppend(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, "incapp")
	for i, want := range []int64{5, 12} {
		res, err := tbl.Increment(ctx, client.NewIncrement(b("c")).AddColumn(fam, b("n"), []int64{5, 7}[i]))
		if err != nil {
			t.Fatal(err)
		}
		if n, ok := client.Int64(res.Value(fam, b("n"))); !ok || n != want {
			t.Errorf("increment %d: %v, %v", i, n, ok)
		}
	}
	if _, err := tbl.Append(ctx, client.NewAppend(b("a")).AddColumn(fam, b("s"), b("foo"))); err != nil {
		t.Fatal(err)
	}
	res, err := tbl.Append(ctx, client.NewAppend(b("a")).AddColumn(fam, b("s"), b("bar")))
	if err != nil {
		t.Fatal(err)
	}
	if v := string(res.Value(fam, b("s"))); v != "foobar" {
		t.Errorf("append = %q", v)
	}
}

func TestCheckAndMutate(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, "cam")
	mustPut(t, tbl, "r", "q", "v1")
	ok, err := tbl.CheckAndMutate(ctx, &client.CheckAndMutate{Row: b("r"), Family: fam, Qualifier: b("q"), Op: filter.Equal, Value: b("nope"),
		Mutations: []client.Mutation{client.NewPut(b("r")).AddColumn(fam, b("q"), b("v2"))}})
	if err != nil || ok {
		t.Fatalf("failing check = %v, %v", ok, err)
	}
	ok, err = tbl.CheckAndMutate(ctx, &client.CheckAndMutate{Row: b("r"), Family: fam, Qualifier: b("q"), Op: filter.Equal, Value: b("v1"),
		Mutations: []client.Mutation{
			client.NewPut(b("r")).AddColumn(fam, b("q"), b("v2")),
			client.NewDelete(b("r")).AddColumns(fam, b("other")),
		}})
	if err != nil || !ok {
		t.Fatalf("passing check = %v, %v", ok, err)
	}
	if v := getValue(t, tbl, "r", "q"); v != "v2" {
		t.Errorf("after check-and-put: %q", v)
	}
	// Value absent.
	ok, err = tbl.CheckAndMutate(ctx, &client.CheckAndMutate{Row: b("r"), Family: fam, Qualifier: b("new"), IfNotExists: true,
		Mutations: []client.Mutation{client.NewPut(b("r")).AddColumn(fam, b("new"), b("x"))}})
	if err != nil || !ok {
		t.Fatalf("if-not-exists on an absent column = %v, %v", ok, err)
	}
	ok, err = tbl.CheckAndMutate(ctx, &client.CheckAndMutate{Row: b("r"), Family: fam, Qualifier: b("new"), IfNotExists: true,
		Mutations: []client.Mutation{client.NewPut(b("r")).AddColumn(fam, b("new"), b("y"))}})
	if err != nil || ok {
		t.Fatalf("if-not-exists on a present column = %v, %v", ok, err)
	}
	// HBase reads the condition as "Value Op stored": GREATER holds when
	// the given value is greater than the stored one.
	ok, err = tbl.CheckAndMutate(ctx, &client.CheckAndMutate{Row: b("r"), Family: fam, Qualifier: b("q"), Op: filter.Greater, Value: b("v3"),
		Mutations: []client.Mutation{client.NewPut(b("r")).AddColumn(fam, b("gt"), b("1"))}})
	if err != nil || !ok {
		t.Fatalf("GREATER with v3 over stored v2 = %v, %v", ok, err)
	}
	ok, err = tbl.CheckAndMutate(ctx, &client.CheckAndMutate{Row: b("r"), Family: fam, Qualifier: b("q"), Op: filter.Greater, Value: b("v1"),
		Mutations: []client.Mutation{client.NewPut(b("r")).AddColumn(fam, b("gt"), b("2"))}})
	if err != nil || ok {
		t.Fatalf("GREATER with v1 over stored v2 = %v, %v", ok, err)
	}
	// A filter condition.
	vf, _ := filter.NewValueFilter(filter.Equal, filter.NewBinaryComparator(b("x")))
	ok, err = tbl.CheckAndMutate(ctx, &client.CheckAndMutate{Row: b("r"), Filter: vf,
		Mutations: []client.Mutation{client.NewPut(b("r")).AddColumn(fam, b("byfilter"), b("1"))}})
	if err != nil || !ok {
		t.Fatalf("filter condition = %v, %v", ok, err)
	}
}

func TestMutateRow(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, "mrow")
	mustPut(t, tbl, "r", "old", "1")
	if err := tbl.MutateRow(ctx, b("r"), client.NewPut(b("r")).AddColumn(fam, b("new"), b("2")),
		client.NewDelete(b("r")).AddColumns(fam, b("old"))); err != nil {
		t.Fatal(err)
	}
	if getValue(t, tbl, "r", "old") != "" || getValue(t, tbl, "r", "new") != "2" {
		t.Error("MutateRow did not apply both mutations")
	}
	// One bad mutation fails them all.
	err := tbl.MutateRow(ctx, b("r"), client.NewPut(b("r")).AddColumn(fam, b("x"), b("3")),
		client.NewPut(b("r")).AddColumn(b("nofam"), b("x"), b("3")))
	if err == nil {
		t.Fatal("MutateRow with a missing family succeeded")
	}
	if getValue(t, tbl, "r", "x") != "" {
		t.Error("a failed MutateRow applied part of its mutations")
	}
	if err := tbl.MutateRow(ctx, b("r"), client.NewPut(b("other")).AddColumn(fam, b("x"), b("3"))); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("MutateRow with another row's mutation = %v", err)
	}
}

func TestBatch(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, "batch", "d", "m", "t")
	var actions []client.Action
	rows := []string{"a", "e", "n", "x", "b", "z"}
	for _, r := range rows {
		actions = append(actions, client.NewPut(b(r)).AddColumn(fam, b("q"), b("v"+r)))
	}
	actions = append(actions, client.NewPut(b("p")).AddColumn(b("nofam"), b("q"), b("bad")))
	results, err := tbl.Batch(ctx, actions)
	if err == nil {
		t.Error("Batch with a bad action returned no error")
	}
	for i, r := range results {
		if bad := i == len(actions)-1; (r.Err != nil) != bad {
			t.Errorf("action %d: err %v", i, r.Err)
		}
	}
	if bad := results[len(results)-1].Err; !errors.Is(bad, client.ErrNoSuchColumnFamily) {
		t.Errorf("bad family error = %v", bad)
	}
	var gets []client.Action
	for _, r := range rows {
		gets = append(gets, client.NewGet(b(r)))
	}
	gets = append(gets, client.NewGet(b("missing")), client.NewDelete(b("a")), client.NewIncrement(b("k")).AddColumn(fam, b("n"), 3))
	results, err = tbl.Batch(ctx, gets)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if v := string(results[i].Result.Value(fam, b("q"))); v != "v"+r {
			t.Errorf("get %s = %q", r, v)
		}
	}
	if results[len(rows)].Result.Exists {
		t.Error("missing row exists")
	}
	if n, _ := client.Int64(results[len(rows)+2].Result.Value(fam, b("n"))); n != 3 {
		t.Errorf("batched increment = %d", n)
	}
	if getValue(t, tbl, "a", "q") != "" {
		t.Error("batched delete did not apply")
	}
}

func scanRows(t *testing.T, tbl *client.Table, s *client.Scan) []string {
	t.Helper()
	sc := tbl.Scan(context.Background(), s)
	defer sc.Close()
	var rows []string
	for {
		r, err := sc.Next()
		if err == io.EOF {
			return rows
		}
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		if !r.Partial {
			rows = append(rows, string(r.Row))
		}
	}
}

func TestScan(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, "scan", "d", "m", "t")
	all := []string{"a", "b", "d", "e", "ma", "mb", "n", "pa", "pb", "t", "u", "z"}
	var puts []client.Action
	for _, r := range all {
		puts = append(puts, client.NewPut(b(r)).AddColumn(fam, b("q1"), b(r+"1")).AddColumn(fam, b("q2"), b(r+"2")).AddColumn(fam, b("q3"), b(r+"3")))
	}
	if _, err := tbl.Batch(ctx, puts); err != nil {
		t.Fatal(err)
	}
	rev := slices.Clone(all)
	slices.Reverse(rev)
	for _, tc := range []struct {
		name string
		s    *client.Scan
		want []string
	}{
		{"all", client.NewScan(), all},
		{"reversed", client.NewScan().SetReversed(true), rev},
		{"caching 2", client.NewScan().SetCaching(2), all},
		{"start/stop", client.NewScan().WithStartRow(b("d"), true).WithStopRow(b("t"), false), []string{"d", "e", "ma", "mb", "n", "pa", "pb"}},
		{"exclusive start, inclusive stop", client.NewScan().WithStartRow(b("d"), false).WithStopRow(b("t"), true), []string{"e", "ma", "mb", "n", "pa", "pb", "t"}},
		{"reversed start/stop", client.NewScan().SetReversed(true).WithStartRow(b("t"), true).WithStopRow(b("d"), false), []string{"t", "pb", "pa", "n", "mb", "ma", "e"}},
		{"reversed exclusive start, inclusive stop", client.NewScan().SetReversed(true).WithStartRow(b("t"), false).WithStopRow(b("d"), true), []string{"pb", "pa", "n", "mb", "ma", "e", "d"}},
		{"limit across regions", client.NewScan().SetLimit(5).SetCaching(2), all[:5]},
		{"reversed limit", client.NewScan().SetReversed(true).SetLimit(4), rev[:4]},
		{"prefix", client.NewScan().SetFilter(filter.NewPrefixFilter(b("m"))), []string{"ma", "mb"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := scanRows(t, tbl, tc.s); !slices.Equal(got, tc.want) {
				t.Errorf("rows %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("caching 2 batch 2", func(t *testing.T) {
		sc := tbl.Scan(ctx, client.NewScan().SetCaching(2).SetBatch(2).WithStopRow(b("e"), true))
		defer sc.Close()
		var sizes []int
		var cells int
		for {
			r, err := sc.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, len(r.Cells))
			cells += len(r.Cells)
		}
		if cells != 12 || slices.Max(sizes) > 2 {
			t.Errorf("batched results of %v cells (total %d), want 12 cells in results of at most 2", sizes, cells)
		}
	})
	t.Run("page filter", func(t *testing.T) {
		pf, _ := filter.NewPageFilter(2)
		got := scanRows(t, tbl, client.NewScan().SetFilter(pf))
		// HBase applies PageFilter per region: each of the 4 regions
		// returns at most 2 rows.
		want := []string{"a", "b", "d", "e", "ma", "mb", "t", "u"}
		if !slices.Equal(got, want) {
			t.Errorf("rows %q, want %q", got, want)
		}
	})
	t.Run("columns and versions", func(t *testing.T) {
		sc := tbl.Scan(ctx, client.NewScan().AddColumn(fam, b("q2")).WithStartRow(b("n"), true).SetLimit(1))
		defer sc.Close()
		r, err := sc.Next()
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Cells) != 1 || string(r.Value(fam, b("q2"))) != "n2" {
			t.Errorf("got %v", r.Cells)
		}
		if _, err := sc.Next(); err != io.EOF {
			t.Errorf("after the limit: %v", err)
		}
	})
	t.Run("early close", func(t *testing.T) {
		sc := tbl.Scan(ctx, client.NewScan().SetCaching(1))
		if _, err := sc.Next(); err != nil {
			t.Fatal(err)
		}
		_ = sc.Close()
		if _, err := sc.Next(); err != io.EOF {
			t.Errorf("Next after Close = %v", err)
		}
	})
}

func TestConcurrent(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, "conc", "k")
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for g := range 32 {
		wg.Go(func() {
			for i := range 20 {
				row := fmt.Appendf(nil, "%c%03d-%d", 'a'+g%26, g, i)
				v := fmt.Appendf(nil, "v%d", i)
				if err := tbl.Put(ctx, client.NewPut(row).AddColumn(fam, b("q"), v)); err != nil {
					errs <- err
					return
				}
				res, err := tbl.Get(ctx, client.NewGet(row))
				if err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(res.Value(fam, b("q")), v) {
					errs <- fmt.Errorf("row %s: got %q want %q", row, res.Value(fam, b("q")), v)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	_, err := testConn.Table("nosuchtable").Get(ctx, client.NewGet(b("r")))
	if !errors.Is(err, client.ErrTableNotFound) {
		t.Errorf("Get on a missing table = %v", err)
	}
	if err := testConn.Table("nosuchns:t").Put(ctx, client.NewPut(b("r")).AddColumn(fam, b("q"), b("v"))); !errors.Is(err, client.ErrTableNotFound) {
		t.Errorf("Put on a missing table = %v", err)
	}
	tbl := createTable(t, "errs")
	err = tbl.Put(ctx, client.NewPut(b("r")).AddColumn(b("nofam"), b("q"), b("v")))
	var re *client.RemoteError
	if !errors.As(err, &re) || re.Class != "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException" {
		t.Errorf("Put to a missing family = %v", err)
	}
	if !errors.Is(err, client.ErrNoSuchColumnFamily) {
		t.Errorf("errors.Is(%v, ErrNoSuchColumnFamily) = false", err)
	}
	if _, err := tbl.Get(ctx, client.NewGet(nil)); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("Get of an empty row = %v", err)
	}
	if _, err := testConn.Admin().DescribeTable(ctx, "nosuchtable"); !errors.Is(err, client.ErrTableNotFound) {
		t.Errorf("DescribeTable of a missing table = %v", err)
	}
}
