package region

import "sync/atomic"

// requestCounts are HBase's RegionLoad read_requests_count and
// write_requests_count: rows read (a Get is one, a scan one per row it
// returns) and mutations applied, since the region opened. The balancer
// turns them into rates from the region servers' load reports.
type requestCounts struct {
	reads, writes atomic.Uint64
}

// RequestCounts returns the rows read and mutations applied since the
// region opened. Safe for concurrent use.
func (r *Region) RequestCounts() (reads, writes uint64) {
	return r.requests.reads.Load(), r.requests.writes.Load()
}
