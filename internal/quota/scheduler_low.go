package quota

import (
	"context"
	"runtime"
	"time"
)

// DefaultMaxYield is Scheduler.MaxYield's default.
const DefaultMaxYield = 20 * time.Millisecond

func (s *Scheduler) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// HigherActive reports whether HIGH or MEDIUM calls are queued or running.
func (s *Scheduler) HigherActive() bool { return s.higher.Load() > 0 }

// Busy reports, without locking, whether higher work is active: HIGH or
// MEDIUM calls queued or running, or the last one ended less than
// BusyLinger ago.
func (s *Scheduler) Busy() bool {
	if s.higher.Load() > 0 {
		return true
	}
	end := s.higherEndNs.Load()
	return s.BusyLinger > 0 && end != 0 && s.now().UnixNano()-end < int64(s.BusyLinger)
}

// lowBelowBoundLocked reports whether one more LOW call may run: always
// while no higher work is active, else while LOW holds fewer than
// LowBusyLimit slots.
func (s *Scheduler) lowBelowBoundLocked() bool {
	if s.LowBusyLimit <= 0 || s.mu.lowInUse < s.LowBusyLimit {
		return true
	}
	return !s.busyLocked()
}

// busyLocked reports whether higher work is active: queued or running, or
// ended less than BusyLinger ago.
func (s *Scheduler) busyLocked() bool {
	if s.higher.Load() > 0 {
		return true
	}
	return s.lingeringLocked()
}

func (s *Scheduler) lingeringLocked() bool {
	return s.BusyLinger > 0 && !s.mu.higherEnd.IsZero() && s.now().Sub(s.mu.higherEnd) < s.BusyLinger
}

// higherDone is called when a HIGH or MEDIUM call leaves (released or
// cancelled while queued).
func (s *Scheduler) higherDone() {
	if s.higher.Add(-1) != 0 || s.LowBusyLimit <= 0 {
		return
	}
	s.mu.Lock()
	s.mu.higherEnd = s.now()
	s.higherEndNs.Store(s.mu.higherEnd.UnixNano())
	s.dispatchLocked() // with no linger the bound is lifted now
	s.armLiftLocked()
	s.mu.Unlock()
}

// armLiftLocked makes sure LOW waiters held back only by the bound are
// admitted once the linger ends, even if no call comes or goes meanwhile
// (work-conserving: LOW alone gets every slot). The timer is a runtime
// timer, not a goroutine: it runs liftFire once, at most BusyLinger later.
func (s *Scheduler) armLiftLocked() {
	if s.mu.lift != nil || s.mu.queues[0].Len() == 0 || s.higher.Load() > 0 || !s.lingeringLocked() {
		return
	}
	d := s.BusyLinger - s.now().Sub(s.mu.higherEnd)
	s.mu.lift = time.AfterFunc(max(d, time.Millisecond), s.liftFire)
}

func (s *Scheduler) liftFire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.lift = nil
	s.dispatchLocked()
	s.armLiftLocked()
}

func (s *Scheduler) maxYield() time.Duration {
	if s.MaxYield > 0 {
		return s.MaxYield
	}
	return DefaultMaxYield
}

// Yield is a LOW call's safe point (between the rows of a scan): a cheap
// atomic load while no higher work is active. While higher work is queued
// or running, a LOW call beyond LowBusyLimit gives its slot up and queues
// for it again (so running LOW work shrinks to the bound without waiting
// for long calls to end), for at most MaxYield; one within the bound
// yields its processor (runtime.Gosched) so that a HIGH call's runnable
// goroutine need not wait for the scan's time slice to end. A call that
// is not LOW, or whose slot was released, returns at once.
func (sl *Slot) Yield(ctx context.Context) {
	s := sl.s
	if sl.p != 0 || s.higher.Load() == 0 {
		return
	}
	s.mu.Lock()
	if !sl.held.Load() {
		s.mu.Unlock()
		return
	}
	if s.LowBusyLimit <= 0 || s.mu.lowInUse <= s.LowBusyLimit {
		s.mu.Unlock()
		runtime.Gosched()
		return
	}
	sl.held.Store(false)
	s.freeLocked(0)
	s.dispatchLocked()
	s.mu.Unlock()
	// A ctx error leaves the slot released: the call ends at its next
	// ctx check, and Release does nothing.
	_ = s.take(ctx, sl, s.maxYield())
}
