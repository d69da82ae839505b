// Package quota is Weir's request-throttling library: HBase-compatible RPC
// quotas (the 13 throttle types, set_quota semantics, limiter precedence and
// the RpcThrottlingException message format) plus Weir's own additions:
// queueing over-limit requests instead of rejecting them, charging the actual
// cost after the fact, and a priority + weighted-fair scheduler for a
// saturated server.
//
// The pieces, each in its own file:
//
//   - limit.go: LIMIT strings ("10req/sec", "5K/min", "3CU/hour").
//   - settings.go, change.go, proto.go: the quota model (Settings), applying
//     a set_quota change, and conversion to and from hbasepb.Quotas.
//   - limiter.go: the token-bucket RateLimiter (HBase's average-interval
//     refill, with debt).
//   - quota.go: Checker, the per-request check across the user, table,
//     namespace and region-server limiters, and Grant for charging actual
//     cost.
//   - errors.go: ThrottledError and the HBase wait-hint format.
//   - queue.go: Admitter, queue or reject mode with a per-tenant FIFO.
//   - scheduler.go: Scheduler, work-conserving priority + weighted fair share.
//
// Nothing here touches the network or the KV code: the region server wraps
// its handlers with an Admitter (quota as a decorator), and tests inject the
// clock and the sleep.
package quota
