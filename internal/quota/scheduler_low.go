package quota

import (
	"context"
	"runtime"
	"time"
)

// DefaultMaxYield is Scheduler.MaxYield's default.
const DefaultMaxYield = 20 * time.Millisecond

// DefaultMaxPause is Scheduler.MaxPause's default: far longer than a HIGH
// call's execution (tens of microseconds for a get), short enough that a
// paused scan does not hold its region for long if HIGH calls never stop.
const DefaultMaxPause = 2 * time.Millisecond

// DefaultPauseLinger is Scheduler.PauseLinger's default: longer than a
// get's response takes to be encoded and written plus a closed-loop
// client's turnaround to its next call (100–200 µs on one host), so that
// LOW work does not resume between a HIGH client's consecutive calls (on
// the loaded 2-core box 100 µs left prio_high's p99 at 1.45–1.51× its p99
// alone, 300 µs at 1.02–1.43×; docs/performance.md).
const DefaultPauseLinger = 300 * time.Microsecond

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

// LowBounded reports whether LOW calls are bounded while higher work is
// active (LowBusyLimit or LowWaitsWhileBusy): only then do their safe
// points (Slot.Yield) have anything to do.
func (s *Scheduler) LowBounded() bool { return s.LowWaitsWhileBusy || s.LowBusyLimit > 0 }

// lowBound is how many slots LOW may hold while higher work is active,
// when LowBounded.
func (s *Scheduler) lowBound() int {
	if s.LowWaitsWhileBusy {
		return 0
	}
	return s.LowBusyLimit
}

// lowBelowBoundLocked reports whether one more LOW call may run: always
// while no higher work is active, else while LOW holds fewer than its
// bound.
func (s *Scheduler) lowBelowBoundLocked() bool {
	if !s.LowBounded() || s.mu.lowInUse < s.lowBound() {
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

// higherDone is called when a HIGH or MEDIUM call (priority index p)
// leaves (released or cancelled while queued).
func (s *Scheduler) higherDone(p int) {
	if p == 2 && s.highs.Add(-1) == 0 {
		s.highEnded()
	}
	if s.higher.Add(-1) != 0 || !s.LowBounded() {
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
// or running, a LOW call beyond its bound (LowBusyLimit; none with
// LowWaitsWhileBusy) gives its slot up and queues
// for it again (so running LOW work shrinks to the bound without waiting
// for long calls to end), for at most MaxYield. One within the bound
// pauses while a HIGH call is queued or executing (at most MaxPause), so
// that the HIGH call has the processors to itself: a paused goroutine
// holds no P and no CPU, where one that only yielded its processor
// (runtime.Gosched, what it does for MEDIUM work) is back on it within
// microseconds, and on a niced thread each Gosched hands the P to another
// thread and back. A call that is not LOW, or whose slot was released,
// returns at once.
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
	if !s.LowBounded() || s.mu.lowInUse <= s.lowBound() {
		s.mu.Unlock()
		if !s.pauseWhileHigh(ctx) {
			runtime.Gosched()
		}
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

// pauseWhileHigh waits until no HIGH call is queued or running, at most
// MaxPause, or until ctx ends; it reports false at once when none is.
func (s *Scheduler) pauseWhileHigh(ctx context.Context) bool {
	if s.MaxPause < 0 || s.highs.Load() == 0 {
		return false
	}
	ch := make(chan struct{})
	if !s.calm.CompareAndSwap(nil, &ch) {
		p := s.calm.Load()
		if p == nil {
			return true // closed just now: HIGH ended
		}
		ch = *p
	}
	if s.highs.Load() == 0 {
		s.wakePaused() // HIGH ended before calm was set: nobody else closes it
		return true
	}
	d := s.MaxPause
	if d == 0 {
		d = DefaultMaxPause
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	case <-ctx.Done():
	}
	return true
}

// highEnded is called when the last HIGH call left: paused LOW calls go
// on after PauseLinger, unless another HIGH call came meanwhile (its end
// arms the timer again; MaxPause bounds the whole pause).
func (s *Scheduler) highEnded() {
	if s.calm.Load() == nil {
		return // nobody paused (a later pause sees no HIGH call)
	}
	d := s.PauseLinger
	if d == 0 {
		d = DefaultPauseLinger
	}
	if d < 0 {
		s.wakePaused()
		return
	}
	s.mu.Lock()
	if s.mu.unpause == nil {
		s.mu.unpause = time.AfterFunc(d, func() {
			if s.highs.Load() == 0 {
				s.wakePaused()
			}
		})
	} else {
		s.mu.unpause.Reset(d)
	}
	s.mu.Unlock()
}

// wakePaused ends the pause of the LOW calls waiting in pauseWhileHigh.
func (s *Scheduler) wakePaused() {
	if p := s.calm.Swap(nil); p != nil {
		close(*p)
	}
}
