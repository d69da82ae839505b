package rpcmetrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/weirdb/weir/internal/hbaserpc"
)

// serverCollector exports an RPC server's connection and queue figures,
// reading hbaserpc.Server.Stats once per scrape.
type serverCollector struct {
	stats                                         func() hbaserpc.Stats
	conns, accepted, serving, outstanding, writeQ *prometheus.Desc
}

// RegisterServer exports the load of an RPC server (open connections,
// calls in flight, response queues) in reg. stats is called once per
// scrape; hbaserpc.Server.Stats never waits for a call.
func RegisterServer(reg prometheus.Registerer, stats func() hbaserpc.Stats) {
	reg.MustRegister(&serverCollector{
		stats: stats,
		conns: prometheus.NewDesc("weir_rpc_open_connections",
			"Open client connections to the RPC server.", nil, nil),
		accepted: prometheus.NewDesc("weir_rpc_connections_total",
			"Connections the RPC server accepted since it started.", nil, nil),
		serving: prometheus.NewDesc("weir_rpc_calls_in_flight",
			"Calls inside their handler now (calls waiting in a quota queue included).", nil, nil),
		outstanding: prometheus.NewDesc("weir_rpc_calls_outstanding",
			"Calls read from their connection and not yet answered on the wire.", nil, nil),
		writeQ: prometheus.NewDesc("weir_rpc_response_queue_length",
			"Responses encoded and queued on their connection, not yet written to its socket.", nil, nil),
	})
}

func (c *serverCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.conns
	ch <- c.accepted
	ch <- c.serving
	ch <- c.outstanding
	ch <- c.writeQ
}

func (c *serverCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.stats()
	ch <- prometheus.MustNewConstMetric(c.conns, prometheus.GaugeValue, float64(st.Conns))
	ch <- prometheus.MustNewConstMetric(c.accepted, prometheus.CounterValue, float64(st.Accepted))
	ch <- prometheus.MustNewConstMetric(c.serving, prometheus.GaugeValue, float64(st.Serving))
	ch <- prometheus.MustNewConstMetric(c.outstanding, prometheus.GaugeValue, float64(st.Outstanding))
	ch <- prometheus.MustNewConstMetric(c.writeQ, prometheus.GaugeValue, float64(st.WriteQueue))
}
