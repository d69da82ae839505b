package cluster

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/quota"
	"github.com/weirdb/weir/internal/region"
)

// throttleReq is Admin.setQuota(QuotaSettingsFactory.throttleUser(user, t,
// limit, SECONDS)) on the wire.
func throttleReq(user string, t quota.ThrottleType, limit uint64) *hbasepb.SetQuotaRequest {
	pt := hbasepb.ThrottleType(t)
	tu := hbasepb.TimeUnit_SECONDS
	return &hbasepb.SetQuotaRequest{UserName: proto.String(user), Throttle: &hbasepb.ThrottleRequest{Type: &pt,
		TimedQuota: &hbasepb.TimedQuota{TimeUnit: &tu, SoftLimit: proto.Uint64(limit), Scope: hbasepb.QuotaScope_MACHINE.Enum()}}}
}

func (c *testClient) setQuota(ctx context.Context, req *hbasepb.SetQuotaRequest) error {
	return c.masterCall(ctx, "SetQuota", req, &hbasepb.SetQuotaResponse{})
}

// quotaScan scans hbase:quota the way QuotaRetriever does: locate it in
// hbase:meta, then scan family q.
func (c *testClient) quotaScan(ctx context.Context) ([]region.Result, error) {
	l, err := c.locate(ctx, "hbase:quota", []byte("u.x"))
	if err != nil {
		return nil, err
	}
	pbScan, err := hbaseconv.ScanToPB(region.Scan{Columns: []region.Columns{{Family: []byte("q")}}}, hbaseconv.ScanOptions{Caching: 100})
	if err != nil {
		return nil, err
	}
	resp := &hbasepb.ScanResponse{}
	cells, err := c.call(ctx, l.Server, "ClientService", "Scan", &hbasepb.ScanRequest{Region: hbaseconv.RegionSpecifierFromName(l.Name),
		Scan: pbScan, NumberOfRows: proto.Uint32(100), CloseScanner: proto.Bool(false)}, nil, resp)
	if err != nil {
		return nil, err
	}
	if resp.GetMoreResultsInRegion() {
		_, _ = c.call(ctx, l.Server, "ClientService", "Scan",
			&hbasepb.ScanRequest{ScannerId: resp.ScannerId, CloseScanner: proto.Bool(true)}, nil, &hbasepb.ScanResponse{})
	}
	return scanResults(resp, cells)
}

