package hbaserpc

import (
	"context"
	"fmt"
	"time"
)

// ErrCallTimeout is wrapped by the error of a call whose CallTimeout
// passed before its response came. It wraps context.DeadlineExceeded.
var ErrCallTimeout = fmt.Errorf("hbaserpc: call timed out: %w", context.DeadlineExceeded)

// minExpiryWait keeps expireLoop from spinning on deadlines a hair apart.
const minExpiryWait = time.Millisecond

// expireLoop fails calls whose CallTimeout has passed. It sleeps until the
// earliest timeout of the calls pending at its last look (so under a steady
// load with one timeout it wakes about once per timeout, not per call) and
// is kicked when a call registers with an earlier one. With no timed call
// pending it waits for a kick.
func (c *ClientConn) expireLoop() {
	defer c.wg.Done()
	t := time.NewTimer(time.Hour)
	t.Stop()
	defer t.Stop()
	for {
		select {
		case <-c.closed:
			return
		case <-c.expireKick:
		case <-t.C:
		}
		now := time.Now()
		var expired []pendingCall
		c.mu.Lock()
		var next time.Time
		for id, p := range c.mu.pending {
			switch {
			case p.expires.IsZero():
			case !now.Before(p.expires):
				delete(c.mu.pending, id)
				expired = append(expired, p)
			case next.IsZero() || p.expires.Before(next):
				next = p.expires
			}
		}
		c.mu.nextExpiry = next
		c.mu.Unlock()
		for _, p := range expired {
			p.ch <- clientResult{err: fmt.Errorf("%w: %s to %s", ErrCallTimeout, p.method, c.addr)}
		}
		if !next.IsZero() {
			t.Reset(max(next.Sub(now), minExpiryWait))
		}
	}
}
