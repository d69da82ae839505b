package quota

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Admitter decides what happens to an over-limit request: in ModeReject it
// returns the *ThrottledError at once (HBase's behavior); in ModeQueue it
// holds the request until its tokens are due, at most Config.MaxWait from
// arrival, and only then rejects it with the wait hint. Requests of one
// tenant (user) are admitted in arrival order through a per-tenant FIFO, so
// a tenant's backlog never reorders its own requests and never blocks other
// tenants. Safe for concurrent use.
type Admitter struct {
	checker *Checker
	mode    Mode
	maxWait time.Duration
	nowFn   func() time.Time
	sleepFn func(ctx context.Context, d time.Duration) error
	// realClock is set when nowFn is time.Now: the admitted path then
	// reads only the monotonic clock (Checker.clockNow).
	realClock bool

	mu struct {
		sync.Mutex
		lanes map[string]*lane // tenant → its FIFO; removed when idle
	}
}

// NewAdmitter wraps c. nowFn and sleepFn may be nil (time.Now and a timer
// that honors ctx); tests inject a fake clock whose sleep advances it.
func NewAdmitter(c *Checker, nowFn func() time.Time, sleepFn func(context.Context, time.Duration) error) *Admitter {
	realClock := nowFn == nil
	if realClock {
		nowFn = time.Now
	}
	if sleepFn == nil {
		sleepFn = sleepCtx
	}
	a := &Admitter{checker: c, mode: c.cfg.Mode, maxWait: c.cfg.MaxWait, nowFn: nowFn, sleepFn: sleepFn, realClock: realClock}
	a.mu.lanes = make(map[string]*lane)
	return a
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Admit checks req and, in queue mode, waits for its tokens. It returns the
// Grant to charge actual cost on, a *ThrottledError (errors.Is
// ErrThrottled) when the request cannot be admitted within MaxWait, or
// ctx's error.
func (a *Admitter) Admit(ctx context.Context, req Request) (Grant, error) {
	var now time.Time
	var ns int64
	if a.realClock {
		ns = a.checker.clockNow()
	} else {
		now = a.nowFn()
		ns = a.checker.clock(now)
	}
	r := a.checker.resolve(a.checker.state.Load(), ns, &req)
	if a.mode == ModeReject {
		g, err := a.checker.check(r, ns, &req)
		if err != nil {
			noteRejected(err)
		}
		return g, err
	}
	// Nobody of this tenant is queued: a request whose tokens are there
	// passes without taking the lane (no lock, no allocation). One that
	// must wait joins the lane behind those that arrived meanwhile.
	if r.tenant.queued.Load() == 0 {
		if g, err := a.checker.check(r, ns, &req); err == nil || !errors.Is(err, ErrThrottled) {
			return g, err
		}
	}
	if a.realClock {
		now = a.nowFn() // a check later than the arrival: nanoseconds
	}
	deadline := now.Add(a.maxWait)
	t := a.acquireLane(req.User, a.checker.enqueueTenant(req.User))
	defer a.releaseLane(req.User, t)
	if err := t.wait(ctx); err != nil {
		return Grant{}, err
	}
	for {
		now = a.nowFn()
		g, err := a.checker.Check(now, req)
		var te *ThrottledError
		if err == nil || !errors.As(err, &te) {
			return g, err
		}
		// Give up now, with the hint, when the tokens cannot be due in time.
		if now.Add(te.Wait).After(deadline) {
			noteRejected(te)
			return Grant{}, te
		}
		t.blockedOn = te.lim
		a.setBlocker(t, te.lim)
		noteWaiting(te.lim, true, 0)
		err = a.sleepFn(ctx, te.Wait)
		noteWaiting(te.lim, false, a.nowFn().Sub(now))
		if err != nil {
			return Grant{}, err
		}
	}
}

// lane is one tenant's FIFO: the head runs, the others wait their turn.
type lane struct {
	refs    int             // guarded by Admitter.mu: requests holding or waiting
	waiters []chan struct{} // guarded by Admitter.mu, in arrival order
	busy    bool            // guarded by Admitter.mu
	// blocker is the limiter the head waits on (guarded by Admitter.mu;
	// usage counts the waiters behind it as queued there).
	blocker *subjectLimiter
}

// acquireLane registers a request on its tenant's lane and returns its
// ticket; ticket.wait then blocks until it is the head. tn is the tenant
// the request is counted on (Checker.enqueueTenant); releaseLane uncounts
// it.
func (a *Admitter) acquireLane(user string, tn *tenant) *laneTicket {
	a.mu.Lock()
	defer a.mu.Unlock()
	l := a.mu.lanes[user]
	if l == nil {
		l = &lane{}
		a.mu.lanes[user] = l
	}
	l.refs++
	t := &laneTicket{a: a, l: l, tn: tn}
	if !l.busy {
		l.busy = true
		t.head = true
		return t
	}
	t.ch = make(chan struct{})
	l.waiters = append(l.waiters, t.ch)
	return t
}

// laneTicket is one request's place in a lane.
type laneTicket struct {
	a    *Admitter
	l    *lane
	tn   *tenant       // its queued count includes this ticket
	ch   chan struct{} // closed when this ticket becomes the head
	head bool
	// blockedOn is the limiter this request last waited on, if any.
	blockedOn *subjectLimiter
}

func (t *laneTicket) wait(ctx context.Context) error {
	if t.head {
		return nil
	}
	select {
	case <-t.ch:
		t.head = true
		return nil
	case <-ctx.Done():
		t.a.mu.Lock()
		defer t.a.mu.Unlock()
		for i, c := range t.l.waiters {
			if c == t.ch {
				t.l.waiters = append(t.l.waiters[:i], t.l.waiters[i+1:]...)
				return ctx.Err()
			}
		}
		// Became the head just as ctx ended: keep the turn so that release
		// passes it on.
		t.head = true
		return ctx.Err()
	}
}

func (a *Admitter) releaseLane(user string, t *laneTicket) {
	a.mu.Lock()
	defer a.mu.Unlock()
	l := t.l
	if t.head {
		if t.blockedOn == nil {
			l.blocker = nil // this head passed without waiting: not blocked
		}
		if len(l.waiters) > 0 {
			next := l.waiters[0]
			l.waiters = l.waiters[1:]
			close(next)
		} else {
			l.busy = false
		}
	}
	l.refs--
	t.tn.queued.Add(-1)
	if l.refs == 0 {
		delete(a.mu.lanes, user)
	}
}
