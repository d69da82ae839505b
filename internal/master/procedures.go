package master

import (
	"sync"
	"sync/atomic"
	"time"
)

// procedures records the outcome of DDL operations by procedure id, for
// the client's GetProcedureResult polling. Weir runs DDL synchronously
// inside the RPC (the catalog change is one etcd transaction), so a
// procedure is finished by the time its id is returned; the table keeps
// outcomes for a while so late polls find them.
type procedures struct {
	next atomic.Uint64
	mu   struct {
		sync.Mutex
		done map[uint64]procResult
	}
}

type procResult struct {
	err      error
	finished time.Time
}

const procRetention = 10 * time.Minute

// finish records a completed procedure and returns its id.
func (p *procedures) finish(err error) uint64 {
	id := p.next.Add(1)
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mu.done == nil {
		p.mu.done = map[uint64]procResult{}
	}
	for k, v := range p.mu.done {
		if now.Sub(v.finished) > procRetention {
			delete(p.mu.done, k)
		}
	}
	p.mu.done[id] = procResult{err: err, finished: now}
	return id
}

// result returns a procedure's outcome; ok is false for an unknown id.
func (p *procedures) result(id uint64) (procResult, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.mu.done[id]
	return r, ok
}