func TestQuotaSetAndView(t *testing.T) {
	c := startCluster(t, Config{})
	ctx := testCtx(t)
	cl := newClient(t, c.MasterAddr())
	must(t, cl.createTable(ctx, "qt", families("f")))

	must(t, cl.setQuota(ctx, throttleReq("t", quota.RequestNumber, 50)))
	tbl := &hbasepb.SetQuotaRequest{UserName: proto.String("t"), TableName: hbaseconv.TableNameToPB(tableName("qt"))}
	tbl.Throttle = throttleReq("", quota.ReadSize, 1024).Throttle
	must(t, cl.setQuota(ctx, tbl))

	res, err := cl.quotaScan(ctx)
	must(t, err)
	if len(res) != 1 || string(res[0].Row()) != "u.t" || len(res[0].Cells) != 2 {
		t.Fatalf("hbase:quota rows = %+v, want u.t with q:s and q:s.qt", res)
	}
	quals := map[string][]byte{}
	for _, cl := range res[0].Cells {
		quals[string(cl.Qualifier)] = cl.Value
	}
	v := quals["s"]
	if !bytes.HasPrefix(v, []byte("PBUF")) {
		t.Fatalf("u.t q:s = %q, want PBUF+Quotas", v)
	}
	var q hbasepb.Quotas
	must(t, proto.Unmarshal(v[4:], &q))
	if q.GetThrottle().GetReqNum().GetSoftLimit() != 50 {
		t.Fatalf("u.t quota = %v, want req_num 50", &q)
	}
	if _, ok := quals["s.qt"]; !ok {
		t.Fatalf("no q:s.qt on u.t: %v", quals)
	}

	// Errors name the bad part.
	bad := throttleReq("t", quota.ReadSize, 0)
	err = cl.setQuota(ctx, bad)
	wantClass(t, err, hbaserpc.DoNotRetryIOException)
	if !strings.Contains(err.Error(), "soft limit") {
		t.Fatalf("bad LIMIT error %q does not name the limit", err)
	}
	both := throttleReq("t", quota.RequestNumber, 5)
	both.Namespace = proto.String("default")
	both.TableName = hbaseconv.TableNameToPB(tableName("qt"))
	err = cl.setQuota(ctx, both)
	wantClass(t, err, hbaserpc.DoNotRetryIOException)
	if !strings.Contains(err.Error(), "TABLE and NAMESPACE") {
		t.Fatalf("bad combination error %q does not name TABLE and NAMESPACE", err)
	}
	rs := throttleReq("", quota.RequestNumber, 5)
	rs.UserName, rs.RegionServer = nil, proto.String("all")
	rs.Throttle.TimedQuota.Scope = hbasepb.QuotaScope_CLUSTER.Enum()
	err = cl.setQuota(ctx, rs)
	wantClass(t, err, hbaserpc.DoNotRetryIOException)
	if !strings.Contains(err.Error(), "SCOPE CLUSTER") {
		t.Fatalf("error %q does not name SCOPE CLUSTER", err)
	}
	missing := throttleReq("", quota.RequestNumber, 5)
	missing.UserName, missing.TableName = nil, hbaseconv.TableNameToPB(tableName("nosuch"))
	wantClass(t, cl.setQuota(ctx, missing), hbaserpc.TableNotFound)
	missingNS := throttleReq("", quota.RequestNumber, 5)
	missingNS.UserName, missingNS.Namespace = nil, proto.String("nons")
	wantClass(t, cl.setQuota(ctx, missingNS), hbaserpc.NamespaceNotFound)

	// Switches return the previous state.
	en := &hbasepb.IsRpcThrottleEnabledResponse{}
	must(t, cl.masterCall(ctx, "IsRpcThrottleEnabled", &hbasepb.IsRpcThrottleEnabledRequest{}, en))
	if !en.GetRpcThrottleEnabled() {
		t.Fatal("rpc throttle disabled by default")
	}
	sw := &hbasepb.SwitchRpcThrottleResponse{}
	must(t, cl.masterCall(ctx, "SwitchRpcThrottle", &hbasepb.SwitchRpcThrottleRequest{RpcThrottleEnabled: proto.Bool(false)}, sw))
	if !sw.GetPreviousRpcThrottleEnabled() {
		t.Fatal("SwitchRpcThrottle: previous state false, want true")
	}
	must(t, cl.masterCall(ctx, "IsRpcThrottleEnabled", &hbasepb.IsRpcThrottleEnabledRequest{}, en))
	if en.GetRpcThrottleEnabled() {
		t.Fatal("rpc throttle still enabled after switching it off")
	}
	// enable_exceed_throttle_quota needs a region server quota (as HBase).
	rsq := throttleReq("", quota.RequestNumber, 1000)
	rsq.UserName, rsq.RegionServer = nil, proto.String("all")
	must(t, cl.setQuota(ctx, rsq))
	ex := &hbasepb.SwitchExceedThrottleQuotaResponse{}
	must(t, cl.masterCall(ctx, "SwitchExceedThrottleQuota", &hbasepb.SwitchExceedThrottleQuotaRequest{ExceedThrottleQuotaEnabled: proto.Bool(true)}, ex))
	if ex.GetPreviousExceedThrottleQuotaEnabled() {
		t.Fatal("SwitchExceedThrottleQuota: previous state true, want false")
	}
	must(t, cl.setQuota(ctx, &hbasepb.SetQuotaRequest{RegionServer: proto.String("all"), RemoveAll: proto.Bool(true)}))

	// Unthrottle (no type, no timed quota) removes the user's throttles.
	must(t, cl.setQuota(ctx, &hbasepb.SetQuotaRequest{UserName: proto.String("t"), Throttle: &hbasepb.ThrottleRequest{}}))
	res, err = cl.quotaScan(ctx)
	must(t, err)
	if len(res) != 1 || len(res[0].Cells) != 1 || string(res[0].Cells[0].Qualifier) != "s.qt" {
		t.Fatalf("after unthrottle: %+v, want only u.t q:s.qt", res)
	}

	// hbase:quota is described by name.
	gd := &hbasepb.GetTableDescriptorsResponse{}
	must(t, cl.masterCall(ctx, "GetTableDescriptors", &hbasepb.GetTableDescriptorsRequest{
		TableNames: []*hbasepb.TableName{hbaseconv.TableNameToPB(tableName("hbase:quota"))}}, gd))
	if len(gd.GetTableSchema()) != 1 {
		t.Fatalf("GetTableDescriptors(hbase:quota) = %v", gd)
	}
}

