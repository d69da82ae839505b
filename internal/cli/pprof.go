package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// pprofFlag is the --pprof flag of the server commands: off unless given.
type pprofFlag struct{ addr string }

func (p *pprofFlag) register(fs *flag.FlagSet) {
	fs.StringVar(&p.addr, "pprof", "", "serve Go's profiler (/debug/pprof/) on this host:port; off when empty. Never expose it beyond the host: it reveals memory contents")
}

// start serves /debug/pprof/ on its own listener, apart from the /metrics
// port, so that profiling stays off the info port unless asked for. The
// returned stop closes it; both are no-ops when the flag is empty.
func (p *pprofFlag) start(stderr io.Writer) (stop func(), err error) {
	if p.addr == "" {
		return func() {}, nil
	}
	l, err := net.Listen("tcp", p.addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof %s: %w", p.addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "pprof server: %v\n", err)
		}
	}()
	fmt.Fprintf(stderr, "pprof: http://%s/debug/pprof/\n", l.Addr())
	return func() { _ = srv.Close(); <-done }, nil
}
