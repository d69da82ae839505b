package quota

import (
	"context"
	"sync"
	"testing"
	"time"
)

// lingerClock is a settable clock for the linger, safe for concurrent use.
type lingerClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *lingerClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *lingerClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func mustSlot(t *testing.T, s *Scheduler, tenant string, p Priority) *Slot {
	t.Helper()
	sl, err := s.AcquireSlot(context.Background(), tenant, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	return sl
}

// acquireAsync queues an Acquire and returns once it waits; the slot is
// sent on the returned channel when admitted.
func acquireAsync(t *testing.T, s *Scheduler, tenant string, p Priority) <-chan *Slot {
	t.Helper()
	before := s.Waiting()
	ch := make(chan *Slot, 1)
	go func() {
		sl, err := s.AcquireSlot(context.Background(), tenant, p, 1)
		if err != nil {
			panic(err)
		}
		ch <- sl
	}()
	waitFor(t, func() bool { return s.Waiting() > before || len(ch) > 0 })
	return ch
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5 s")
		}
		time.Sleep(100 * time.Microsecond)
	}
}

func notAdmitted(t *testing.T, ch <-chan *Slot) {
	t.Helper()
	select {
	case <-ch:
		t.Fatal("admitted, want queued")
	default:
	}
}

// TestSchedulerLowBoundedWhileHigherActive: with slots free, a second LOW
// call waits while a HIGH (or MEDIUM) call runs, and is admitted the
// moment the higher work ends (BusyLinger 0).
func TestSchedulerLowBoundedWhileHigherActive(t *testing.T) {
	for _, hp := range []Priority{PriorityHigh, PriorityMedium} {
		s := &Scheduler{Slots: 4, LowBusyLimit: 1}
		high := mustSlot(t, s, "web", hp)
		low1 := mustSlot(t, s, "etl", PriorityLow)
		ch := acquireAsync(t, s, "etl", PriorityLow)
		notAdmitted(t, ch)
		if s.InUse() != 2 || s.LowInUse() != 1 || s.Waiting() != 1 {
			t.Fatalf("%v active: %d in use, %d LOW, %d waiting; want 2, 1, 1", hp, s.InUse(), s.LowInUse(), s.Waiting())
		}
		// More higher work is still admitted at once.
		mustSlot(t, s, "web", hp).Release()
		high.Release()
		low2 := <-ch
		if s.LowInUse() != 2 {
			t.Fatalf("after %v ended: %d LOW in use, want 2", hp, s.LowInUse())
		}
		low1.Release()
		low2.Release()
		if s.InUse() != 0 || s.LowInUse() != 0 || s.HigherActive() {
			t.Fatalf("at the end: %d in use, %d LOW, higher active %v", s.InUse(), s.LowInUse(), s.HigherActive())
		}
	}
}

// TestSchedulerLowWaitsWhileBusy: with LowWaitsWhileBusy, no LOW call is
// admitted while higher work runs or lingers, though slots are free; a
// running LOW call gives its slot up at its safe point and gets it back
// once the higher work ends; LOW alone still takes every slot.
func TestSchedulerLowWaitsWhileBusy(t *testing.T) {
	clk := &lingerClock{t: time.Unix(1000, 0)}
	s := &Scheduler{Slots: 4, LowWaitsWhileBusy: true, BusyLinger: 20 * time.Millisecond, MaxYield: time.Minute, Now: clk.Now}
	if !s.LowBounded() {
		t.Fatal("LowBounded = false with LowWaitsWhileBusy")
	}
	running := mustSlot(t, s, "etl", PriorityLow) // no higher work yet
	high := mustSlot(t, s, "web", PriorityHigh)
	ch := acquireAsync(t, s, "etl", PriorityLow)
	notAdmitted(t, ch)
	yielded := make(chan struct{})
	go func() {
		running.Yield(context.Background())
		close(yielded)
	}()
	waitFor(t, func() bool { return s.LowInUse() == 0 && s.Waiting() == 2 })
	high.Release()
	// Lingering: still no LOW.
	notAdmitted(t, ch)
	select {
	case <-yielded:
		t.Fatal("the yielding LOW call got its slot back within the linger")
	default:
	}
	clk.Advance(20 * time.Millisecond)
	low := <-ch
	<-yielded
	if s.LowInUse() != 2 {
		t.Fatalf("after the linger: %d LOW in use, want 2", s.LowInUse())
	}
	low.Release()
	running.Release()
	var lows []*Slot
	for range 4 {
		lows = append(lows, mustSlot(t, s, "etl", PriorityLow))
	}
	for _, l := range lows {
		l.Release()
	}
}

