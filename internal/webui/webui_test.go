package webui

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/quota"
)

// sampler replays a sequence of region server samples.
type sampler struct {
	samples []ServerSample
	i       int
}

func (s *sampler) next(time.Time) ServerSample {
	v := s.samples[min(s.i, len(s.samples)-1)]
	s.i++
	return v
}

func serverSample(calls map[string]float64, regionCalls uint64, quotas ...QuotaRow) ServerSample {
	return ServerSample{
		Addr: "127.0.0.1:16020", HostID: "h1", StartTime: time.Unix(1000, 0), QuotaMode: "queue",
		Figures: Figures{Calls: calls, CPUSeconds: float64(regionCalls) / 100, RSSBytes: 64 << 20,
			Store: StoreFigures{DiskBytes: 4096, BlockCacheHits: float64(3 * regionCalls), BlockCacheMisses: float64(regionCalls),
				WALFsyncs: float64(regionCalls), WALFsyncSeconds: float64(regionCalls) * 0.002}},
		Regions: []RegionSample{
			{Name: "t,,1.aaa.", Encoded: "aaa", Table: "default:t", EndKey: "m", SizeBytes: 1000, Calls: regionCalls},
			{Name: "t,m,1.bbb.", Encoded: "bbb", Table: "default:t", StartKey: "m", SizeBytes: 500, Calls: 7},
		},
		Quotas: quotas,
	}
}

func get(t *testing.T, h http.Handler, url string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url, nil))
	return rec.Code, rec.Body.String()
}

// pageCase is a URL, the status it must answer and what its body holds.
type pageCase struct {
	url  string
	code int
	has  []string
}

func checkPages(t *testing.T, h http.Handler, cases []pageCase) {
	t.Helper()
	for _, tc := range cases {
		code, body := get(t, h, tc.url)
		if code != tc.code {
			t.Errorf("GET %s: %d, want %d", tc.url, code, tc.code)
		}
		for _, want := range tc.has {
			if !strings.Contains(body, want) {
				t.Errorf("GET %s: body lacks %q", tc.url, want)
			}
		}
		if strings.Contains(body, "<script>") {
			t.Errorf("GET %s: unescaped input in the page", tc.url)
		}
	}
}

func newServerUI(t *testing.T, s *sampler) (*ServerUI, *http.ServeMux) {
	t.Helper()
	u, err := NewServer(ServerConfig{Sample: s.next})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	u.Register(mux)
	return u, mux
}

// TestServerUI checks the rates derived from two samples a second apart
// and every page of the region server UI, bad URLs included.
func TestServerUI(t *testing.T) {
	alice := QuotaRow{Subject: "USER => 'alice'", Type: "REQUEST_NUMBER", Limit: "10req/sec", Unit: "req", LimitPerSec: 10, Live: true, Rate: 9.5, Queued: 2}
	s := &sampler{samples: []ServerSample{
		serverSample(map[string]float64{"Get": 100, "Mutate": 50, "Scan": 10}, 100),
		serverSample(map[string]float64{"Get": 130, "Mutate": 60, "Scan": 10, "Multi": 5}, 150, alice),
	}}
	u, mux := newServerUI(t, s)
	if code, _ := get(t, mux, "/"); code != http.StatusOK {
		t.Fatalf("GET / before the first sample: %d", code)
	}
	t0 := time.Unix(2000, 0)
	u.step(t0)
	u.step(t0.Add(time.Second))
	st := u.Status()
	want := Rates{Total: 45, Read: 30, Write: 10, Scan: 0, Multi: 5}
	if st.Rates != want {
		t.Errorf("rates %+v, want %+v", st.Rates, want)
	}
	if st.Seq != 2 || len(st.History) != 2 || len(st.QuotaHist) != 2 {
		t.Errorf("seq %d, %d history points, %d quota points; want 2, 2, 2", st.Seq, len(st.History), len(st.QuotaHist))
	}
	if st.Regions[0].Encoded != "aaa" || st.Regions[0].Rate != 50 || st.Regions[1].Rate != 0 {
		t.Errorf("region rates: %+v", st.Regions)
	}
	if st.CPU != 0.5 || st.Store.BlockCacheHitRatio != 0.75 || st.Store.WALFsyncRate != 50 || st.Store.WALFsyncMeanMs < 1.99 || st.Store.WALFsyncMeanMs > 2.01 {
		t.Errorf("cpu %v, hit ratio %v, fsync %v/s at %v ms; want 0.5, 0.75, 50, 2", st.CPU, st.Store.BlockCacheHitRatio, st.Store.WALFsyncRate, st.Store.WALFsyncMeanMs)
	}
	if got := st.QuotaHist[1].Rates[alice.Key()]; got != 9.5 {
		t.Errorf("quota chart point %v, want 9.5", got)
	}

	checkPages(t, mux, []pageCase{
		{"/", 200, []string{`data-page="regionserver"`, "default:t", `href="/region?name=aaa"`, "USER =&gt; &#39;alice&#39;", "10req/sec", `data-chart="quota"`}},
		{"/region?name=aaa", 200, []string{"t,,1.aaa.", "1000 B"}},
		{"/region?name=t,m,1.bbb.", 200, []string{"bbb"}},
		{"/region?name=nope", 404, []string{"region &#34;nope&#34; is not open"}},
		{"/region", 404, []string{"is not open"}},
		{"/region?name=<script>", 404, []string{"&lt;script&gt;"}},
		{"/no/such/page", 404, []string{"no page at"}},
		{"/static/ui.js", 200, []string{"setInterval(poll, 1000)"}},
		{"/static/ui.css", 200, []string{"svg.chart"}},
		{"/static/missing.js", 404, nil},
	})
	code, body := get(t, mux, "/api/status")
	var decoded ServerStatus
	if err := json.Unmarshal([]byte(body), &decoded); code != 200 || err != nil {
		t.Fatalf("/api/status: %d, %v", code, err)
	}
	if decoded.Seq != 2 || decoded.Rates != want || len(decoded.Regions) != 2 || decoded.Store.DiskBytes != 4096 {
		t.Errorf("/api/status decoded to seq %d, rates %+v, %d regions, disk %v", decoded.Seq, decoded.Rates, len(decoded.Regions), decoded.Store.DiskBytes)
	}
}

