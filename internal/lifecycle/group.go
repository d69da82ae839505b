// Package lifecycle ties background goroutines to their owner: a Group
// starts them with a context that Stop cancels, refuses new ones once
// stopping began, and waits for all of them (etcd's GoAttach pattern).
package lifecycle

import (
	"context"
	"sync"
	"time"
)

// Group owns a set of goroutines. The zero value is not usable; call New.
type Group struct {
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex // guards stopped against Go racing Stop
	stop   bool
	wg     sync.WaitGroup
}

// New returns a group whose goroutines' context derives from parent.
func New(parent context.Context) *Group {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	return &Group{ctx: ctx, cancel: cancel}
}

// Go runs fn in a goroutine with the group's context. It reports false,
// and runs nothing, once Stop has been called.
func (g *Group) Go(fn func(ctx context.Context)) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stop {
		return false
	}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		fn(g.ctx)
	}()
	return true
}

// Context is cancelled when Stop is called.
func (g *Group) Context() context.Context { return g.ctx }

// Stop cancels the group's context and waits for its goroutines.
// Idempotent.
func (g *Group) Stop() {
	g.mu.Lock()
	g.stop = true
	g.mu.Unlock()
	g.cancel()
	g.wg.Wait()
}

// Sleep waits for d or until ctx ends, whichever comes first.
func Sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
