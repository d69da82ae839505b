package regionserver

import (
	"cmp"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/weirdb/weir/internal/quota"
)

// quotaMetricsMaxSubjects bounds the weir_quota_* series: at most this many
// subjects get series of their own (the busiest: queued, then rate, then
// rejections); the rest are summed under subject="other" (whose counters
// may step back when a subject moves in or out of the top, which Prometheus
// reads as a reset). Series exist only for limits in force at the scrape,
// so a removed quota's series vanish.
const quotaMetricsMaxSubjects = 200

// quotaCollector exports the reporter's latest usage sample as the
// weir_quota_* metrics (labels subject, type, scope).
type quotaCollector struct {
	rs                                      *RegionServer
	consumed, admitted, rejected, waitTotal *prometheus.Desc
	rate, limit, queued                     *prometheus.Desc
}

func newQuotaCollector(rs *RegionServer) *quotaCollector {
	labels := []string{"subject", "type", "scope"}
	d := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, labels, nil) }
	return &quotaCollector{
		rs:        rs,
		consumed:  d("weir_quota_consumed_total", "Units (requests, bytes, CU or ms, by type) taken from the quota on this server."),
		admitted:  d("weir_quota_admitted_total", "Requests the subject's limiter admitted on this server."),
		rejected:  d("weir_quota_rejected_total", "Requests refused by the subject's limiter on this server (RpcThrottlingException)."),
		waitTotal: d("weir_quota_wait_seconds_total", "Time requests were held waiting for the subject's tokens on this server."),
		rate:      d("weir_quota_rate", "Recent consumption per second (1 s moving average), in the type's unit."),
		limit:     d("weir_quota_limit", "This server's limit per second (its share of a CLUSTER or per-host limit), in the type's unit."),
		queued:    d("weir_quota_queued", "Requests held now waiting for the subject's tokens on this server."),
	}
}

func (c *quotaCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.consumed, c.admitted, c.rejected, c.waitTotal, c.rate, c.limit, c.queued} {
		ch <- d
	}
}

func (c *quotaCollector) Collect(ch chan<- prometheus.Metric) {
	rows := c.rs.QuotaUsage()
	for _, r := range boundSubjects(rows, quotaMetricsMaxSubjects) {
		lv := []string{r.label, r.Type.String(), strings.ToLower(r.Quota.Scope.String())}
		counter := func(d *prometheus.Desc, v float64) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, lv...)
		}
		gauge := func(d *prometheus.Desc, v float64) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, lv...)
		}
		counter(c.consumed, max(r.Consumed, 0))
		counter(c.admitted, float64(r.Admitted))
		counter(c.rejected, float64(r.Rejected))
		counter(c.waitTotal, r.Wait.Seconds())
		gauge(c.rate, r.Rate)
		gauge(c.limit, r.Limit)
		gauge(c.queued, float64(r.Queued))
	}
}

type labelledUsage struct {
	quota.Usage
	label string
}

// subjectLabel is a compact form of a subject for a label value:
// "user=u", "user=u,table=ns:t", "namespace=ns", "regionserver=all";
// a default user quota is "user=u,default".
func subjectLabel(s quota.Subject, isDefault bool) string {
	var parts []string
	if s.User != "" {
		parts = append(parts, "user="+s.User)
	}
	switch {
	case s.Table != "":
		parts = append(parts, "table="+s.Namespace+":"+s.Table)
	case s.Namespace != "":
		parts = append(parts, "namespace="+s.Namespace)
	}
	if s.RegionServer != "" {
		parts = append(parts, "regionserver="+s.RegionServer)
	}
	if isDefault {
		parts = append(parts, "default")
	}
	return strings.Join(parts, ",")
}

// boundSubjects keeps the rows of the n busiest subjects and sums the rest
// per type and scope under subject "other".
func boundSubjects(rows []quota.Usage, n int) []labelledUsage {
	type subj struct {
		s         quota.Subject
		isDefault bool
	}
	type activity struct {
		queued   int64
		rate     float64
		rejected uint64
	}
	act := map[subj]activity{}
	for _, r := range rows {
		k := subj{r.Subject, r.Default}
		a := act[k]
		a.queued += r.Queued
		a.rate = max(a.rate, r.Rate)
		a.rejected += r.Rejected
		act[k] = a
	}
	keep := map[subj]bool{}
	if len(act) <= n {
		for k := range act {
			keep[k] = true
		}
	} else {
		subjects := make([]subj, 0, len(act))
		for k := range act {
			subjects = append(subjects, k)
		}
		slices.SortFunc(subjects, func(a, b subj) int {
			x, y := act[a], act[b]
			return cmp.Or(cmp.Compare(y.queued, x.queued), cmp.Compare(y.rate, x.rate), cmp.Compare(y.rejected, x.rejected),
				strings.Compare(subjectLabel(a.s, a.isDefault), subjectLabel(b.s, b.isDefault)))
		})
		for _, k := range subjects[:n] {
			keep[k] = true
		}
	}
	type otherKey struct {
		t     quota.ThrottleType
		scope quota.Scope
	}
	var out []labelledUsage
	other := map[otherKey]*labelledUsage{}
	var otherOrder []otherKey
	for _, r := range rows {
		if keep[subj{r.Subject, r.Default}] {
			out = append(out, labelledUsage{r, subjectLabel(r.Subject, r.Default)})
			continue
		}
		k := otherKey{r.Type, r.Quota.Scope}
		o := other[k]
		if o == nil {
			o = &labelledUsage{label: "other"}
			o.Type, o.Quota.Scope = r.Type, r.Quota.Scope
			other[k] = o
			otherOrder = append(otherOrder, k)
		}
		o.Consumed += r.Consumed
		o.Admitted += r.Admitted
		o.Rejected += r.Rejected
		o.Wait += r.Wait
		o.Rate += r.Rate
		o.Limit += r.Limit
		o.Queued += r.Queued
	}
	for _, k := range otherOrder {
		out = append(out, *other[k])
	}
	return out
}
