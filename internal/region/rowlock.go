package region

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// rowLocks is a striped table of reader/writer locks keyed by row hash, the
// equivalent of HBase's row locks: puts take a row shared, read-modify-write
// operations take it exclusively. Distinct rows may share a stripe; that
// costs some concurrency, never correctness, because multi-row callers lock
// stripes in index order.
type rowLocks struct {
	stripes [rowLockStripes]stripe
}

const rowLockStripes = 1024

type stripe struct {
	mu struct {
		sync.Mutex
		readers int           // holders in shared mode
		writer  bool          // held exclusively
		waiters int           // goroutines parked on wake
		wake    chan struct{} // closed (and replaced) to wake waiters
	}
}

func rowHash(row []byte) uint32 {
	// FNV-1a: cheap and good enough to spread rows over stripes.
	h := uint32(2166136261)
	for _, c := range row {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}

func stripeOf(row []byte) int { return int(rowHash(row) % rowLockStripes) }

// lockRequest is one stripe to lock and in which mode.
type lockRequest struct {
	stripe    int
	exclusive bool
}

// heldLocks releases what acquire took.
type heldLocks struct {
	l    *rowLocks
	reqs []lockRequest
}

// acquire locks the stripes of reqs (deduplicated; exclusive wins) in
// stripe order, waiting at most timeout in all. On failure nothing is held.
func (l *rowLocks) acquire(ctx context.Context, reqs []lockRequest, timeout time.Duration) (heldLocks, error) {
	slices.SortFunc(reqs, func(a, b lockRequest) int { return a.stripe - b.stripe })
	out := reqs[:0]
	for _, r := range reqs {
		if n := len(out); n > 0 && out[n-1].stripe == r.stripe {
			out[n-1].exclusive = out[n-1].exclusive || r.exclusive
			continue
		}
		out = append(out, r)
	}
	h := heldLocks{l: l, reqs: out}
	var deadline time.Time
	for i, r := range out {
		if err := l.stripes[r.stripe].lock(ctx, r.exclusive, &deadline, timeout); err != nil {
			heldLocks{l: l, reqs: out[:i]}.release()
			return heldLocks{}, err
		}
	}
	return h, nil
}

func (h heldLocks) release() {
	for _, r := range h.reqs {
		h.l.stripes[r.stripe].unlock(r.exclusive)
	}
}

func (s *stripe) lock(ctx context.Context, exclusive bool, deadline *time.Time, timeout time.Duration) error {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		s.mu.Lock()
		if !s.mu.writer && (!exclusive || s.mu.readers == 0) {
			if exclusive {
				s.mu.writer = true
			} else {
				s.mu.readers++
			}
			s.mu.Unlock()
			return nil
		}
		if s.mu.wake == nil {
			s.mu.wake = make(chan struct{})
		}
		wake := s.mu.wake
		s.mu.waiters++
		s.mu.Unlock()

		if timer == nil {
			if deadline.IsZero() {
				*deadline = time.Now().Add(timeout)
			}
			timer = time.NewTimer(time.Until(*deadline))
		}
		var err error
		select {
		case <-wake:
		case <-timer.C:
			err = fmt.Errorf("%w (waited %v)", ErrRowLockTimeout, timeout)
		case <-ctx.Done():
			err = fmt.Errorf("%w: %w", ErrRowLockTimeout, ctx.Err())
		}
		s.mu.Lock()
		s.mu.waiters--
		s.mu.Unlock()
		if err != nil {
			return err
		}
	}
}

func (s *stripe) unlock(exclusive bool) {
	s.mu.Lock()
	if exclusive {
		s.mu.writer = false
	} else {
		s.mu.readers--
	}
	if s.mu.waiters > 0 && s.mu.wake != nil {
		close(s.mu.wake)
		s.mu.wake = nil
	}
	s.mu.Unlock()
}
