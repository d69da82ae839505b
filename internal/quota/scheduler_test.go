package quota

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
)

func TestSchedulerWorkConserving(t *testing.T) {
	s := &Scheduler{Slots: 3}
	var rels []func()
	for i := 0; i < 3; i++ {
		rel, err := s.Acquire(context.Background(), "low", PriorityLow, 1)
		if err != nil {
			t.Fatal(err)
		}
		rels = append(rels, rel)
	}
	if s.InUse() != 3 || s.Waiting() != 0 {
		t.Fatalf("inUse %d waiting %d", s.InUse(), s.Waiting())
	}
	for _, r := range rels {
		r()
		r() // extra calls do nothing
	}
	if s.InUse() != 0 {
		t.Fatalf("inUse %d after release", s.InUse())
	}
}

// queueUp starts a waiter and returns once it is queued; its admission is
// reported on admitted.
func queueUp(t *testing.T, s *Scheduler, tenant string, p Priority, w int, admitted chan<- string, rels chan<- func()) {
	t.Helper()
	before := s.Waiting()
	go func() {
		rel, err := s.Acquire(context.Background(), tenant, p, w)
		if err != nil {
			panic(err)
		}
		admitted <- tenant
		rels <- rel
	}()
	for s.Waiting() == before {
		runtime.Gosched()
	}
}

// drain releases the held slot and then each admitted waiter's slot in
// turn, returning the admission order.
func drain(s *Scheduler, hold func(), n int, admitted <-chan string, rels <-chan func()) []string {
	var order []string
	hold()
	for i := 0; i < n; i++ {
		order = append(order, <-admitted)
		(<-rels)()
	}
	return order
}

func TestSchedulerPriority(t *testing.T) {
	s := &Scheduler{Slots: 1}
	hold, _ := s.Acquire(context.Background(), "x", PriorityMedium, 1)
	admitted, rels := make(chan string, 10), make(chan func(), 10)
	queueUp(t, s, "low1", PriorityLow, 100, admitted, rels)
	queueUp(t, s, "med1", PriorityMedium, 1, admitted, rels)
	queueUp(t, s, "high1", PriorityHigh, 1, admitted, rels)
	queueUp(t, s, "low2", PriorityLow, 1, admitted, rels)
	queueUp(t, s, "high2", PriorityHigh, 1, admitted, rels)
	got := fmt.Sprint(drain(s, hold, 5, admitted, rels))
	if want := "[high1 high2 med1 low1 low2]"; got != want {
		t.Fatalf("order %s, want %s", got, want)
	}
}

func TestSchedulerWeightedShare(t *testing.T) {
	s := &Scheduler{Slots: 1}
	hold, _ := s.Acquire(context.Background(), "x", PriorityMedium, 1)
	const n = 40
	admitted, rels := make(chan string, 2*n), make(chan func(), 2*n)
	for i := 0; i < n; i++ {
		queueUp(t, s, "A", PriorityMedium, 3, admitted, rels)
		queueUp(t, s, "B", PriorityMedium, 1, admitted, rels)
	}
	order := drain(s, hold, 2*n, admitted, rels)
	// While both are backlogged (the first 40 admissions), A gets 3 slots
	// for each of B's.
	a := 0
	for _, who := range order[:n] {
		if who == "A" {
			a++
		}
	}
	if a < 29 || a > 31 {
		t.Fatalf("A got %d of the first %d slots, want ~30 (3:1): %v", a, n, order[:n])
	}
}

func TestSchedulerCancel(t *testing.T) {
	s := &Scheduler{Slots: 1}
	hold, _ := s.Acquire(context.Background(), "x", PriorityMedium, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := s.Acquire(ctx, "y", PriorityHigh, 1); err == nil {
		t.Fatal("want ctx error")
	}
	if s.Waiting() != 0 {
		t.Fatalf("waiting %d after cancel", s.Waiting())
	}
	hold()
	if s.InUse() != 0 {
		t.Fatalf("inUse %d", s.InUse())
	}
}

// TestSchedulerHighReserve: a HIGH call takes a reserved slot at once
// instead of waiting behind running work, and a reserved slot freed is
// never handed to a lower priority.
func TestSchedulerHighReserve(t *testing.T) {
	s := &Scheduler{Slots: 1, HighReserve: 1}
	low, _ := s.Acquire(context.Background(), "etl", PriorityLow, 1)
	high, err := s.Acquire(context.Background(), "web", PriorityHigh, 1)
	if err != nil || s.InUse() != 2 {
		t.Fatalf("HIGH with a reserved slot free: %v, %d in use", err, s.InUse())
	}
	admitted, rels := make(chan string, 2), make(chan func(), 2)
	queueUp(t, s, "etl2", PriorityLow, 1, admitted, rels)
	high() // the reserved slot is freed, not given to etl2
	if s.Waiting() != 1 || s.InUse() != 1 {
		t.Fatalf("after HIGH released: %d waiting, %d in use; want etl2 still waiting", s.Waiting(), s.InUse())
	}
	low() // a regular slot: etl2 gets it
	if got := <-admitted; got != "etl2" {
		t.Fatalf("admitted %s", got)
	}
	(<-rels)()
	if s.InUse() != 0 {
		t.Fatalf("%d in use at the end", s.InUse())
	}
}
