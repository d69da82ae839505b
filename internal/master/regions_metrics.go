package master

import (
	"github.com/prometheus/client_golang/prometheus"
)

// lifecycleMetrics count the region lifecycle operations the master ran.
type lifecycleMetrics struct {
	ops         *prometheus.CounterVec // by op (move, split, merge, assign, unassign) and outcome
	unavailable prometheus.Histogram   // a move's fenced window
}

func newLifecycleMetrics(reg prometheus.Registerer) *lifecycleMetrics {
	lm := &lifecycleMetrics{
		ops: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "weir_master_region_ops_total",
			Help: "Region lifecycle operations by op (move, split, merge, assign, unassign) and outcome (ok, error)."},
			[]string{"op", "outcome"}),
		unavailable: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "weir_master_region_move_unavailable_seconds",
			Help:    "How long a moved region could not be served: from the source's fence to the region open at the target.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 14)}),
	}
	reg.MustRegister(lm.ops, lm.unavailable)
	return lm
}

// done records one operation's outcome and passes its error on.
func (lm *lifecycleMetrics) done(op string, err error) error {
	if lm == nil {
		return err
	}
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	lm.ops.WithLabelValues(op, outcome).Inc()
	return err
}