// TestSchedulerLowAloneTakesAllSlots: work-conserving — with no higher
// work seen (or seen longer than BusyLinger ago), LOW takes every slot.
func TestSchedulerLowAloneTakesAllSlots(t *testing.T) {
	clk := &lingerClock{t: time.Unix(1000, 0)}
	s := &Scheduler{Slots: 4, LowBusyLimit: 1, BusyLinger: 50 * time.Millisecond, Now: clk.Now}
	var lows []*Slot
	for range 4 {
		lows = append(lows, mustSlot(t, s, "etl", PriorityLow))
	}
	ch := acquireAsync(t, s, "etl", PriorityLow)
	notAdmitted(t, ch) // Slots bound it, as before
	lows[0].Release()
	lows[0] = <-ch
	for _, l := range lows {
		l.Release()
	}
	// A HIGH call 60 ms ago no longer bounds LOW.
	mustSlot(t, s, "web", PriorityHigh).Release()
	clk.Advance(60 * time.Millisecond)
	for i := range lows {
		lows[i] = mustSlot(t, s, "etl", PriorityLow)
	}
	if s.LowInUse() != 4 {
		t.Fatalf("%d LOW in use, want 4", s.LowInUse())
	}
}

// TestSchedulerLingerThenLift: within BusyLinger of the last HIGH call LOW
// stays bounded; once it has passed, a queued LOW call is admitted without
// any other call coming or going.
func TestSchedulerLingerThenLift(t *testing.T) {
	clk := &lingerClock{t: time.Unix(1000, 0)}
	s := &Scheduler{Slots: 4, LowBusyLimit: 1, BusyLinger: 20 * time.Millisecond, Now: clk.Now}
	mustSlot(t, s, "web", PriorityHigh).Release()
	low1 := mustSlot(t, s, "etl", PriorityLow)
	ch := acquireAsync(t, s, "etl", PriorityLow)
	time.Sleep(40 * time.Millisecond) // the lift timer fires, but the fake clock has not moved
	notAdmitted(t, ch)
	clk.Advance(20 * time.Millisecond)
	low2 := <-ch
	low1.Release()
	low2.Release()
}

// TestSlotYieldShrinksLowToBound: LOW calls that took every slot while HIGH
// was idle give slots up at their safe points once HIGH arrives, down to
// the bound; the one within the bound keeps running; all get their slots
// back when HIGH ends.
func TestSlotYieldShrinksLowToBound(t *testing.T) {
	s := &Scheduler{Slots: 3, HighReserve: 1, LowBusyLimit: 1, MaxYield: time.Minute}
	var lows []*Slot
	for range 3 {
		lows = append(lows, mustSlot(t, s, "etl", PriorityLow))
	}
	lows[0].Yield(context.Background()) // no HIGH: returns at once
	high := mustSlot(t, s, "web", PriorityHigh)
	done := make(chan int, 2)
	for i := range 2 {
		go func() {
			lows[i].Yield(context.Background())
			done <- i
		}()
	}
	waitFor(t, func() bool { return s.Waiting() == 2 })
	if s.LowInUse() != 1 {
		t.Fatalf("%d LOW in use while HIGH runs, want 1", s.LowInUse())
	}
	lows[2].Yield(context.Background()) // within the bound: pauses at most MaxPause, then goes on
	if len(done) != 0 {
		t.Fatal("a yield returned while HIGH runs")
	}
	high.Release()
	<-done
	<-done
	if s.LowInUse() != 3 || s.InUse() != 3 {
		t.Fatalf("after HIGH: %d LOW, %d in use; want 3, 3", s.LowInUse(), s.InUse())
	}
	for _, l := range lows {
		l.Release()
	}
	if s.InUse() != 0 {
		t.Fatalf("%d in use at the end", s.InUse())
	}
}

