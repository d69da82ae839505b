package hbaserpc

import (
	"context"
	"testing"
	"time"
)

func TestCallContextRounding(t *testing.T) {
	parent, stop := context.WithCancel(context.Background())
	defer stop()
	var d deadlineCtxs
	defer d.release()
	base := time.Now()
	for _, tc := range []struct {
		timeout time.Duration
		shared  bool
	}{
		{timeout: time.Millisecond},
		{timeout: 63 * time.Millisecond},
		{timeout: 64 * time.Millisecond, shared: true},
		{timeout: 10 * time.Second, shared: true},
		{timeout: 60 * time.Second, shared: true},
	} {
		ctx, dl, cancel := d.callContext(parent, base, tc.timeout)
		if (cancel == nil) != tc.shared {
			t.Fatalf("%v: shared %v; want %v", tc.timeout, cancel == nil, tc.shared)
		}
		if cancel != nil {
			cancel()
		}
		if got, _ := ctx.Deadline(); !got.Equal(dl) {
			t.Fatalf("%v: ctx deadline %v, call deadline %v", tc.timeout, got, dl)
		}
		exact := base.Add(tc.timeout)
		if late := dl.Sub(exact); late < 0 || (late > 0 && late >= tc.timeout/64) {
			t.Fatalf("%v: deadline late by %v; want [0, %v)", tc.timeout, late, tc.timeout/64)
		}
	}
	// Calls a moment apart with the same timeout share a context; the
	// entry for 10 s survived the others above (the cache holds 4).
	a, dlA, _ := d.callContext(parent, base, 10*time.Second)
	b, dlB, _ := d.callContext(parent, base.Add(time.Microsecond), 10*time.Second)
	if (a == b) != dlA.Equal(dlB) || (a != b && dlB.Sub(dlA) > 200*time.Millisecond) {
		t.Fatalf("calls a microsecond apart with a 10s timeout: deadlines %v and %v, same context %v", dlA, dlB, a == b)
	}
	c, _, _ := d.callContext(parent, base.Add(time.Second), 10*time.Second)
	if c == a {
		t.Fatal("calls a second apart with a 10s timeout share a context")
	}
	// A shared context ends at its deadline, and with the parent.
	short, _, _ := d.callContext(parent, time.Now(), 100*time.Millisecond)
	select {
	case <-short.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("shared context did not end at its deadline")
	}
	long, _, _ := d.callContext(parent, time.Now(), time.Hour)
	stop()
	select {
	case <-long.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("shared context did not end with its parent")
	}
}
