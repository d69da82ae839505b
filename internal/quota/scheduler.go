package quota

import (
	"container/heap"
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Scheduler shares Slots concurrent execution slots between tenants. It is
// work-conserving: while fewer than Slots are in use, Acquire admits at
// once and nobody waits. When all slots are busy, waiters are queued and
// each released slot goes to the next waiter by priority (every HIGH waiter
// before any MEDIUM, every MEDIUM before any LOW), then, within a priority,
// by weighted fair share across tenants: start-time fair queueing, where
// each waiter gets the virtual finish tag max(V, tenant's last tag) +
// 1/weight and the smallest tag goes first (ties in arrival order). Under
// saturation two backlogged tenants of weights 3 and 1 get slots 3:1.
//
// Strict priority means LOW work can starve while HIGH work saturates the
// server; that is the contract asked for.
//
// HighReserve extra slots are kept for HIGH work: a HIGH call is admitted
// at once while fewer than Slots+HighReserve are in use, so it does not
// wait for a running call to finish, and a freed slot beyond Slots goes to
// a HIGH waiter or is freed, never to a lower one.
//
// Admission order alone does not protect HIGH work once LOW work runs: a
// running LOW call keeps its CPU, and Go's scheduler gives the HIGH call's
// goroutine no precedence. So while higher work (HIGH or MEDIUM) is active
// (scheduler_low.go: queued or running, or seen within BusyLinger), LOW
// calls may hold at most LowBusyLimit slots; running LOW calls beyond it
// give their slot up at their next safe point (Slot.Yield). When no higher
// work was seen for BusyLinger, LOW may take every slot again.
//
// The zero value is not usable until Slots is set; the fields must not
// change after first use. Safe for concurrent use.
type Scheduler struct {
	Slots       int
	HighReserve int
	// LowBusyLimit bounds the slots LOW calls hold while higher work is
	// active; 0 or less: no bound (LOW is limited by Slots only), unless
	// LowWaitsWhileBusy.
	LowBusyLimit int
	// LowWaitsWhileBusy makes the bound zero: while higher work is
	// active, new LOW calls wait and running ones give their slot up at
	// their next safe point (for at most MaxYield each time). Strict
	// priority: HIGH work then meets no LOW work at all, but LOW does not
	// get the processors higher work leaves idle, so the scheduler is no
	// longer work-conserving while both are present.
	LowWaitsWhileBusy bool
	// BusyLinger is how long higher work counts as active after the last
	// higher call ended (so that a closed-loop HIGH client's think time
	// between calls does not lift the bound); 0: only while one is queued
	// or running.
	BusyLinger time.Duration
	// MaxYield bounds how long Slot.Yield waits to get a slot back before
	// the call goes on regardless (a yielding scan holds its region open:
	// it must not wait on work that may wait on the region). Default 20 ms.
	MaxYield time.Duration
	// MaxPause bounds how long a running LOW call within LowBusyLimit
	// waits at a safe point while a HIGH call executes (Slot.Yield);
	// default DefaultMaxPause, negative: LOW calls within the bound never
	// pause.
	MaxPause time.Duration
	// PauseLinger is how long paused LOW calls stay paused after the last
	// HIGH call left its slot: a HIGH call's response is encoded and
	// written after that, and LOW work woken at once would compete with
	// it for the processors. Default DefaultPauseLinger; negative: none.
	PauseLinger time.Duration
	// Now is the clock (nil: time.Now); tests inject one.
	Now func() time.Time

	// higher counts HIGH and MEDIUM calls queued or running: the flag a
	// LOW call's safe point reads without a lock.
	higher atomic.Int32
	// higherEndNs is mu.higherEnd in Unix nanoseconds, for Busy.
	higherEndNs atomic.Int64
	// highs counts HIGH calls queued or running; calm, when set, is
	// closed once highs falls to zero (LOW calls paused at their safe
	// points wait on it: scheduler_low.go).
	highs atomic.Int32
	calm  atomic.Pointer[chan struct{}]

	mu struct {
		sync.Mutex
		inUse    int
		lowInUse int
		seq      uint64
		// queues[p] holds the waiters of priority p (index p+1).
		queues [3]waitHeap
		// vtime[p] is the virtual time of priority p: the tag of the last
		// waiter admitted.
		vtime [3]float64
		// last is each tenant's latest finish tag per priority; entries
		// behind the virtual time are dropped.
		last map[tenantClass]float64
		// higherEnd is when higher fell to zero last.
		higherEnd time.Time
		// lift re-admits LOW waiters once BusyLinger has passed (nil when
		// not armed).
		lift *time.Timer
		// unpause ends paused LOW calls' pause PauseLinger after the last
		// HIGH call left (made on first use, then reset).
		unpause *time.Timer
	}
}

type tenantClass struct {
	tenant string
	prio   Priority
}

type waiter struct {
	ch    chan struct{} // closed when admitted
	tag   float64
	seq   uint64
	index int // in its heap; -1 once admitted or removed
}

type waitHeap []*waiter

func (h waitHeap) Len() int { return len(h) }
func (h waitHeap) Less(i, j int) bool {
	if h[i].tag != h[j].tag {
		return h[i].tag < h[j].tag
	}
	return h[i].seq < h[j].seq
}
func (h waitHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *waitHeap) Push(x any) {
	w := x.(*waiter)
	w.index = len(*h)
	*h = append(*h, w)
}
func (h *waitHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	w.index = -1
	return w
}

func prioIndex(p Priority) int {
	switch {
	case p >= PriorityHigh:
		return 2
	case p <= PriorityLow:
		return 0
	}
	return 1
}

// Slot is an execution slot held by one call.
type Slot struct {
	s      *Scheduler
	tenant string
	weight int
	p      int
	// held is false once released (or while a yield waits for the slot).
	held atomic.Bool
}

// Acquire takes a slot for tenant, waiting if all are busy. weight < 1
// means 1. It returns a release function to call exactly once when the work
// is done (extra calls do nothing), or ctx's error if ctx ends first.
func (s *Scheduler) Acquire(ctx context.Context, tenant string, prio Priority, weight int) (release func(), err error) {
	sl, err := s.AcquireSlot(ctx, tenant, prio, weight)
	if err != nil {
		return nil, err
	}
	return sl.Release, nil
}

// AcquireSlot is Acquire returning the Slot, whose Yield a long LOW call
// calls at its safe points.
func (s *Scheduler) AcquireSlot(ctx context.Context, tenant string, prio Priority, weight int) (*Slot, error) {
	sl := &Slot{}
	if err := s.AcquireInto(ctx, sl, tenant, prio, weight); err != nil {
		return nil, err
	}
	return sl, nil
}

// AcquireInto is AcquireSlot into a Slot the caller provides (a zero one,
// or one released since), so that a call that needs no Yield can keep its
// slot on its stack: nothing is allocated unless the call must queue. The
// caller must Release it exactly once after a nil error; sl must not be
// used by anyone else meanwhile.
func (s *Scheduler) AcquireInto(ctx context.Context, sl *Slot, tenant string, prio Priority, weight int) error {
	if weight < 1 {
		weight = 1
	}
	sl.s, sl.tenant, sl.weight, sl.p = s, tenant, weight, prioIndex(prio)
	sl.held.Store(false)
	if sl.p > 0 {
		s.higher.Add(1)
		if sl.p == 2 {
			s.highs.Add(1)
		}
	}
	if err := s.take(ctx, sl, 0); err != nil {
		if sl.p > 0 {
			s.higherDone(sl.p)
		}
		return err
	}
	return nil
}

// take admits sl, queueing it if it may not run now. With patience > 0 it
// takes the slot regardless once patience has passed; otherwise it waits
// until admitted or ctx ends.
func (s *Scheduler) take(ctx context.Context, sl *Slot, patience time.Duration) error {
	p := sl.p
	s.mu.Lock()
	if s.mu.queues[p].Len() == 0 && s.admissibleLocked(p) {
		s.admitLocked(p)
		s.mu.Unlock()
		sl.held.Store(true)
		return nil
	}
	if s.mu.last == nil {
		s.mu.last = make(map[tenantClass]float64)
	}
	key := tenantClass{sl.tenant, Priority(p - 1)}
	tag := max(s.mu.vtime[p], s.mu.last[key]) + 1/float64(sl.weight)
	s.mu.last[key] = tag
	s.mu.seq++
	w := &waiter{ch: make(chan struct{}), tag: tag, seq: s.mu.seq}
	heap.Push(&s.mu.queues[p], w)
	if p == 0 {
		s.armLiftLocked()
	}
	s.mu.Unlock()

	var timeout <-chan time.Time
	if patience > 0 {
		t := time.NewTimer(patience)
		defer t.Stop()
		timeout = t.C
	}
	var err error
	select {
	case <-w.ch:
		sl.held.Store(true)
		return nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-timeout:
	}
	s.mu.Lock()
	if w.index >= 0 {
		heap.Remove(&s.mu.queues[p], w.index)
		if err == nil {
			// Out of patience: run over the bound rather than hold a
			// region open any longer.
			s.admitLocked(p)
		}
		s.mu.Unlock()
		if err == nil {
			sl.held.Store(true)
		}
		return err
	}
	s.mu.Unlock()
	// Admitted just as ctx ended or patience ran out.
	sl.held.Store(true)
	if err != nil {
		sl.Release()
	}
	return err
}

// Release gives the slot back; extra calls do nothing.
func (sl *Slot) Release() {
	if !sl.held.CompareAndSwap(true, false) {
		return
	}
	s := sl.s
	s.mu.Lock()
	s.freeLocked(sl.p)
	s.dispatchLocked()
	s.mu.Unlock()
	if sl.p > 0 {
		s.higherDone(sl.p)
	}
}

// limit is how many slots may be in use when a call of priority index p
// is admitted.
func (s *Scheduler) limit(p int) int {
	if p == 2 {
		return max(s.Slots, 1) + max(s.HighReserve, 0)
	}
	return max(s.Slots, 1)
}

// admissibleLocked reports whether a call of priority index p may take a
// slot now.
func (s *Scheduler) admissibleLocked(p int) bool {
	if s.mu.inUse >= s.limit(p) {
		return false
	}
	return p > 0 || s.lowBelowBoundLocked()
}

func (s *Scheduler) admitLocked(p int) {
	s.mu.inUse++
	if p == 0 {
		s.mu.lowInUse++
	}
}

func (s *Scheduler) freeLocked(p int) {
	s.mu.inUse--
	if p == 0 {
		s.mu.lowInUse--
	}
}

// dispatchLocked admits queued waiters, highest priority first, while
// they may run.
func (s *Scheduler) dispatchLocked() {
	for p := 2; p >= 0; p-- {
		q := &s.mu.queues[p]
		for q.Len() > 0 && s.admissibleLocked(p) {
			w := heap.Pop(q).(*waiter)
			s.mu.vtime[p] = w.tag
			if q.Len() == 0 {
				// Every tag of this priority is now ≤ vtime: forget them.
				for k := range s.mu.last {
					if prioIndex(k.prio) == p {
						delete(s.mu.last, k)
					}
				}
			}
			s.admitLocked(p)
			close(w.ch)
		}
		if q.Len() > 0 {
			// Lower priorities wait behind this one.
			return
		}
	}
}

// InUse returns the slots in use.
func (s *Scheduler) InUse() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.inUse
}

// LowInUse returns the slots LOW calls hold.
func (s *Scheduler) LowInUse() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.lowInUse
}

// Waiting returns the number of queued waiters.
func (s *Scheduler) Waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for i := range s.mu.queues {
		n += s.mu.queues[i].Len()
	}
	return n
}