// userGetter issues Gets of one row as one user over its own connection.
type userGetter struct {
	cc  *hbaserpc.ClientConn
	req *hbasepb.GetRequest
}

func newUserGetter(t *testing.T, ctx context.Context, cl *testClient, user, table, row string) *userGetter {
	t.Helper()
	l, err := cl.locate(ctx, table, []byte(row))
	must(t, err)
	cc, err := hbaserpc.Dial(ctx, l.Server, hbaserpc.DialOptions{User: user, Service: "ClientService"})
	must(t, err)
	t.Cleanup(func() { _ = cc.Close() })
	pb, err := hbaseconv.GetToPB(region.Get{Row: []byte(row)})
	must(t, err)
	return &userGetter{cc: cc, req: &hbasepb.GetRequest{Region: hbaseconv.RegionSpecifierFromName(l.Name), Get: pb}}
}

func (g *userGetter) get(ctx context.Context) error {
	_, err := g.cc.Call(ctx, "Get", g.req, nil, &hbasepb.GetResponse{})
	return err
}

// loadRate runs conc goroutines of Gets per getter set for warm+measure,
// and returns the completed Gets per second within the measured window and
// the number of failed calls.
func loadRate(ctx context.Context, getters []*userGetter, warm, measure time.Duration) (float64, int64) {
	return loadRateWhen(ctx, getters, func() { time.Sleep(warm) }, measure)
}

// loadRateWhen is loadRate with a warm-up that lasts until warm returns.
func loadRateWhen(ctx context.Context, getters []*userGetter, warm func(), measure time.Duration) (float64, int64) {
	rates, failed := loadRatesWhen(ctx, [][]*userGetter{getters}, warm, measure)
	return rates[0], failed
}

// loadRatesWhen drives several groups of getters at once, warms up until
// warm returns, and measures each group's rate over the same window; the
// failed count is over all groups and the whole run.
func loadRatesWhen(ctx context.Context, groups [][]*userGetter, warm func(), measure time.Duration) ([]float64, int64) {
	done := make([]atomic.Int64, len(groups))
	var failed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i, getters := range groups {
		for _, g := range getters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					if err := g.get(ctx); err != nil {
						failed.Add(1)
					} else {
						done[i].Add(1)
					}
				}
			}()
		}
	}
	warm()
	start, t0 := make([]int64, len(groups)), time.Now()
	for i := range groups {
		start[i] = done[i].Load()
	}
	time.Sleep(measure)
	el := time.Since(t0)
	rates := make([]float64, len(groups))
	for i := range groups {
		rates[i] = float64(done[i].Load()-start[i]) / el.Seconds()
	}
	close(stop)
	wg.Wait()
	return rates, failed.Load()
}

