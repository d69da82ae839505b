package hbaserpc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// tcpPair returns the two ends of a loopback TCP connection.
func tcpPair(t *testing.T) (a, b net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	a, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	b = <-accepted
	if b == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	return a, b
}

// startWriter starts w's background goroutine and stops it at cleanup.
func startWriter(t *testing.T, w *frameWriter) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.run()
	}()
	t.Cleanup(func() {
		w.close()
		<-done
	})
}

// testFrame is a frame of size bytes: writer id, sequence number, filler.
func testFrame(writer, seq, size int) []byte {
	f := make([]byte, size)
	binary.BigEndian.PutUint32(f[0:], uint32(writer))
	binary.BigEndian.PutUint32(f[4:], uint32(seq))
	for i := 8; i < size; i++ {
		f[i] = byte(writer + seq + i)
	}
	return f
}

// readFrames reads n frames of size bytes and checks that each writer's
// frames arrive whole and in its order.
func readFrames(r io.Reader, writers, n, size int) error {
	next := make([]int, writers)
	buf := make([]byte, size)
	for range n {
		if _, err := io.ReadFull(r, buf); err != nil {
			return err
		}
		wr := int(binary.BigEndian.Uint32(buf[0:]))
		seq := int(binary.BigEndian.Uint32(buf[4:]))
		if wr >= writers || seq != next[wr] {
			return fmt.Errorf("frame from writer %d seq %d; want seq %d", wr, seq, next[wr])
		}
		if !bytes.Equal(buf, testFrame(wr, seq, size)) {
			return fmt.Errorf("frame from writer %d seq %d is corrupt", wr, seq)
		}
		next[wr]++
	}
	return nil
}

// Frames written concurrently all arrive, whole, each writer's in order,
// and each is reported written once — whether callers flush them
// themselves (TCP) or only the background goroutine writes (net.Pipe has
// no raw conn), and whether the peer keeps up or lags far enough behind
// (frames bigger than the socket buffers) that writes hand off to the
// background goroutine.
func TestFrameWriterConcurrent(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pipe      bool
		size      int
		perWriter int
		readDelay time.Duration
		alone     bool // every other writer's frames skip the batching yield
		tail      bool // frames go as a 100-byte head and a tail (writeParts)
	}{
		{name: "tcp/tail", size: 64 << 10, perWriter: 20, tail: true},
		{name: "tcp/tail-alone", size: 64 << 10, perWriter: 20, tail: true, alone: true},
		{name: "tcp/tail-slow-peer", size: 256 << 10, perWriter: 3, readDelay: 200 * time.Millisecond, tail: true},
		{name: "pipe/tail", pipe: true, size: 64 << 10, perWriter: 5, tail: true},
		{name: "tcp/small", size: 64, perWriter: 40},
		{name: "tcp/small-alone", size: 64, perWriter: 40, alone: true},
		{name: "tcp/large-slow-peer-alone", size: 256 << 10, perWriter: 3, readDelay: 200 * time.Millisecond, alone: true},
		{name: "tcp/large-slow-peer", size: 256 << 10, perWriter: 3, readDelay: 200 * time.Millisecond},
		{name: "pipe/small", pipe: true, size: 64, perWriter: 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a, b net.Conn
			if tc.pipe {
				a, b = net.Pipe()
				t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
			} else {
				a, b = tcpPair(t)
			}
			const writers = 8
			perWriter := tc.perWriter
			var written atomic.Int64
			w := newFrameWriter(a, 10*time.Second, func(n int) { written.Add(int64(n)) },
				func(err error) { t.Errorf("write failed: %v", err) })
			if tc.pipe != (w.raw == nil) {
				t.Fatalf("raw conn: %v; want it only for TCP", w.raw != nil)
			}
			startWriter(t, w)
			readErr := make(chan error, 1)
			go func() {
				time.Sleep(tc.readDelay)
				readErr <- readFrames(b, writers, writers*perWriter, tc.size)
			}()
			var wg sync.WaitGroup
			for i := range writers {
				wg.Go(func() {
					for seq := range perWriter {
						f := testFrame(i, seq, tc.size)
						if !tc.tail {
							w.writeParts(f, nil, tc.alone && i%2 == 1)
							continue
						}
						w.writeParts(f[:100], f[100:], tc.alone && i%2 == 1)
						// The caller owns the frame again (a response's
						// buffers go back to their pool): the writer must
						// have sent or copied it.
						for j := range f {
							f[j] = 0xEE
						}
					}
				})
			}
			wg.Wait()
			if err := <-readErr; err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(10 * time.Second)
			for written.Load() != int64(writers*perWriter) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if got := written.Load(); got != int64(writers*perWriter) {
				t.Fatalf("%d frames reported written; want %d", got, writers*perWriter)
			}
			if q := w.queued(); q != 0 {
				t.Fatalf("%d frames still queued", q)
			}
		})
	}
}

// A peer that reads nothing never blocks a writer: once the socket is full
// the background goroutine holds the rest.
func TestFrameWriterNeverBlocksCaller(t *testing.T) {
	a, b := tcpPair(t)
	w := newFrameWriter(a, 10*time.Second, nil, func(error) {})
	startWriter(t, w)
	const frames, size = 32, 256 << 10 // 8 MiB: far more than the socket buffers
	done := make(chan struct{})
	go func() {
		defer close(done)
		for seq := range frames {
			w.write(testFrame(0, seq, size))
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("write blocked on a peer that does not read")
	}
	if q := w.queued(); q == 0 {
		t.Fatal("nothing queued although the peer read nothing")
	}
	if err := readFrames(b, 1, frames, size); err != nil {
		t.Fatal(err)
	}
}

// After a write error every frame, pending or later, is reported (dropped)
// and failed is called once.
// The first failing frame is a plain one or one with a large tail.
func TestFrameWriterError(t *testing.T) {
	for _, tail := range []bool{false, true} {
		t.Run(fmt.Sprintf("tail=%v", tail), func(t *testing.T) {
			a, _ := tcpPair(t)
			var written, failures atomic.Int64
			var failErr atomic.Value
			w := newFrameWriter(a, time.Second, func(n int) { written.Add(int64(n)) }, func(err error) {
				failures.Add(1)
				failErr.Store(err)
			})
			startWriter(t, w)
			_ = a.Close()
			if tail {
				f := testFrame(0, 0, 64<<10)
				w.writeParts(f[:100], f[100:], false)
			}
			for seq := range 10 {
				w.write(testFrame(0, seq, 64))
			}
			want := int64(10)
			if tail {
				want++
			}
			if got := written.Load(); got != want {
				t.Fatalf("%d frames reported; want all %d", got, want)
			}
			if got := failures.Load(); got != 1 {
				t.Fatalf("failed called %d times; want 1", got)
			}
			if err, _ := failErr.Load().(error); !errors.Is(err, net.ErrClosed) {
				t.Fatalf("failed with %v; want net.ErrClosed", err)
			}
		})
	}
}
