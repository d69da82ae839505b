package regionserver

import (
	"fmt"
	"runtime"
	"sync"
)

// lowNice is the nice value of the threads that run LOW-priority reads:
// the lowest CPU weight Linux gives (19: about 1.5% of a nice-0 thread's
// share when both want the CPU, all of it when nothing else does).
const lowNice = 19

// lowPool runs LOW-priority reads on their own OS threads at nice lowNice
// in the SCHED_IDLE policy (Linux; setThreadNice), so that the operating
// system, not only the slot scheduler, gives way to HIGH work: a running
// LOW scan keeps its processor in Go's scheduler (slots cannot preempt),
// but its thread loses the CPU at once to any other thread that wakes
// (the server's threads serving HIGH calls, and clients sharing the
// machine). Work-conserving: such a thread runs at full speed while
// nothing else wants the CPU.
//
// Workers start on demand, up to max at once, and stay (idle, parked)
// until close; each locks its goroutine to its thread and never unlocks,
// so the niced thread ends with it and never serves other goroutines.
type lowPool struct {
	max  int
	jobs chan *lowJob
	stop chan struct{} // closed by close

	mu      sync.Mutex
	workers int
	closed  bool
	wg      sync.WaitGroup
}

type lowJob struct {
	fn     func()
	done   chan struct{}
	panicV any
}

func newLowPool(max int) *lowPool {
	return &lowPool{max: max, jobs: make(chan *lowJob), stop: make(chan struct{})}
}

// run runs fn on a niced worker thread and returns when it has; fn's
// panic is re-raised here, on the caller's goroutine (whose recover turns
// it into an error reply). Without a free worker and at max, it waits for
// one. After close, or where threads cannot be niced, fn runs here.
func (p *lowPool) run(fn func()) {
	if p == nil || !niceSupported {
		fn()
		return
	}
	j := &lowJob{fn: fn, done: make(chan struct{})}
	select {
	case p.jobs <- j:
	default:
		if !p.grow() {
			fn()
			return
		}
		select {
		case p.jobs <- j:
		case <-p.stop:
			fn()
			return
		}
	}
	<-j.done
	if j.panicV != nil {
		panic(fmt.Sprintf("%v (on a LOW-priority worker)", j.panicV))
	}
}

// grow starts a worker if fewer than max run; it reports false once
// closed.
func (p *lowPool) grow() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	if p.workers < p.max {
		p.workers++
		p.wg.Add(1)
		go p.worker()
	}
	return true
}

func (p *lowPool) worker() {
	defer p.wg.Done()
	runtime.LockOSThread() // never unlocked: the niced thread exits with us
	setThreadNice(lowNice)
	for {
		select {
		case j := <-p.jobs:
			j.run()
		case <-p.stop:
			return
		}
	}
}

func (j *lowJob) run() {
	defer close(j.done)
	defer func() { j.panicV = recover() }()
	j.fn()
}

// close stops the workers once the calls running on them have returned.
func (p *lowPool) close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.mu.Unlock()
	close(p.stop)
	p.wg.Wait()
}
