package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/client"
	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
)

// spacePeriod is the report period of the space quota tests: sizes travel
// to the master and decisions back within a few of them.
const spacePeriod = 50 * time.Millisecond

func startSpaceCluster(t *testing.T) (*Cluster, *client.Conn, context.Context) {
	t.Helper()
	c := startCluster(t, Config{SpaceReportPeriod: spacePeriod})
	ctx := testCtx(t)
	conn, err := client.Connect(ctx, c.MasterAddr(), client.WithUser("tester"),
		client.WithOperationTimeout(10*time.Second), client.WithPause(10*time.Millisecond))
	must(t, err)
	t.Cleanup(func() { conn.Close() })
	return c, conn, ctx
}

func createFTable(t *testing.T, ctx context.Context, conn *client.Conn, name string) *client.Table {
	t.Helper()
	must(t, conn.Admin().CreateTable(ctx, client.TableDescriptor{Name: name,
		Families: []client.FamilyDescriptor{{Name: "f", MaxVersions: 1}}}, nil))
	return conn.Table(name)
}

// eventually polls cond every 20 ms until it holds or 10 s pass.
func eventually(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ok, err := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s (last error: %v)", what, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// wantNoQuotas fails if list_quotas shows any quota.
func wantNoQuotas(t *testing.T, ctx context.Context, admin *client.Admin, what string) {
	t.Helper()
	quotas, err := admin.ListQuotas(ctx)
	must(t, err)
	if len(quotas) != 0 {
		t.Fatalf("%s: %+v", what, quotas)
	}
}

func wantSpaceLimited(t *testing.T, err error, msg string) {
	t.Helper()
	if !errors.Is(err, client.ErrSpaceLimited) {
		t.Fatalf("error %v; want a SpaceLimitingException", err)
	}
	want := "org.apache.hadoop.hbase.quotas.SpaceLimitingException: " + msg
	var re *client.RemoteError
	if !errors.As(err, &re) || re.Message != want {
		t.Fatalf("error %v; want the message %q", err, want)
	}
}

// TestSpaceQuotaNoInserts is the whole loop on one region server: a 64 KiB
// NO_INSERTS quota, writes until the sizes the region server reports put
// the table in violation, Puts, Increments and Appends refused while
// Deletes pass, the violation left after deletes and a major compaction,
// then the stricter policies, and removal.
func TestSpaceQuotaNoInserts(t *testing.T) {
	c, conn, ctx := startSpaceCluster(t)
	admin := conn.Admin()
	tbl := createFTable(t, ctx, conn, "sq")
	must(t, admin.SetSpaceQuota(ctx, client.SpaceQuotaSettings{Table: "sq", Limit: 64 << 10, Policy: client.SpaceNoInserts}))

	quotas, err := admin.ListQuotas(ctx)
	must(t, err)
	if len(quotas) != 1 || quotas[0].Owner != "TABLE => 'sq'" ||
		strings.Join(quotas[0].Settings, ";") != "TYPE => SPACE, TABLE => sq, LIMIT => 64.00K, VIOLATION_POLICY => NO_INSERTS" {
		t.Fatalf("list_quotas = %+v", quotas)
	}

	// Random values: Pebble compresses blocks, and the on-disk size is
	// what counts.
	value := make([]byte, 4096)
	_, _ = rand.NewChaCha8([32]byte{1}).Read(value)
	var refused error
	written := 0
	deadline := time.Now().Add(10 * time.Second)
	for refused == nil && time.Now().Before(deadline) {
		err := tbl.Put(ctx, client.NewPut([]byte(fmt.Sprintf("r%05d", written))).AddColumn([]byte("f"), []byte("c"), value))
		switch {
		case err == nil:
			written++
		case errors.Is(err, client.ErrSpaceLimited):
			refused = err
		default:
			t.Fatalf("put %d: %v", written, err)
		}
		if written%8 == 0 {
			time.Sleep(spacePeriod / 5) // let reports keep up with the writer
		}
	}
	if refused == nil {
		t.Fatalf("%d puts of 4 KiB under a 64 KiB quota, none refused", written)
	}
	if written < 16 {
		t.Fatalf("refused after %d puts of 4 KiB: the 64 KiB limit was not reached", written)
	}
	wantSpaceLimited(t, refused, "NO_INSERTS Puts are disallowed due to a space quota.")
	_, err = tbl.Increment(ctx, client.NewIncrement([]byte("ctr")).AddColumn([]byte("f"), []byte("n"), 1))
	wantSpaceLimited(t, err, "NO_INSERTS Increments are disallowed due to a space quota.")
	_, err = tbl.Append(ctx, client.NewAppend([]byte("app")).AddColumn([]byte("f"), []byte("a"), []byte("z")))
	wantSpaceLimited(t, err, "NO_INSERTS Appends are disallowed due to a space quota.")
	// A batch: the region action's mutations fail together, as in HBase.
	res, err := tbl.Batch(ctx, []client.Action{client.NewPut([]byte("b1")).AddColumn([]byte("f"), []byte("c"), value)})
	if err == nil && len(res) == 1 {
		err = res[0].Err
	}
	wantSpaceLimited(t, err, "NO_INSERTS Puts are disallowed due to a space quota.")

	// The master's and the region server's views agree.
	tables, _, err := admin.SpaceQuotaSnapshots(ctx)
	must(t, err)
	if len(tables) != 1 || tables[0].Owner != "sq" || !tables[0].InViolation || tables[0].Policy != client.SpaceNoInserts ||
		tables[0].Limit != 64<<10 || tables[0].Usage <= 64<<10 {
		t.Fatalf("master snapshots = %+v", tables)
	}
	rsSnaps, err := admin.RegionServerSpaceQuotaSnapshots(ctx, c.RegionServers[0].Addr())
	must(t, err)
	if len(rsSnaps) != 1 || !rsSnaps[0].InViolation {
		t.Fatalf("region server snapshots = %+v", rsSnaps)
	}
	// hbase:quota holds the snapshot where HBase's QuotaTableUtil.getSnapshots
	// reads it: row t.<table>, u:p, a bare SpaceQuotaSnapshot.
	sc := conn.Table("hbase:quota").Scan(ctx, client.NewScan().AddFamily([]byte("u")))
	row, err := sc.Next()
	sc.Close()
	must(t, err)
	var pbSnap hbasepb.SpaceQuotaSnapshot
	if string(row.Row) != "t.sq" || len(row.Cells) != 1 || string(row.Cells[0].Qualifier) != "p" ||
		proto.Unmarshal(row.Cells[0].Value, &pbSnap) != nil || !pbSnap.GetQuotaStatus().GetInViolation() ||
		pbSnap.GetQuotaStatus().GetViolationPolicy() != hbasepb.SpaceViolationPolicy_NO_INSERTS {
		t.Fatalf("hbase:quota usage row %q %+v: snapshot %v", row.Row, row.Cells, &pbSnap)
	}
	sizes, err := admin.SpaceQuotaTableSizes(ctx)
	must(t, err)
	if len(sizes) != 1 || sizes[0].Table != "sq" || sizes[0].Bytes < 64<<10 {
		t.Fatalf("table sizes = %+v after %d puts of 4 KiB", sizes, written)
	}

	// Deletes pass; after a major compaction the usage falls under the
	// limit and Puts work again.
	for i := range written {
		must(t, tbl.Delete(ctx, client.NewDelete([]byte(fmt.Sprintf("r%05d", i)))))
	}
	must(t, admin.Flush(ctx, "sq"))
	must(t, admin.Compact(ctx, "sq", true))
	eventually(t, "puts accepted after deletes and a major compaction", func() (bool, error) {
		err := tbl.Put(ctx, client.NewPut([]byte("again")).AddColumn([]byte("f"), []byte("c"), []byte("v")))
		return err == nil, err
	})

	// NO_WRITES refuses Deletes too; NO_WRITES_COMPACTIONS also compactions.
	must(t, admin.SetSpaceQuota(ctx, client.SpaceQuotaSettings{Table: "sq", Limit: 1, Policy: client.SpaceNoWrites}))
	eventually(t, "deletes refused under NO_WRITES", func() (bool, error) {
		err := tbl.Delete(ctx, client.NewDelete([]byte("again")))
		return errors.Is(err, client.ErrSpaceLimited), err
	})
	wantSpaceLimited(t, tbl.Delete(ctx, client.NewDelete([]byte("again"))), "NO_WRITES Deletes are disallowed due to a space quota.")
	must(t, admin.Compact(ctx, "sq", false))
	must(t, admin.SetSpaceQuota(ctx, client.SpaceQuotaSettings{Table: "sq", Limit: 1, Policy: client.SpaceNoWritesCompactions}))
	eventually(t, "compactions refused under NO_WRITES_COMPACTIONS", func() (bool, error) {
		err := admin.Compact(ctx, "sq", true)
		return err != nil && strings.Contains(err.Error(), "Compactions on this region are disabled due to a space quota violation."), err
	})

	// Removing the quota lifts the policy at once (SetQuota decides before
	// it returns; region servers follow by watch).
	must(t, admin.SetSpaceQuota(ctx, client.SpaceQuotaSettings{Table: "sq", Remove: true}))
	eventually(t, "puts accepted after the quota is removed", func() (bool, error) {
		err := tbl.Put(ctx, client.NewPut([]byte("free")).AddColumn([]byte("f"), []byte("c"), value))
		return err == nil, err
	})
	wantNoQuotas(t, ctx, admin, "quotas after removal")
}

// TestSpaceQuotaDisable: a DISABLE violation disables the table, enabling
// it is refused with HBase's AccessDeniedException, and lifting the quota
// enables it again.
func TestSpaceQuotaDisable(t *testing.T) {
	_, conn, ctx := startSpaceCluster(t)
	admin := conn.Admin()
	tbl := createFTable(t, ctx, conn, "sqd")
	for i := range 4 {
		must(t, tbl.Put(ctx, client.NewPut([]byte(fmt.Sprint(i))).AddColumn([]byte("f"), []byte("c"), bytes.Repeat([]byte("y"), 1024))))
	}
	must(t, admin.SetSpaceQuota(ctx, client.SpaceQuotaSettings{Table: "sqd", Limit: 1024, Policy: client.SpaceDisable}))
	eventually(t, "table disabled by its space quota", func() (bool, error) {
		on, err := admin.IsTableEnabled(ctx, "sqd")
		return err == nil && !on, err
	})
	err := admin.EnableTable(ctx, "sqd")
	var re *client.RemoteError
	if !errors.As(err, &re) || re.Class != "org.apache.hadoop.hbase.security.AccessDeniedException" ||
		!strings.Contains(re.Message, "Enabling the table 'sqd' is disallowed due to a violated space quota.") {
		t.Fatalf("enable under a DISABLE violation: %v", err)
	}
	must(t, admin.SetSpaceQuota(ctx, client.SpaceQuotaSettings{Table: "sqd", Remove: true}))
	eventually(t, "table enabled when its quota is lifted", func() (bool, error) {
		on, err := admin.IsTableEnabled(ctx, "sqd")
		return err == nil && on, err
	})
	eventually(t, "writes after re-enabling", func() (bool, error) {
		err := tbl.Put(ctx, client.NewPut([]byte("z")).AddColumn([]byte("f"), []byte("c"), []byte("v")))
		return err == nil, err
	})
}

// TestSpaceQuotaNamespace: a namespace quota covers the sum of its tables
// and imposes its policy on each of them.
func TestSpaceQuotaNamespace(t *testing.T) {
	_, conn, ctx := startSpaceCluster(t)
	admin := conn.Admin()
	must(t, admin.CreateNamespace(ctx, "sns"))
	t1, t2 := createFTable(t, ctx, conn, "sns:a"), createFTable(t, ctx, conn, "sns:b")
	must(t, admin.SetSpaceQuota(ctx, client.SpaceQuotaSettings{Namespace: "sns", Limit: 8 << 10, Policy: client.SpaceNoWrites}))
	v := bytes.Repeat([]byte("n"), 1024)
	for i := range 5 {
		must(t, t1.Put(ctx, client.NewPut([]byte(fmt.Sprint(i))).AddColumn([]byte("f"), []byte("c"), v)))
		must(t, t2.Put(ctx, client.NewPut([]byte(fmt.Sprint(i))).AddColumn([]byte("f"), []byte("c"), v)))
	}
	eventually(t, "namespace violation reaches its tables", func() (bool, error) {
		err := t2.Delete(ctx, client.NewDelete([]byte("0")))
		return errors.Is(err, client.ErrSpaceLimited), err
	})
	_, ns, err := admin.SpaceQuotaSnapshots(ctx)
	must(t, err)
	if len(ns) != 1 || ns[0].Owner != "sns" || !ns[0].InViolation || ns[0].Usage <= 8<<10 {
		t.Fatalf("namespace snapshots = %+v", ns)
	}

	// Dropping the tables and the namespace drops the namespace's quota.
	for _, name := range []string{"sns:a", "sns:b"} {
		must(t, admin.DisableTable(ctx, name))
		must(t, admin.DeleteTable(ctx, name))
	}
	must(t, admin.DeleteNamespace(ctx, "sns"))
	wantNoQuotas(t, ctx, admin, "quotas after dropping the namespace")
}

// TestSpaceQuotaBadInput: every malformed request is refused with an error
// naming the problem, and nothing is stored.
func TestSpaceQuotaBadInput(t *testing.T) {
	c, conn, ctx := startSpaceCluster(t)
	admin := conn.Admin()
	createFTable(t, ctx, conn, "sqb")
	cl := newClient(t, c.MasterAddr())
	space := func(limit uint64, policy hbasepb.SpaceViolationPolicy) *hbasepb.SpaceLimitRequest {
		return &hbasepb.SpaceLimitRequest{Quota: &hbasepb.SpaceQuota{SoftLimit: proto.Uint64(limit), ViolationPolicy: policy.Enum()}}
	}
	tn := hbaseconv.TableNameToPB(tableName("sqb"))
	for _, tc := range []struct {
		name  string
		req   *hbasepb.SetQuotaRequest
		class string
		msg   string
	}{
		{"missing table", &hbasepb.SetQuotaRequest{TableName: hbaseconv.TableNameToPB(tableName("nope")),
			SpaceLimit: space(1024, hbasepb.SpaceViolationPolicy_NO_INSERTS)}, hbaserpc.TableNotFound, "nope"},
		{"missing namespace", &hbasepb.SetQuotaRequest{Namespace: proto.String("nons"),
			SpaceLimit: space(1024, hbasepb.SpaceViolationPolicy_NO_INSERTS)}, hbaserpc.NamespaceNotFound, "nons"},
		{"user", &hbasepb.SetQuotaRequest{UserName: proto.String("u"),
			SpaceLimit: space(1024, hbasepb.SpaceViolationPolicy_NO_INSERTS)}, hbaserpc.DoNotRetryIOException, "not to a USER"},
		{"zero limit", &hbasepb.SetQuotaRequest{TableName: tn,
			SpaceLimit: space(0, hbasepb.SpaceViolationPolicy_NO_INSERTS)}, hbaserpc.DoNotRetryIOException, "out of range"},
		{"unknown policy", &hbasepb.SetQuotaRequest{TableName: tn,
			SpaceLimit: space(1024, hbasepb.SpaceViolationPolicy(9))}, hbaserpc.DoNotRetryIOException, "unknown space violation policy 9"},
		{"no policy", &hbasepb.SetQuotaRequest{TableName: tn,
			SpaceLimit: &hbasepb.SpaceLimitRequest{Quota: &hbasepb.SpaceQuota{SoftLimit: proto.Uint64(5)}}}, hbaserpc.DoNotRetryIOException, "violation policy"},
		{"system table", &hbasepb.SetQuotaRequest{TableName: hbaseconv.TableNameToPB(tableName("hbase:meta")),
			SpaceLimit: space(1024, hbasepb.SpaceViolationPolicy_NO_INSERTS)}, hbaserpc.DoNotRetryIOException, "system table"},
		{"with a throttle", &hbasepb.SetQuotaRequest{TableName: tn, SpaceLimit: space(1024, hbasepb.SpaceViolationPolicy_NO_INSERTS),
			Throttle: &hbasepb.ThrottleRequest{}}, hbaserpc.DoNotRetryIOException, "cannot be combined"},
	} {
		err := cl.setQuota(ctx, tc.req)
		var he *hbaserpc.Error
		if !errors.As(err, &he) || he.Class != tc.class || !strings.Contains(he.Message, tc.msg) {
			t.Errorf("%s: error %v; want %s naming %q", tc.name, err, tc.class, tc.msg)
		}
	}
	wantNoQuotas(t, ctx, admin, "bad requests stored quotas")
}

// TestSpaceQuotaSizesSurviveRestart: unflushed writes are counted before a
// region server restarts (by the server's own counts) and after (Pebble
// flushes what it replays from the WAL when it opens the store, so the
// restarted server measures them on disk).
func TestSpaceQuotaSizesSurviveRestart(t *testing.T) {
	c, conn, ctx := startSpaceCluster(t)
	admin := conn.Admin()
	tbl := createFTable(t, ctx, conn, "sqr")
	must(t, admin.SetSpaceQuota(ctx, client.SpaceQuotaSettings{Table: "sqr", Limit: 1 << 30, Policy: client.SpaceNoInserts}))
	// A fresh random value per put: Pebble's block compression would find
	// a repeated one.
	rnd := rand.NewChaCha8([32]byte{2})
	for i := range 32 {
		value := make([]byte, 4096)
		_, _ = rnd.Read(value)
		must(t, tbl.Put(ctx, client.NewPut([]byte(fmt.Sprint(i))).AddColumn([]byte("f"), []byte("c"), value)))
	}
	size := func() (bool, error) {
		sizes, err := admin.SpaceQuotaTableSizes(ctx)
		return err == nil && len(sizes) == 1 && sizes[0].Bytes >= 64<<10, fmt.Errorf("sizes %+v: %v", sizes, err)
	}
	eventually(t, "unflushed writes counted", size)
	c.StopRegionServer(0)
	must(t, c.StartRegionServer(ctx, 0))
	time.Sleep(5 * spacePeriod) // several reports from the restarted server
	eventually(t, "writes still counted after a restart", size)
}
