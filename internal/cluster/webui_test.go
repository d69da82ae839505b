package cluster

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/quota"
	"github.com/weirdb/weir/internal/webui"
)

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	must(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	must(t, err)
	return resp.StatusCode, string(b)
}

// clusterStatus reads the master's /api/status into a fresh value (decoding
// into a used one would keep fields the new JSON omits).
func clusterStatus(t *testing.T, master string) webui.ClusterStatus {
	t.Helper()
	code, body := httpGet(t, master+"/api/status")
	if code != http.StatusOK {
		t.Fatalf("/api/status: %d %s", code, body)
	}
	var st webui.ClusterStatus
	must(t, json.Unmarshal([]byte(body), &st))
	return st
}

// TestWebUI checks the pages of a two-server cluster end to end: the
// master's status names both servers with their regions, the table page
// lists every region, the quota setting shows, the region servers' pages
// count the calls, and unknown names get a 404 page.
func TestWebUI(t *testing.T) {
	ctx := testCtx(t)
	c := startCluster(t, Config{DataDir: t.TempDir(), RegionServers: 2})
	cl := newClient(t, c.MasterAddr())
	must(t, cl.createTable(ctx, "ui", families("cf"), []byte("m")))
	must(t, cl.waitAssigned(ctx, "ui", 2))
	for _, row := range []string{"a", "b", "x", "y"} {
		must(t, cl.put(ctx, "ui", row, kv("cf", "q", "v")))
	}
	must(t, cl.setQuota(ctx, throttleReq("alice", quota.RequestNumber, 50)))
	master := "http://" + c.Master.InfoAddr()

	// The UI samples every second: wait for a status that has seen it all.
	var st webui.ClusterStatus
	deadline := time.Now().Add(10 * time.Second)
	for {
		st = clusterStatus(t, master)
		regions := 0
		for _, s := range st.Servers {
			regions += s.Regions
		}
		if len(st.Servers) == 2 && regions == 2 && len(st.Tables) == 1 && len(st.Quotas) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("master status never showed 2 servers with 2 regions, 1 table and 1 quota: %+v", st)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !st.Active || st.ClusterID == "" || st.ActiveMaster != c.MasterAddr() {
		t.Errorf("summary: active %v, cluster id %q, active master %q", st.Active, st.ClusterID, st.ActiveMaster)
	}
	for _, s := range st.Servers {
		if s.Error != "" || s.RSSBytes == 0 || s.InfoAddr == "" {
			t.Errorf("server row %+v: want it read, with its memory", s)
		}
	}
	// The region servers' usage reports (every 200 ms) make the row live
	// within a sample or two, with the servers' shares summed: both
	// instances run on this host, which shares a MACHINE limit among its
	// instances, so the sum is the limit.
	for deadline := time.Now().Add(5 * time.Second); !st.Quotas[0].Live || st.Quotas[0].LimitPerSec != 50; {
		if time.Now().After(deadline) {
			t.Fatalf("quota row %+v: want alice's live row, 50req/sec shared by the host's 2 servers", st.Quotas[0])
		}
		time.Sleep(200 * time.Millisecond)
		st = clusterStatus(t, master)
	}
	if q := st.Quotas[0]; q.Subject != "USER => 'alice'" || q.Type != "REQUEST_NUMBER" || q.Limit != "50req/sec" {
		t.Errorf("quota row %+v: want alice's REQUEST_NUMBER 50req/sec", q)
	}

	code, body := httpGet(t, master+"/")
	for _, want := range []string{"default:ui", c.RegionServers[0].Addr(), c.RegionServers[1].Addr(), "USER =&gt; &#39;alice&#39;", "50req/sec", "no run since this master became active"} {
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("master page (%d) lacks %q", code, want)
		}
	}
	code, body = httpGet(t, master+"/table?name=ui")
	if code != http.StatusOK || strings.Count(body, "<td>OPEN</td>") != 2 || !strings.Contains(body, "<code>m</code>") {
		t.Errorf("table page (%d): want 2 open regions split at m:\n%s", code, body)
	}
	if code, body = httpGet(t, master+"/table?name=default:missing"); code != http.StatusNotFound || !strings.Contains(body, "does not exist") {
		t.Errorf("unknown table: %d %q", code, body)
	}

	rs := "http://" + c.RegionServers[0].InfoAddr()
	var rst webui.ServerStatus
	_, body = httpGet(t, rs+"/api/status")
	must(t, json.Unmarshal([]byte(body), &rst))
	if len(rst.Regions) != 1 || rst.Figures.Calls["Mutate"] < 1 || rst.Regions[0].Calls < 1 || rst.QuotaMode != "queue" {
		t.Errorf("region server status: %d regions, %v Mutate calls, region calls %v, quota mode %q", len(rst.Regions), rst.Figures.Calls["Mutate"], rst.Regions, rst.QuotaMode)
	}
	code, body = httpGet(t, rs+"/")
	if code != http.StatusOK || !strings.Contains(body, rst.Regions[0].Encoded) || !strings.Contains(body, "Read amplification") {
		t.Errorf("region server page (%d) lacks its region or Pebble state", code)
	}
	if code, _ = httpGet(t, rs+"/region?name="+rst.Regions[0].Encoded); code != http.StatusOK {
		t.Errorf("region page: %d", code)
	}
	if code, _ = httpGet(t, rs+"/region?name=0000"); code != http.StatusNotFound {
		t.Errorf("unknown region: %d, want 404", code)
	}
}
