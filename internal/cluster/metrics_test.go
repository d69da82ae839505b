package cluster

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/weirdb/weir/internal/quota"
)

// wantMetric is a metric family a scrape must hold: its type and the label
// names of its series.
type wantMetric struct {
	name   string
	typ    dto.MetricType
	labels []string
}

var (
	rpcMetrics = []wantMetric{
		{"weir_rpc_calls_total", dto.MetricType_COUNTER, []string{"method", "result", "service"}},
		{"weir_rpc_duration_seconds", dto.MetricType_HISTOGRAM, []string{"method", "service"}},
		{"weir_rpc_open_connections", dto.MetricType_GAUGE, nil},
		{"weir_rpc_connections_total", dto.MetricType_COUNTER, nil},
		{"weir_rpc_calls_in_flight", dto.MetricType_GAUGE, nil},
		{"weir_rpc_calls_outstanding", dto.MetricType_GAUGE, nil},
		{"weir_rpc_response_queue_length", dto.MetricType_GAUGE, nil},
		{"weir_process_cpu_seconds_total", dto.MetricType_COUNTER, nil},
		{"weir_process_resident_memory_bytes", dto.MetricType_GAUGE, nil},
		{"go_gc_duration_seconds", dto.MetricType_SUMMARY, nil},
		{"go_goroutines", dto.MetricType_GAUGE, nil},
	}
	regionServerMetrics = []wantMetric{
		{"weir_regionserver_regions", dto.MetricType_GAUGE, nil},
		{"weir_storage_memtable_bytes", dto.MetricType_GAUGE, nil},
		{"weir_storage_memtables", dto.MetricType_GAUGE, nil},
		{"weir_storage_flushes_total", dto.MetricType_COUNTER, nil},
		{"weir_storage_flushes_in_progress", dto.MetricType_GAUGE, nil},
		{"weir_storage_flushed_bytes_total", dto.MetricType_COUNTER, nil},
		{"weir_storage_compactions_total", dto.MetricType_COUNTER, nil},
		{"weir_storage_compactions_in_progress", dto.MetricType_GAUGE, nil},
		{"weir_storage_compaction_in_progress_bytes", dto.MetricType_GAUGE, nil},
		{"weir_storage_compacted_bytes_total", dto.MetricType_COUNTER, nil},
		{"weir_storage_compaction_seconds_total", dto.MetricType_COUNTER, nil},
		{"weir_storage_compaction_debt_bytes", dto.MetricType_GAUGE, nil},
		{"weir_storage_read_amplification", dto.MetricType_GAUGE, nil},
		{"weir_storage_l0_files", dto.MetricType_GAUGE, nil},
		{"weir_storage_sstables", dto.MetricType_GAUGE, nil},
		{"weir_storage_disk_bytes", dto.MetricType_GAUGE, nil},
		{"weir_storage_block_cache_bytes", dto.MetricType_GAUGE, nil},
		{"weir_storage_block_cache_hits_total", dto.MetricType_COUNTER, nil},
		{"weir_storage_block_cache_misses_total", dto.MetricType_COUNTER, nil},
		{"weir_storage_block_cache_hit_ratio", dto.MetricType_GAUGE, nil},
		{"weir_storage_wal_bytes_in_total", dto.MetricType_COUNTER, nil},
		{"weir_storage_wal_bytes_written_total", dto.MetricType_COUNTER, nil},
		{"weir_storage_wal_fsync_duration_seconds", dto.MetricType_HISTOGRAM, nil},
	}
	quotaLabels  = []string{"scope", "subject", "type"}
	quotaMetrics = []wantMetric{
		{"weir_quota_consumed_total", dto.MetricType_COUNTER, quotaLabels},
		{"weir_quota_admitted_total", dto.MetricType_COUNTER, quotaLabels},
		{"weir_quota_rejected_total", dto.MetricType_COUNTER, quotaLabels},
		{"weir_quota_wait_seconds_total", dto.MetricType_COUNTER, quotaLabels},
		{"weir_quota_rate", dto.MetricType_GAUGE, quotaLabels},
		{"weir_quota_limit", dto.MetricType_GAUGE, quotaLabels},
		{"weir_quota_queued", dto.MetricType_GAUGE, quotaLabels},
	}
	masterMetrics = []wantMetric{
		{"weir_master_active", dto.MetricType_GAUGE, nil},
		{"weir_master_regionservers", dto.MetricType_GAUGE, nil},
		{"weir_master_tables", dto.MetricType_GAUGE, nil},
		{"weir_master_regions", dto.MetricType_GAUGE, nil},
	}
)

// weirName is weir_<subsystem>_<name>; Go runtime metrics keep the
// client library's go_ names.
var weirName = regexp.MustCompile(`^(weir_[a-z]+_[a-z0-9_]+|go_[a-z0-9_]+)$`)

// scrape fetches and parses a /metrics page with Prometheus' text parser.
func scrape(t *testing.T, infoAddr string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://" + infoAddr + "/metrics")
	must(t, err)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("/metrics Content-Type %q, want text/plain", ct)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	must(t, err)
	return families
}

