package rpcmetrics

import (
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// HTTP serves a server's registry at /metrics on its info port, and its web
// pages.
type HTTP struct {
	srv *http.Server
	mux *http.ServeMux
	l   net.Listener
}

// ListenHTTP listens on bind:port (0 picks a free port) for reg's /metrics
// and the pages pages registers (nil: none). Serve then serves until Close.
func ListenHTTP(bind string, port int, reg *prometheus.Registry, pages func(*http.ServeMux)) (*HTTP, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(bind, strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	if pages != nil {
		pages(mux)
	}
	return &HTTP{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, mux: mux, l: l}, nil
}

// Handle adds a handler next to /metrics (a region server's region
// transfer endpoints). Safe to call while serving.
func (h *HTTP) Handle(pattern string, handler http.Handler) { h.mux.Handle(pattern, handler) }

// Addr is the address the server listens on.
func (h *HTTP) Addr() string { return h.l.Addr().String() }

// Serve serves until Close; it returns nil after Close.
func (h *HTTP) Serve() error {
	if err := h.srv.Serve(h.l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Close stops the server.
func (h *HTTP) Close() error { return h.srv.Close() }
