package cluster

import (
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestMetricsEndpoint scrapes a region server's /metrics after some calls
// and checks the names, labels and help text with Prometheus' own parser.
func TestMetricsEndpoint(t *testing.T) {
	ctx := testCtx(t)
	c := startCluster(t, Config{DataDir: t.TempDir()})
	cl := newClient(t, c.MasterAddr())
	must(t, cl.createTable(ctx, "m", families("cf")))
	must(t, cl.put(ctx, "m", "r1", kv("cf", "q", "v")))
	resp, err := http.Get("http://" + c.RegionServers[0].InfoAddr() + "/metrics")
	must(t, err)
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	must(t, err)
	for _, name := range []string{"weir_rpc_calls_total", "weir_rpc_duration_seconds", "weir_regionserver_regions",
		"weir_storage_memtable_bytes", "weir_storage_read_amplification", "weir_storage_disk_bytes",
		"weir_process_cpu_seconds_total", "go_goroutines"} {
		f, ok := families[name]
		if !ok {
			t.Errorf("metric %s missing", name)
			continue
		}
		if f.GetHelp() == "" {
			t.Errorf("metric %s has no help text", name)
		}
		if !strings.HasPrefix(name, "weir_") && !strings.HasPrefix(name, "go_") {
			t.Errorf("metric %s is not named weir_<subsystem>_<name>", name)
		}
	}
	found := false
	for _, m := range families["weir_rpc_calls_total"].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["service"] == "ClientService" && labels["method"] == "Mutate" && labels["result"] == "ok" && m.GetCounter().GetValue() >= 1 {
			found = true
		}
	}
	if !found {
		t.Errorf("no weir_rpc_calls_total{service=ClientService,method=Mutate,result=ok} after a put")
	}
	if g := families["weir_regionserver_regions"].GetMetric()[0].GetGauge().GetValue(); g < 1 {
		t.Errorf("weir_regionserver_regions = %v, want >= 1", g)
	}

	mresp, err := http.Get("http://" + c.Master.InfoAddr() + "/metrics")
	must(t, err)
	defer mresp.Body.Close()
	mparser := expfmt.NewTextParser(model.UTF8Validation)
	mfam, err := mparser.TextToMetricFamilies(mresp.Body)
	must(t, err)
	for name, want := range map[string]float64{"weir_master_active": 1, "weir_master_regionservers": 1, "weir_master_tables": 1, "weir_master_regions": 1} {
		f, ok := mfam[name]
		if !ok || f.GetHelp() == "" {
			t.Errorf("master metric %s missing or without help", name)
			continue
		}
		if got := f.GetMetric()[0].GetGauge().GetValue(); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if _, ok := mfam["weir_rpc_calls_total"]; !ok {
		t.Error("master has no weir_rpc_calls_total")
	}
}
