package hbaserpc

import (
	"errors"
	"net"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// frameWriter sends the frames that many goroutines produce for one
// connection, coalescing them into few write syscalls, and without a
// goroutine hand-off in the common case.
//
// Why: on loopback (and on any host where client and server share cores) a
// write syscall costs 10–20 µs of CPU, most of it the kernel delivering the
// segment and waking the receiver, and a hand-off to a writer goroutine
// costs a wake-up of its own. With one write and one hand-off per response,
// they were a fifth of the region server's CPU on YCSB workload C.
//
// How: a goroutine with a frame appends it to the pending buffer. If no
// goroutine holds the flusher role, it takes it and writes the pending bytes
// itself with a non-blocking write, then again for whatever other
// goroutines appended meanwhile, so frames that become ready while a write
// is in the kernel leave together in the next one. A write that cannot
// complete at once (the socket's send buffer is full: a slow peer) hands the
// rest, and the role, to the background goroutine (run), which blocks in
// write with a deadline. So no caller ever blocks on the peer, and the
// bytes leave in the order the frames were appended.
type frameWriter struct {
	nc      net.Conn
	raw     syscall.RawConn // nil: every flush goes to run (e.g. net.Pipe in tests)
	timeout time.Duration   // bounds each blocking write in run; 0 means none
	// written is called (without mu held) with the number of frames that
	// have been written, or dropped after an error; it may be nil.
	written func(frames int)
	// failed is called once, without mu held, with the first write error.
	failed func(err error)

	kick chan struct{} // capacity 1: run has work (a hand-off, or close)

	// try is the state of the flusher's non-blocking write attempt; only
	// the goroutine holding the flusher role touches it.
	try struct {
		fn  func(fd uintptr) bool // w.writeFD, bound once
		b   []byte
		n   int
		err error
	}

	mu struct {
		sync.Mutex
		buf    []byte // appended frames not yet taken by a flusher
		frames int    // frames in buf
		spare  []byte // an empty buffer to swap in for buf
		busy   bool   // a goroutine holds the flusher role
		// handoff is the unwritten rest of a batch a non-blocking flush
		// could not finish; handoffFrames its frame count. run writes it
		// before anything in buf.
		handoff       []byte
		handoffFrames int
		// handoffBuf is the whole buffer handoff ends, reused once
		// written (reusing handoff would lose what was written of it).
		handoffBuf []byte
		err        error // the first write error; later frames are dropped
		closing    bool  // close was called: run exits once idle
	}
}

// maxInlineRounds bounds how many batches one caller writes before it hands
// the flusher role to run, so that a goroutine with other work is not kept
// writing for others under a steady stream of frames.
const maxInlineRounds = 4

// maxSpareBuffer keeps a buffer that a burst grew larger than this from
// being kept for reuse. It is sized for scans: 16 callers' responses of
// 100 rows of 1 KB pending at once are about 2.5 MB, and with a 1 MiB
// bound the buffer was allocated afresh for almost every batch (three
// times the CPU of a loopback scan call in BenchmarkRPCScan100). A
// connection keeps at most two such buffers.
const maxSpareBuffer = 4 << 20

// errWriterClosed is the failure of frames written after close.
var errWriterClosed = errors.New("hbaserpc: connection writer closed")

func newFrameWriter(nc net.Conn, timeout time.Duration, written func(int), failed func(error)) *frameWriter {
	w := &frameWriter{nc: nc, timeout: timeout, written: written, failed: failed, kick: make(chan struct{}, 1)}
	if sc, ok := nc.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			w.raw = raw
		}
	}
	w.try.fn = w.writeFD
	return w
}

// write queues frame (copied; the caller keeps it) and, unless another
// goroutine is flushing, writes it and whatever else is pending. It never
// blocks on the peer.
func (w *frameWriter) write(frame []byte) { w.writeParts(frame, nil, false) }

// writeParts is write of the frame head followed by tail (a response's
// cellblock), which spares copying the tail into the head first. alone
// skips the yield that lets other ready frames join the first write
// (Call.WriteAlone).
func (w *frameWriter) writeParts(head, tail []byte, alone bool) {
	w.mu.Lock()
	if w.mu.err != nil {
		w.mu.Unlock()
		w.done(1)
		return
	}
	if n := len(w.mu.buf) + len(head) + len(tail); n > cap(w.mu.buf) {
		// Double: append grows a big slice by a quarter, which for scan
		// responses of 100 KB or more meant several copies per frame.
		// Below maxSpareBuffer, so that the buffer is kept for reuse.
		nb := make([]byte, len(w.mu.buf), min(max(2*n, writeBufferSize), max(n, maxSpareBuffer)))
		copy(nb, w.mu.buf)
		w.mu.buf = nb
	}
	w.mu.buf = append(w.mu.buf, head...)
	w.mu.buf = append(w.mu.buf, tail...)
	w.mu.frames++
	if w.mu.busy {
		w.mu.Unlock()
		return
	}
	w.mu.busy = true
	// Let the goroutines that are runnable now (callers woken by the same
	// read, calls finishing on this connection) append their frames before
	// the first write, so that they leave in it. With nothing else to run
	// this returns at once.
	if !alone {
		w.mu.Unlock()
		runtime.Gosched()
		w.mu.Lock()
	}
	w.flushInlineLocked()
}