// TestMasterUI runs two real region server UIs behind HTTP servers and a
// third address that refuses connections, and checks the master's merge:
// server rows, table sizes, quota sums, events and the table page.
func TestMasterUI(t *testing.T) {
	row := func(rate float64, queued int64, rejected uint64) QuotaRow {
		return QuotaRow{Subject: "USER => 'alice'", Type: "REQUEST_NUMBER", Limit: "10req/sec", Scope: "MACHINE",
			Unit: "req", LimitPerSec: 10, Live: true, Rate: rate, Queued: queued, Rejected: rejected}
	}
	var infos []string
	var uis []*ServerUI
	for i := range 2 {
		s := &sampler{samples: []ServerSample{
			serverSample(map[string]float64{"Get": 10}, 10, row(4, 0, 0)),
			serverSample(map[string]float64{"Get": 20}, 20, row(6, int64(i), uint64(3*i))),
		}}
		s.samples[0].Regions = s.samples[0].Regions[i : i+1]
		s.samples[1].Regions = s.samples[1].Regions[i : i+1]
		u, mux := newServerUI(t, s)
		u.step(time.Unix(2000, 0))
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		infos = append(infos, strings.TrimPrefix(srv.URL, "http://"))
		uis = append(uis, u)
	}
	dead := httptest.NewServer(http.NotFoundHandler())
	deadAddr := strings.TrimPrefix(dead.URL, "http://")
	dead.Close()

	settings, err := quota.Settings{}.With(quota.UserSubject("alice"), quota.Quota{Throttles: map[quota.ThrottleType]quota.TimedQuota{
		quota.RequestNumber: {Limit: quota.Limit{Amount: 10, Unit: quota.UnitRequests, Per: time.Second}}}})
	if err != nil {
		t.Fatal(err)
	}
	settings, err = settings.With(quota.UserSubject("bob"), quota.Quota{Throttles: map[quota.ThrottleType]quota.TimedQuota{
		quota.WriteSize: {Limit: quota.Limit{Amount: 1 << 20, Unit: quota.UnitBytes, Per: time.Minute}, Scope: quota.ScopeCluster}}})
	if err != nil {
		t.Fatal(err)
	}
	catalogErr := error(nil)
	sample := ClusterSample{
		ClusterID: "cid", Self: "m1:16000", Active: true, ActiveMaster: "m1:16000", BackupMasters: []string{"m2:16000"},
		StartTime: time.Unix(1000, 0), Balancer: "none",
		Servers: []ServerRef{{Addr: "rs0", InfoAddr: infos[0]}, {Addr: "rs1", InfoAddr: infos[1], Instance: 1}, {Addr: "rs2", InfoAddr: deadAddr, Instance: 2}},
		Tables: []TableRef{{Name: "default:t", State: "ENABLED", Regions: []RegionRef{
			{Name: "t,,1.aaa.", Encoded: "aaa", EndKey: "m", Server: "rs0", State: "OPEN"},
			{Name: "t,m,1.bbb.", Encoded: "bbb", StartKey: "m", Server: "rs1", State: "OPEN"},
		}}},
		Quotas: SettingRows(settings),
	}
	m, err := NewMaster(MasterConfig{Sample: func(context.Context) (ClusterSample, error) { return sample, catalogErr }})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	m.Register(mux)
	ctx := context.Background()
	m.step(ctx, time.Unix(2000, 0))
	for _, u := range uis {
		u.step(time.Unix(2001, 0))
	}
	m.step(ctx, time.Unix(2001, 0))
	st := m.Status()

	if len(st.Servers) != 3 || st.Servers[0].Error != "" || st.Servers[1].Error != "" || st.Servers[2].Error == "" {
		t.Fatalf("server rows %+v: want two read and the dead one with an error", st.Servers)
	}
	if st.Servers[0].Regions != 1 || st.Servers[0].Rates.Read != 10 || st.Rates.Read != 20 {
		t.Errorf("rs0 %d regions at %v reads/s, cluster %v reads/s; want 1, 10, 20", st.Servers[0].Regions, st.Servers[0].Rates.Read, st.Rates.Read)
	}
	if len(st.Tables) != 1 || st.Tables[0].SizeBytes != 1500 || st.Tables[0].Rate != 10 {
		t.Errorf("table rows %+v: want 1500 bytes at 10 calls/s (aaa's 10, bbb's 0)", st.Tables)
	}
	if len(st.Quotas) != 2 {
		t.Fatalf("quota rows %+v: want alice live and bob as set", st.Quotas)
	}
	a, b := st.Quotas[0], st.Quotas[1]
	if !a.Live || a.Rate != 12 || a.LimitPerSec != 20 || a.Queued != 1 || a.Rejected != 3 {
		t.Errorf("alice %+v: want live, rate 6+6, limit 10+10, queued 1, rejected 3", a)
	}
	if b.Live || b.Limit != "1M/min" || b.Scope != "CLUSTER" || b.LimitPerSec < 17476 || b.LimitPerSec > 17477 {
		t.Errorf("bob %+v: want the setting, 1 MiB/min as set", b)
	}
	var texts []string
	for _, e := range st.Events {
		texts = append(texts, e.Text)
	}
	joined := strings.Join(texts, "\n")
	for _, want := range []string{"rejected 3 requests", "1 requests held"} {
		if !strings.Contains(joined, want) {
			t.Errorf("events %q lack %q", texts, want)
		}
	}

	checkPages(t, mux, []pageCase{
		{"/", 200, []string{"cid", "m2:16000", `href="http://` + infos[0] + `/"`, `href="/table?name=default%3at"`, "1M/min", "rejected 3 requests", "none"}},
		{"/table?name=default:t", 200, []string{"t,,1.aaa.", "<code>m</code>", "rs1", "1000 B"}},
		{"/table?name=t", 200, []string{"t,m,1.bbb."}},
		{"/table?name=nope", 404, []string{"table &#34;default:nope&#34; does not exist"}},
		{"/table", 404, []string{"does not exist"}},
		{"/regions", 404, []string{"no page at"}},
	})

	// A catalog failure keeps the last catalog sample and says so.
	catalogErr = errors.New("etcd down")
	m.step(ctx, time.Unix(2002, 0))
	if st := m.Status(); !strings.Contains(st.Error, "etcd down") || len(st.Tables) != 1 {
		t.Errorf("after a catalog failure: error %q, %d tables; want the error and the last tables", st.Error, len(st.Tables))
	}
	code, body := get(t, mux, "/api/status")
	var decoded ClusterStatus
	if err := json.NewDecoder(io.LimitReader(strings.NewReader(body), 1<<20)).Decode(&decoded); code != 200 || err != nil {
		t.Fatalf("/api/status: %d, %v", code, err)
	}
	if decoded.Seq != 3 || len(decoded.History) != 3 {
		t.Errorf("/api/status: seq %d, %d history points; want 3, 3", decoded.Seq, len(decoded.History))
	}
}