// TestSlotYieldPatienceAndCancel: a yielding LOW call goes on after
// MaxYield even while HIGH runs (holding its slot again, over the bound),
// and one whose ctx ends gives its slot up for good.
func TestSlotYieldPatienceAndCancel(t *testing.T) {
	s := &Scheduler{Slots: 3, HighReserve: 1, LowBusyLimit: 1, MaxYield: 5 * time.Millisecond}
	a, b := mustSlot(t, s, "etl", PriorityLow), mustSlot(t, s, "etl", PriorityLow)
	high := mustSlot(t, s, "web", PriorityHigh)
	a.Yield(context.Background())
	if s.LowInUse() != 2 || s.Waiting() != 0 {
		t.Fatalf("after an impatient yield: %d LOW, %d waiting; want 2, 0", s.LowInUse(), s.Waiting())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b.Yield(ctx)
	if s.LowInUse() != 1 || s.Waiting() != 0 {
		t.Fatalf("after a cancelled yield: %d LOW, %d waiting; want 1, 0", s.LowInUse(), s.Waiting())
	}
	b.Release() // does nothing
	a.Release()
	high.Release()
	if s.InUse() != 0 || s.LowInUse() != 0 {
		t.Fatalf("at the end: %d in use, %d LOW", s.InUse(), s.LowInUse())
	}
}

// TestSlotYieldPausesWhileHigh: a LOW call within the bound pauses at its
// safe point while a HIGH call holds a slot, until PauseLinger after the
// HIGH call left; not for MEDIUM work, not beyond MaxPause, and never with
// a negative MaxPause.
func TestSlotYieldPausesWhileHigh(t *testing.T) {
	s := &Scheduler{Slots: 3, HighReserve: 1, LowBusyLimit: 2, MaxPause: time.Minute, PauseLinger: time.Millisecond}
	low := mustSlot(t, s, "etl", PriorityLow)
	defer low.Release()

	med := mustSlot(t, s, "app", PriorityMedium)
	low.Yield(context.Background()) // MEDIUM only: no pause
	med.Release()

	high := mustSlot(t, s, "web", PriorityHigh)
	done := make(chan time.Time, 1)
	go func() {
		low.Yield(context.Background())
		done <- time.Now()
	}()
	waitFor(t, func() bool { return s.calm.Load() != nil }) // paused
	time.Sleep(5 * time.Millisecond)
	if len(done) != 0 {
		t.Fatal("the LOW call went on while HIGH held its slot")
	}
	left := time.Now()
	high.Release()
	if d := (<-done).Sub(left); d < time.Millisecond {
		t.Errorf("the LOW call went on %v after HIGH left, want at least the 1ms linger", d)
	}

	// MaxPause bounds the pause while HIGH stays.
	s2 := &Scheduler{Slots: 3, HighReserve: 1, LowBusyLimit: 2, MaxPause: 3 * time.Millisecond}
	low2 := mustSlot(t, s2, "etl", PriorityLow)
	high2 := mustSlot(t, s2, "web", PriorityHigh)
	start := time.Now()
	low2.Yield(context.Background())
	if d := time.Since(start); d < 3*time.Millisecond {
		t.Errorf("pause of %v, want MaxPause (3ms)", d)
	}
	s2.MaxPause = -1
	start = time.Now()
	low2.Yield(context.Background())
	if d := time.Since(start); d > time.Second {
		t.Errorf("negative MaxPause: paused %v", d)
	}
	high2.Release()
	low2.Release()
}
