package quota

import (
	"container/heap"
	"context"
	"sync"
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
// wait for a running call to finish (slots cannot preempt), and a freed
// slot beyond Slots goes to a HIGH waiter or is freed, never to a lower
// one. The zero value is not usable until Slots is set; Slots and
// HighReserve must not change after first use. Safe for concurrent use.
type Scheduler struct {
	Slots       int
	HighReserve int

	mu struct {
		sync.Mutex
		inUse int
		seq   uint64
		// queues[p] holds the waiters of priority p (index p+1).
		queues [3]waitHeap
		// vtime[p] is the virtual time of priority p: the tag of the last
		// waiter admitted.
		vtime [3]float64
		// last is each tenant's latest finish tag per priority; entries
		// behind the virtual time are dropped.
		last map[tenantClass]float64
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

// Acquire takes a slot for tenant, waiting if all are busy. weight < 1
// means 1. It returns a release function to call exactly once when the work
// is done (extra calls do nothing), or ctx's error if ctx ends first.
// AcquireSlot is the same without allocating.
func (s *Scheduler) Acquire(ctx context.Context, tenant string, prio Priority, weight int) (release func(), err error) {
	sl, err := s.AcquireSlot(ctx, tenant, prio, weight)
	if err != nil {
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(sl.Release) }, nil
}

// Slot is an execution slot taken by AcquireSlot. The zero Slot holds
// nothing.
type Slot struct{ s *Scheduler }

// Release gives the slot back (to the next waiter that may take it). Call
// it once when the work is done; later calls on the same Slot do nothing.
// Not safe for concurrent use on one Slot.
func (sl *Slot) Release() {
	if s := sl.s; s != nil {
		sl.s = nil
		s.release()
	}
}

// AcquireSlot takes a slot for tenant, waiting if all are busy. weight < 1
// means 1. It returns the Slot to release when the work is done, or ctx's
// error if ctx ends first. A slot taken at once (not all busy) costs one
// lock and no allocation.
func (s *Scheduler) AcquireSlot(ctx context.Context, tenant string, prio Priority, weight int) (Slot, error) {
	if weight < 1 {
		weight = 1
	}
	p := prioIndex(prio)
	s.mu.Lock()
	if s.mu.inUse < s.limit(p) {
		s.mu.inUse++
		s.mu.Unlock()
		return Slot{s}, nil
	}
	if s.mu.last == nil {
		s.mu.last = make(map[tenantClass]float64)
	}
	key := tenantClass{tenant, Priority(p - 1)}
	tag := max(s.mu.vtime[p], s.mu.last[key]) + 1/float64(weight)
	s.mu.last[key] = tag
	s.mu.seq++
	w := &waiter{ch: make(chan struct{}), tag: tag, seq: s.mu.seq}
	heap.Push(&s.mu.queues[p], w)
	s.mu.Unlock()

	select {
	case <-w.ch:
		return Slot{s}, nil
	case <-ctx.Done():
		s.mu.Lock()
		if w.index >= 0 {
			heap.Remove(&s.mu.queues[p], w.index)
			s.mu.Unlock()
			return Slot{}, ctx.Err()
		}
		s.mu.Unlock()
		// Admitted just as ctx ended: hand the slot on.
		s.release()
		return Slot{}, ctx.Err()
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

// release passes the slot to the next waiter that may take it (one whose
// priority's limit the slot is within), or frees it.
func (s *Scheduler) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p := 2; p >= 0; p-- {
		q := &s.mu.queues[p]
		if q.Len() == 0 || s.mu.inUse > s.limit(p) {
			continue
		}
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
		close(w.ch) // the slot moves to w; inUse is unchanged
		return
	}
	s.mu.inUse--
}

// InUse returns the slots in use.
func (s *Scheduler) InUse() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.inUse
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
