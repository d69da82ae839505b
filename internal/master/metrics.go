package master

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/weirdb/weir/internal/rpcmetrics"
)

// masterMetrics are the master's Prometheus metrics, in its own registry.
type masterMetrics struct {
	reg *prometheus.Registry
	rpc *rpcmetrics.RPC
}

// catalogTimeout bounds the etcd reads behind a scrape's gauges.
const catalogTimeout = 2 * time.Second

func newMasterMetrics(m *Master) *masterMetrics {
	mm := &masterMetrics{reg: prometheus.NewRegistry()}
	mm.rpc = rpcmetrics.New(mm.reg)
	count := func(list func(ctx context.Context) (int, error)) func() float64 {
		return func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), catalogTimeout)
			defer cancel()
			n, err := list(ctx)
			if err != nil {
				return -1
			}
			return float64(n)
		}
	}
	mm.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "weir_master_active", Help: "1 if this master is the active one, 0 for a backup."},
			func() float64 {
				if m.active.Load() {
					return 1
				}
				return 0
			}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "weir_master_regionservers", Help: "Live region servers (-1 if the catalog is unreachable)."},
			count(func(ctx context.Context) (int, error) { s, err := m.catalog.Servers(ctx); return len(s), err })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "weir_master_tables", Help: "User tables (-1 if the catalog is unreachable)."},
			count(func(ctx context.Context) (int, error) { t, err := m.catalog.ListTables(ctx); return len(t), err })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "weir_master_regions", Help: "Regions of user tables (-1 if the catalog is unreachable)."},
			count(func(ctx context.Context) (int, error) { r, err := m.catalog.AllRegions(ctx); return len(r), err })),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{Namespace: "weir"}),
	)
	mm.reg.MustRegister(m.balancerCollectors()...)
	return mm
}

// serveHTTP serves /metrics and the web UI on the info port until Close.
func (m *Master) serveHTTP() error {
	if m.cfg.InfoPort < 0 {
		return nil
	}
	ui, err := m.newUI()
	if err != nil {
		return err
	}
	h, err := rpcmetrics.ListenHTTP(m.cfg.Bind, m.cfg.InfoPort, m.metrics.reg, ui.Register)
	if err != nil {
		return err
	}
	m.group.Go(ui.Run)
	m.http, m.infoAddr = h, h.Addr()
	m.group.Go(func(context.Context) {
		if err := h.Serve(); err != nil {
			m.log.Error("master: HTTP server stopped", "err", err)
		}
	})
	return nil
}

// InfoAddr is where /metrics is served ("" when the info port is off).
func (m *Master) InfoAddr() string { return m.infoAddr }
