// Package rpcmetrics counts and times HBase RPC calls for Prometheus, as a
// decorator around any hbaserpc.Handler, and serves a server's registry at
// /metrics. Each server registers its own instance in its own registry.
package rpcmetrics

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
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
	var methods methodCache
	return hbaserpc.HandlerFunc(func(ctx context.Context, c *hbaserpc.Call) (hbaserpc.Response, error) {
		start := time.Now()
		resp, err := next.Serve(ctx, c)
		mm := m.method(&methods, service, c.Method)
		if err == nil {
			mm.ok.Inc()
		} else {
			result := "error"
			var re *hbaserpc.Error
			if errors.As(err, &re) {
				result = re.Class
			}
			m.calls.WithLabelValues(service, c.Method, result).Inc()
		}
		mm.duration.Observe(time.Since(start).Seconds())
		return resp, err
	})
}

// methodMetrics are one method's series that every call updates, looked up
// once: WithLabelValues hashes the labels and takes a lock on each use, two
// of them a call, for a small but per-call share of a server's CPU.
type methodMetrics struct {
	ok       prometheus.Counter
	duration prometheus.Observer
}

// methodCache maps method names to their series; it holds at most
// maxCachedMethods (a service has fewer methods; the bound only keeps
// clients sending made-up names from growing it).
type methodCache struct {
	m sync.Map // method name → *methodMetrics
	n atomic.Int32
}

const maxCachedMethods = 128

// method returns the series of method, from cache when it can.
func (m *RPC) method(cache *methodCache, service, method string) *methodMetrics {
	if v, ok := cache.m.Load(method); ok {
		return v.(*methodMetrics)
	}
	mm := &methodMetrics{
		ok:       m.calls.WithLabelValues(service, method, "ok"),
		duration: m.duration.WithLabelValues(service, method),
	}
	if cache.n.Load() >= maxCachedMethods {
		return mm
	}
	cache.n.Add(1)
	v, _ := cache.m.LoadOrStore(method, mm)
	return v.(*methodMetrics)
}