func TestConfigValidate(t *testing.T) {
	if _, err := NewServer(ServerConfig{}); err == nil || !strings.Contains(err.Error(), "Sample is nil") {
		t.Errorf("NewServer without Sample: %v", err)
	}
	if _, err := NewMaster(MasterConfig{Options: Options{Interval: time.Millisecond, History: 1}}); err == nil ||
		!strings.Contains(err.Error(), "Interval") || !strings.Contains(err.Error(), "History") || !strings.Contains(err.Error(), "Sample") {
		t.Errorf("NewMaster with bad options: %v", err)
	}
}

func TestUsageRows(t *testing.T) {
	lim := quota.Limit{Amount: 100, Unit: quota.UnitRequests, Per: time.Second}
	rows := UsageRows([]quota.Usage{
		{Subject: quota.UserSubject("alice"), Type: quota.RequestNumber, Quota: quota.TimedQuota{Limit: lim}, Limit: 50,
			Rate: 49.5, Queued: 3, Rejected: 7, Wait: 1500 * time.Millisecond},
		{Subject: quota.UserSubject("bob"), Default: true, Type: quota.RequestNumber, Quota: quota.TimedQuota{Limit: lim, Scope: quota.ScopeCluster}, Limit: 100},
	})
	want := []QuotaRow{
		{Subject: "USER => 'alice'", Type: "REQUEST_NUMBER", Limit: "100req/sec", Scope: "MACHINE", LimitPerSec: 50, Unit: "req",
			Live: true, Rate: 49.5, Queued: 3, Rejected: 7, WaitSeconds: 1.5},
		{Subject: "USER => 'bob' (default)", Type: "REQUEST_NUMBER", Limit: "100req/sec", Scope: "CLUSTER", LimitPerSec: 100, Unit: "req", Live: true},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, rows[i], want[i])
		}
	}
}
