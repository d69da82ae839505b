// Package rpcmetrics counts and times HBase RPC calls for Prometheus, as a
// decorator around any hbaserpc.Handler, and serves a server's registry at
// /metrics. Each server registers its own instance in its own registry.
package rpcmetrics

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/weirdb/weir/internal/hbaserpc"
)

// RPC holds the call metrics of one server.
type RPC struct {
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// New creates the metrics and registers them in reg.
func New(reg prometheus.Registerer) *RPC {
	m := &RPC{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "weir_rpc_calls_total",
			Help: "RPC calls served, by service, method and outcome (ok or the Java exception class).",
		}, []string{"service", "method", "result"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "weir_rpc_duration_seconds",
			Help:    "Time from a call's arrival to its response, by service and method (quota waits included).",
			Buckets: prometheus.ExponentialBuckets(50e-6, 2, 18),
		}, []string{"service", "method"}),
	}
	reg.MustRegister(m.calls, m.duration)
	return m
}

// Instrument wraps a service's handler with call counts and latencies.
func (m *RPC) Instrument(service string, next hbaserpc.Handler) hbaserpc.Handler {
	return hbaserpc.HandlerFunc(func(ctx context.Context, c *hbaserpc.Call) (hbaserpc.Response, error) {
		start := time.Now()
		resp, err := next.Serve(ctx, c)
		result := "ok"
		if err != nil {
			result = "error"
			var re *hbaserpc.Error
			if errors.As(err, &re) {
				result = re.Class
			}
		}
		m.calls.WithLabelValues(service, c.Method, result).Inc()
		m.duration.WithLabelValues(service, c.Method).Observe(time.Since(start).Seconds())
		return resp, err
	})
}
