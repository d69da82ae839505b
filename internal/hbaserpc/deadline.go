package hbaserpc

import (
	"context"
	"math/bits"
	"time"
)

// Calls with a timeout run under a context that ends at their deadline.
// One context.WithDeadline per call (a timer armed and stopped, the
// context registered with and removed from the connection's) was a few
// percent of a region server's CPU, so calls whose deadlines fall in the
// same short interval share one: a deadline is rounded up to a multiple of
// the largest power of two nanoseconds at most 1/64 of the time the client
// allowed (about 1 s for HBase's 60 s default, 1 ms under 128 ms), and the
// connection's reader keeps the contexts of the last few rounded deadlines.
// A call's deadline is thus late by under 1/64 of its timeout; calls with
// less than exactDeadlineBelow left get an exact context of their own.

// exactDeadlineBelow is the timeout under which a call gets its own
// context with its exact deadline.
const exactDeadlineBelow = 64 * time.Millisecond

// deadlineCacheSize is how many shared deadline contexts a connection
// keeps: enough for a few different timeouts in use at once.
const deadlineCacheSize = 4

// deadlineCtxs is a connection's cache of shared deadline contexts. Only
// the connection's reader uses it.
type deadlineCtxs struct {
	entries [deadlineCacheSize]struct {
		at     int64 // the rounded deadline, Unix nanoseconds
		ctx    context.Context
		cancel context.CancelFunc
	}
	next int // entry to replace next
}

// callContext returns the context and deadline for a call received at
// received with timeout. cancel is non-nil for an exact context, which the
// call must cancel when done; a shared one ends on its own at its deadline
// or with parent.
func (d *deadlineCtxs) callContext(parent context.Context, received time.Time, timeout time.Duration) (ctx context.Context, deadline time.Time, cancel context.CancelFunc) {
	deadline = received.Add(timeout)
	if timeout < exactDeadlineBelow {
		ctx, cancel = context.WithDeadline(parent, deadline)
		return ctx, deadline, cancel
	}
	g := int64(1) << (bits.Len64(uint64(timeout/64)) - 1) // largest power of two ≤ timeout/64
	exact := deadline.UnixNano()
	at := (exact + g - 1) / g * g
	deadline = deadline.Add(time.Duration(at - exact))
	for i := range d.entries {
		if e := &d.entries[i]; e.ctx != nil && e.at == at {
			return e.ctx, deadline, nil
		}
	}
	e := &d.entries[d.next]
	d.next = (d.next + 1) % deadlineCacheSize
	// The entry replaced may still be in use by calls: it is not
	// cancelled here but ends at its deadline.
	e.at = at
	e.ctx, e.cancel = context.WithDeadline(parent, deadline)
	return e.ctx, deadline, nil
}

// release cancels the cached contexts; the connection calls it once its
// calls are done.
func (d *deadlineCtxs) release() {
	for i := range d.entries {
		if e := &d.entries[i]; e.cancel != nil {
			e.cancel()
		}
	}
	*d = deadlineCtxs{}
}
