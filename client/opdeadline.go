package client

import (
	"context"
	"time"
)

// An operation's first attempt runs without a timer context of its own:
// context.WithTimeout per operation (a timer armed and stopped, the
// context registered with and removed from its parent's, which many
// goroutines share) was about a twentieth of a YCSB client's CPU. Instead
// the first attempt carries the operation's deadline as a value, and every
// RPC it makes is bounded by it (Conn.call); only an operation that must
// retry, and so may wait, makes the timer context (onRegion).

type opDeadlineKey struct{}

// withOpDeadline returns ctx carrying the operation deadline d.
func withOpDeadline(ctx context.Context, d time.Time) context.Context {
	return context.WithValue(ctx, opDeadlineKey{}, d)
}

// opDeadline returns the operation deadline ctx carries, if any.
func opDeadline(ctx context.Context) (time.Time, bool) {
	d, ok := ctx.Value(opDeadlineKey{}).(time.Time)
	return d, ok
}

// runOp runs an operation's attempt under the operation timeout: the
// first without a timer (its RPCs are bounded by the deadline it
// carries), the retries, if it needs them, under a timer context.
func (c *Conn) runOp(ctx context.Context, what string, attempt func(ctx context.Context) error) error {
	deadline := time.Now().Add(c.opts.OperationTimeout)
	err := attempt(withOpDeadline(ctx, deadline))
	if err != nil {
		octx, cancel := context.WithDeadline(ctx, deadline)
		defer cancel()
		err = c.retryFrom(octx, what, err, attempt)
	}
	return err
}

// rpcTimeout is the timeout for one RPC under ctx: the RPC timeout, cut
// to what is left of the operation deadline ctx carries; ok is false when
// that has passed.
func (c *Conn) rpcTimeout(ctx context.Context) (timeout time.Duration, ok bool) {
	timeout = c.opts.RPCTimeout
	if d, has := opDeadline(ctx); has {
		left := time.Until(d)
		if left <= 0 {
			return 0, false
		}
		timeout = min(timeout, left)
	}
	return timeout, true
}

// dialContext bounds a dial by the operation deadline ctx carries, if any
// (dials are rare, so a timer context is fine here).
func dialContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := opDeadline(ctx); ok {
		return context.WithDeadline(ctx, d)
	}
	return ctx, func() {}
}