func TestQuotaThrottle(t *testing.T) {
	c := startCluster(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl := newClient(t, c.MasterAddr())
	must(t, cl.createTable(ctx, "qt", families("f")))
	must(t, cl.put(ctx, "qt", "r", kv("f", "q", "v")))

	// Propagation: user p's Gets (reject mode) are throttled within 1 s of
	// SetQuota returning.
	must(t, c.RegionServers[0].SetQuotaMode(quota.ModeReject))
	p := newUserGetter(t, ctx, cl, "p", "qt", "r")
	must(t, p.get(ctx))
	must(t, cl.setQuota(ctx, throttleReq("p", quota.RequestNumber, 1)))
	set := time.Now()
	var err error
	for time.Since(set) < 2*time.Second {
		if err = p.get(ctx); err != nil {
			break
		}
	}
	delay := time.Since(set)
	wantClass(t, err, hbaserpc.RpcThrottling)
	t.Logf("quota enforced %v after SetQuota returned", delay)
	if delay > time.Second {
		t.Fatalf("quota enforced only %v after SetQuota", delay)
	}
	var re *hbaserpc.Error
	if !errors.As(err, &re) || re.DoNotRetry {
		t.Fatalf("throttling error %#v: want a retriable RpcThrottlingException", err)
	}
	te, ok := quota.ParseThrottledMessage(re.Message)
	if !ok || te.Type != quota.RequestNumber || te.Wait <= 0 || te.Wait > time.Second {
		t.Fatalf("throttling message %q: parsed %+v %v, want number of requests with a wait in (0, 1s]", re.Message, te, ok)
	}

	// Queue mode: user t at 50 req/s from 8 callers sees 50 req/s and no
	// failure, while user u (no quota) runs unthrottled.
	must(t, c.RegionServers[0].SetQuotaMode(quota.ModeQueue))
	must(t, cl.setQuota(ctx, throttleReq("t", quota.RequestNumber, 50)))
	time.Sleep(200 * time.Millisecond)
	var tg, ug []*userGetter
	for i := 0; i < 8; i++ {
		tg = append(tg, newUserGetter(t, ctx, cl, "t", "qt", "r"))
	}
	for i := 0; i < 4; i++ {
		ug = append(ug, newUserGetter(t, ctx, cl, "u", "qt", "r"))
	}
	var (
		tRate, uRate     float64
		tFailed, uFailed int64
		wg               sync.WaitGroup
	)
	wg.Add(2)
	go func() { defer wg.Done(); tRate, tFailed = loadRate(ctx, tg, time.Second, 3*time.Second) }()
	go func() { defer wg.Done(); uRate, uFailed = loadRate(ctx, ug, time.Second, 3*time.Second) }()
	wg.Wait()
	t.Logf("user t: %.1f req/s (limit 50, error %+.1f%%), %d failed; user u: %.0f req/s, %d failed",
		tRate, (tRate-50)/50*100, tFailed, uRate, uFailed)
	if tRate < 47.5 || tRate > 52.5 || tFailed != 0 {
		t.Errorf("user t: %.1f req/s with %d failures, want 50±5%% and none", tRate, tFailed)
	}
	if uRate < 200 || uFailed != 0 {
		t.Errorf("user u: %.0f req/s with %d failures, want unthrottled (> 200) and none", uRate, uFailed)
	}

	// Switching the RPC throttle off lifts every limit.
	must(t, cl.masterCall(ctx, "SwitchRpcThrottle", &hbasepb.SwitchRpcThrottleRequest{RpcThrottleEnabled: proto.Bool(false)},
		&hbasepb.SwitchRpcThrottleResponse{}))
	waitFor(t, 2*time.Second, "rpc throttle off", func() bool {
		r, _ := loadRate(ctx, tg[:1], 0, 200*time.Millisecond)
		return r > 100
	})
}
