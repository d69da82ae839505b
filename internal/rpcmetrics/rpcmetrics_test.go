package rpcmetrics

import (
	"context"
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/weirdb/weir/internal/hbaserpc"
)

// TestInstrument: calls are counted by method and outcome and timed by
// method, through the cached series and past the cache's bound alike.
func TestInstrument(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := New(reg)
	h := m.Instrument("ClientService", hbaserpc.HandlerFunc(func(ctx context.Context, c *hbaserpc.Call) (hbaserpc.Response, error) {
		if c.Method == "Scan" {
			return hbaserpc.Response{}, hbaserpc.Errorf(hbaserpc.UnsupportedOperation, true, "no")
		}
		return hbaserpc.Response{}, nil
	}))
	for range 3 {
		_, _ = h.Serve(context.Background(), &hbaserpc.Call{Method: "Get"})
	}
	_, _ = h.Serve(context.Background(), &hbaserpc.Call{Method: "Scan"})
	for i := range maxCachedMethods + 5 {
		_, _ = h.Serve(context.Background(), &hbaserpc.Call{Method: fmt.Sprintf("M%d", i)})
	}
	_, _ = h.Serve(context.Background(), &hbaserpc.Call{Method: fmt.Sprintf("M%d", maxCachedMethods+1)})
	calls := map[string]float64{} // "method/result" → count
	durations := 0
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		for _, mt := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range mt.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			switch mf.GetName() {
			case "weir_rpc_calls_total":
				calls[labels["method"]+"/"+labels["result"]] = mt.GetCounter().GetValue()
			case "weir_rpc_duration_seconds":
				durations++
			}
		}
	}
	for _, c := range []struct {
		method, result string
		want           float64
	}{
		{"Get", "ok", 3},
		{"Scan", hbaserpc.UnsupportedOperation, 1},
		{"Scan", "ok", 0},
		{"M0", "ok", 1},
		{fmt.Sprintf("M%d", maxCachedMethods+1), "ok", 2},
	} {
		if got := calls[c.method+"/"+c.result]; got != c.want {
			t.Errorf("calls{%s,%s} = %v, want %v", c.method, c.result, got, c.want)
		}
	}
	// Get, Scan and the M names; Scan's failure is timed too.
	if want := maxCachedMethods + 7; durations != want {
		t.Errorf("%d duration series, want %d", durations, want)
	}
}