// flushInlineLocked writes pending batches with non-blocking writes while
// the caller holds the flusher role. Called with mu held; returns with it
// released, having either given up the role (nothing pending) or passed it
// to run.
func (w *frameWriter) flushInlineLocked() {
	for round := 0; ; round++ {
		b, n := w.takeLocked()
		if n == 0 {
			w.mu.busy = false
			w.mu.Unlock()
			return
		}
		if w.raw == nil || round == maxInlineRounds {
			w.handOffLocked(b, n)
			return
		}
		w.mu.Unlock()
		m, err := w.tryWrite(b)
		if err != nil {
			w.mu.Lock()
			w.fail(err, n) // releases mu
			return
		}
		w.mu.Lock()
		if m < len(b) {
			w.mu.handoffBuf = b
			w.handOffLocked(b[m:], n)
			return
		}
		w.recycleLocked(b)
		w.mu.Unlock()
		w.done(n)
		w.mu.Lock()
	}
}

// takeLocked takes the pending frames, swapping in the spare buffer.
func (w *frameWriter) takeLocked() ([]byte, int) {
	if w.mu.frames == 0 {
		return nil, 0
	}
	b, n := w.mu.buf, w.mu.frames
	w.mu.buf, w.mu.frames = w.mu.spare, 0
	w.mu.spare = nil
	return b, n
}

// recycleLocked keeps a written batch's buffer as the spare.
func (w *frameWriter) recycleLocked(b []byte) {
	if cap(b) <= maxSpareBuffer && w.mu.spare == nil {
		w.mu.spare = b[:0]
	}
}

// handOffLocked passes the unwritten bytes b (n frames) and the flusher
// role to run, and releases mu. After close there is no run to take them:
// they are dropped.
func (w *frameWriter) handOffLocked(b []byte, n int) {
	if w.mu.closing {
		w.fail(errWriterClosed, n)
		return
	}
	w.mu.handoff, w.mu.handoffFrames = b, n
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default: // already kicked
	}
}

// tryWrite makes non-blocking write attempts until b is written or the
// socket would block; it returns the bytes written. Only the flusher calls
// it, so the attempt's state can live in w (a closure would be allocated
// per write).
func (w *frameWriter) tryWrite(b []byte) (int, error) {
	w.try.b, w.try.n, w.try.err = b, 0, nil
	err := w.raw.Write(w.try.fn)
	n, werr := w.try.n, w.try.err
	w.try.b, w.try.err = nil, nil
	if werr == nil {
		werr = err
	}
	return n, werr
}

// writeFD is tryWrite's callback for RawConn.Write: it writes until done
// or the socket is full, and always returns true (never wait for the
// socket: run does that).
func (w *frameWriter) writeFD(fd uintptr) bool {
	for w.try.n < len(w.try.b) {
		n, err := syscall.Write(int(fd), w.try.b[w.try.n:])
		if n > 0 {
			w.try.n += n
		}
		switch {
		case err == nil:
		case errors.Is(err, syscall.EINTR):
		case errors.Is(err, syscall.EAGAIN):
			return true
		default:
			w.try.err = err
			return true
		}
	}
	return true
}

// done reports n frames written or dropped.
func (w *frameWriter) done(n int) {
	if w.written != nil && n > 0 {
		w.written(n)
	}
}

// fail records err, drops the pending frames and the n in the failed batch,
// and gives up the flusher role. Called with mu held; releases it.
func (w *frameWriter) fail(err error, n int) {
	first := w.mu.err == nil
	if first {
		w.mu.err = err
	}
	_, pending := w.takeLocked()
	n += pending + w.mu.handoffFrames
	w.mu.handoff, w.mu.handoffFrames, w.mu.handoffBuf = nil, 0, nil
	w.mu.busy = false
	w.mu.Unlock()
	w.done(n)
	if first && w.failed != nil {
		w.failed(err)
	}
}

// run is the background writer: it finishes what non-blocking flushes
// handed to it, blocking in write, until close. Its owner starts it once and
// waits for it to return after calling close.
func (w *frameWriter) run() {
	for range w.kick {
		w.mu.Lock()
		if w.mu.handoffFrames == 0 {
			closing := w.mu.closing
			w.mu.Unlock()
			if closing {
				return
			}
			continue
		}
		b, n := w.mu.handoff, w.mu.handoffFrames
		whole := w.mu.handoffBuf
		if whole == nil {
			whole = b
		}
		w.mu.handoff, w.mu.handoffFrames, w.mu.handoffBuf = nil, 0, nil
		for n > 0 {
			w.mu.Unlock()
			if err := w.writeBlocking(b); err != nil {
				w.mu.Lock()
				w.fail(err, n)
				w.mu.Lock()
				break
			}
			w.mu.Lock()
			w.recycleLocked(whole)
			w.mu.Unlock()
			w.done(n)
			w.mu.Lock()
			b, n = w.takeLocked()
			whole = b
		}
		w.mu.busy = false
		closing := w.mu.closing
		w.mu.Unlock()
		if closing {
			return
		}
	}
}

// writeBlocking writes all of b, bounded by the write timeout. It clears
// the deadline after: a deadline left to expire would fail the next
// non-blocking write.
func (w *frameWriter) writeBlocking(b []byte) error {
	if w.timeout <= 0 {
		_, err := w.nc.Write(b)
		return err
	}
	_ = w.nc.SetWriteDeadline(time.Now().Add(w.timeout))
	_, err := w.nc.Write(b)
	_ = w.nc.SetWriteDeadline(time.Time{})
	return err
}

// queued returns the number of frames waiting to be written.
func (w *frameWriter) queued() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.mu.frames + w.mu.handoffFrames
}

// close makes run return once it has written what was handed to it. Frames
// written after close are dropped. It does not wait: the owner waits for
// run.
func (w *frameWriter) close() {
	w.mu.Lock()
	w.mu.closing = true
	if w.mu.err == nil {
		w.mu.err = errWriterClosed
	}
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
}
