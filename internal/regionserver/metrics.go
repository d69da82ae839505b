package regionserver

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/weirdb/weir/internal/rpcmetrics"
)

// rsMetrics are one region server's Prometheus metrics, in a registry of
// its own (no globals: several instances share a process).
type rsMetrics struct {
	reg *prometheus.Registry
	rpc *rpcmetrics.RPC
	gc  *gcMetrics
}

func newMetrics(rs *RegionServer) *rsMetrics {
	m := &rsMetrics{reg: prometheus.NewRegistry()}
	m.rpc = rpcmetrics.New(m.reg)
	m.gc = newGCMetrics(m.reg)
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "weir_regionserver_regions", Help: "Regions open on this region server."},
			func() float64 { return float64(len(rs.regions.all())) }),
		newStoreCollector(rs.engine.Metrics),
		newRowCacheCollector(rs.rowCache),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{Namespace: "weir"}),
	)
	return m
}

// serveHTTP serves /metrics and the web UI on the info port until Close.
func (rs *RegionServer) serveHTTP() error {
	if rs.cfg.InfoPort < 0 {
		return nil
	}
	ui, err := rs.newUI()
	if err != nil {
		return err
	}
	h, err := rpcmetrics.ListenHTTP(rs.cfg.Bind, rs.cfg.InfoPort, rs.metrics.reg, ui.Register)
	if err != nil {
		return err
	}
	rs.group.Go(ui.Run)
	rs.http, rs.infoAddr = h, h.Addr()
	rs.serveMoves(h)
	rs.group.Go(func(context.Context) {
		if err := h.Serve(); err != nil {
			rs.log.Error("regionserver: HTTP server stopped", "err", err)
		}
	})
	return nil
}