// checkFamilies checks every family's name, help text and the suffix its
// type calls for, then that each wanted family is there with its type and
// label names.
func checkFamilies(t *testing.T, who string, families map[string]*dto.MetricFamily, want []wantMetric) {
	t.Helper()
	for name, f := range families {
		if !weirName.MatchString(name) {
			t.Errorf("%s: metric %s is not named weir_<subsystem>_<name>", who, name)
		}
		if f.GetHelp() == "" {
			t.Errorf("%s: metric %s has no help text", who, name)
		}
		if !strings.HasPrefix(name, "weir_") {
			continue
		}
		switch f.GetType() {
		case dto.MetricType_COUNTER:
			if !strings.HasSuffix(name, "_total") {
				t.Errorf("%s: counter %s does not end in _total", who, name)
			}
		case dto.MetricType_HISTOGRAM, dto.MetricType_SUMMARY:
			if !strings.HasSuffix(name, "_seconds") && !strings.HasSuffix(name, "_bytes") {
				t.Errorf("%s: histogram %s does not end in a unit", who, name)
			}
		default:
			if strings.HasSuffix(name, "_total") {
				t.Errorf("%s: %s %s ends in _total", who, f.GetType(), name)
			}
		}
	}
	for _, w := range want {
		f, ok := families[w.name]
		if !ok {
			t.Errorf("%s: metric %s missing", who, w.name)
			continue
		}
		if f.GetType() != w.typ {
			t.Errorf("%s: %s is a %s, want %s", who, w.name, f.GetType(), w.typ)
		}
		for _, m := range f.GetMetric() {
			var got []string
			for _, l := range m.GetLabel() {
				got = append(got, l.GetName())
			}
			slices.Sort(got)
			if !slices.Equal(got, w.labels) {
				t.Errorf("%s: %s has labels %v, want %v", who, w.name, got, w.labels)
				break
			}
		}
	}
}

// metricValue is the value of the family's series whose labels include match.
func metricValue(families map[string]*dto.MetricFamily, name string, match map[string]string) (float64, bool) {
	for _, m := range families[name].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		ok := true
		for k, v := range match {
			ok = ok && labels[k] == v
		}
		if !ok {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		}
	}
	return 0, false
}

// TestMetricsEndpoint scrapes the master's and a region server's /metrics
// after some calls and checks names, types, labels and help text with
// Prometheus' own parser, and that the figures move with the work done.
func TestMetricsEndpoint(t *testing.T) {
	ctx := testCtx(t)
	c := startCluster(t, Config{DataDir: t.TempDir()})
	cl := newClient(t, c.MasterAddr())
	must(t, cl.createTable(ctx, "m", families("cf")))
	must(t, cl.setQuota(ctx, throttleReq("test", quota.RequestNumber, 1000)))
	must(t, cl.put(ctx, "m", "r1", kv("cf", "q", "v")))

	// Pebble's WAL writer records an fsync's latency just after waking the
	// committers it synced, so the put's may lag its answer; the quota
	// reporter samples usage every 200 ms.
	rs := scrape(t, c.RegionServers[0].InfoAddr())
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); rs = scrape(t, c.RegionServers[0].InfoAddr()) {
		fsyncs, _ := metricValue(rs, "weir_storage_wal_fsync_duration_seconds", nil)
		if _, quotas := rs["weir_quota_admitted_total"]; fsyncs >= 1 && quotas {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	checkFamilies(t, "region server", rs, slices.Concat(rpcMetrics, regionServerMetrics, quotaMetrics))
	for _, check := range []struct {
		name  string
		match map[string]string
		min   float64
	}{
		{"weir_rpc_calls_total", map[string]string{"service": "ClientService", "method": "Mutate", "result": "ok"}, 1},
		{"weir_rpc_open_connections", nil, 1}, // the test client's connection is still open
		{"weir_rpc_connections_total", nil, 1},
		{"weir_regionserver_regions", nil, 1},
		{"weir_storage_wal_fsync_duration_seconds", nil, 1}, // the put was synced
		{"weir_quota_limit", map[string]string{"subject": "user=test", "scope": "machine"}, 1000},
		{"weir_storage_wal_bytes_in_total", nil, 1},
		{"weir_process_resident_memory_bytes", nil, 1 << 20},
	} {
		if v, ok := metricValue(rs, check.name, check.match); !ok || v < check.min {
			t.Errorf("region server: %s%v = %v (found %v), want >= %v", check.name, check.match, v, ok, check.min)
		}
	}

	m := scrape(t, c.Master.InfoAddr())
	checkFamilies(t, "master", m, append(slices.Clone(rpcMetrics), masterMetrics...))
	for _, name := range []string{"weir_master_active", "weir_master_regionservers", "weir_master_tables", "weir_master_regions"} {
		if v, _ := metricValue(m, name, nil); v != 1 {
			t.Errorf("master: %s = %v, want 1", name, v)
		}
	}
}
