package regionserver

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/weirdb/weir/internal/region"
)

// rowCacheCollector exports the row cache's figures (nothing when the
// cache is off).
type rowCacheCollector struct {
	c                                    *region.RowCache
	hits, misses, fills, evictions, size *prometheus.Desc
	entries, patches, declined           *prometheus.Desc
}

func newRowCacheCollector(c *region.RowCache) *rowCacheCollector {
	d := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, nil, nil) }
	return &rowCacheCollector{
		c:         c,
		hits:      d("weir_rowcache_hits_total", "Gets served from the row cache."),
		misses:    d("weir_rowcache_misses_total", "Gets that could use the row cache and read the store."),
		fills:     d("weir_rowcache_fills_total", "Rows put in the row cache."),
		declined:  d("weir_rowcache_declined_total", "Gets that read a row the row cache does not take: nothing in it was stepped over."),
		patches:   d("weir_rowcache_patches_total", "Cached rows a Put wrote its cells into instead of dropping them."),
		evictions: d("weir_rowcache_evictions_total", "Rows evicted from the row cache to keep to its size."),
		size:      d("weir_rowcache_bytes", "Bytes the row cache holds."),
		entries:   d("weir_rowcache_rows", "Rows the row cache holds."),
	}
}

func (c *rowCacheCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.hits, c.misses, c.fills, c.patches, c.evictions, c.declined, c.size, c.entries} {
		ch <- d
	}
}

func (c *rowCacheCollector) Collect(ch chan<- prometheus.Metric) {
	if c.c == nil {
		return
	}
	st := c.c.Stats()
	cnt, g := prometheus.CounterValue, prometheus.GaugeValue
	ch <- prometheus.MustNewConstMetric(c.hits, cnt, float64(st.Hits))
	ch <- prometheus.MustNewConstMetric(c.misses, cnt, float64(st.Misses))
	ch <- prometheus.MustNewConstMetric(c.fills, cnt, float64(st.Fills))
	ch <- prometheus.MustNewConstMetric(c.patches, cnt, float64(st.Patches))
	ch <- prometheus.MustNewConstMetric(c.evictions, cnt, float64(st.Evictions))
	ch <- prometheus.MustNewConstMetric(c.declined, cnt, float64(st.Declined))
	ch <- prometheus.MustNewConstMetric(c.size, g, float64(st.Bytes))
	ch <- prometheus.MustNewConstMetric(c.entries, g, float64(st.Entries))
}
