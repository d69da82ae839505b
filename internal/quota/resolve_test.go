package quota

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestAdmitterNoOvertakingQueued: a request whose tokens are there still
// queues behind an earlier request of the same tenant that waits for its
// own (the lane-free admission applies only while nobody of the tenant is
// queued).
func TestAdmitterNoOvertakingQueued(t *testing.T) {
	st := mustSettings(t, "USER => 'u', THROTTLE_TYPE => READ, LIMIT => '1K/sec'")
	c, err := NewChecker(Config{}, st, epoch)
	if err != nil {
		t.Fatal(err)
	}
	clock := make(chan time.Time, 1)
	clock <- epoch
	now := func() time.Time { t := <-clock; clock <- t; return t }
	sleeping, wake := make(chan struct{}, 2), make(chan struct{})
	sleep := func(_ context.Context, d time.Duration) error {
		sleeping <- struct{}{}
		<-wake
		clock <- (<-clock).Add(d)
		return nil
	}
	a := NewAdmitter(c, now, sleep)
	ctx := context.Background()
	big := Request{User: "u", Kind: KindRead, EstBytes: 1000}
	if _, err := a.Admit(ctx, big); err != nil { // 24 bytes left
		t.Fatal(err)
	}
	done := make(chan string, 2)
	go func() { _, err := a.Admit(ctx, big); done <- fmt.Sprint("big ", err) }()
	<-sleeping // the second big read waits for its tokens
	go func() {
		_, err := a.Admit(ctx, Request{User: "u", Kind: KindRead, EstBytes: 10})
		done <- fmt.Sprint("small ", err)
	}()
	select {
	case got := <-done:
		t.Fatalf("%s: admitted while an earlier request of the tenant waits", got)
	case <-time.After(50 * time.Millisecond):
	}
	close(wake)
	// Both are admitted now; which goroutine reports first is the
	// scheduler's choice (the order of admission was checked above).
	got := map[string]bool{<-done: true, <-done: true}
	if !got["big <nil>"] || !got["small <nil>"] {
		t.Fatalf("after the wait: %v, want both admitted", got)
	}
}

// TestResolveCacheFollowsUpdates: resolved limiter sets are cached per
// settings snapshot, so an Update takes effect on the next request, and
// idle tenants are dropped (marked dead) when there are many, but not one
// that has a request queued.
func TestResolveCacheFollowsUpdates(t *testing.T) {
	c, err := NewChecker(Config{}, mustSettings(t, "USER => 'u', LIMIT => '10req/sec'"), epoch)
	if err != nil {
		t.Fatal(err)
	}
	req := Request{User: "u", Namespace: "ns", Table: "t"}
	if got := fmt.Sprint(c.describe(epoch, req)); got != "[USER => 'u']" {
		t.Fatalf("limiters %s", got)
	}
	st := c.state.Load()
	r := c.resolve(st, 1, &req)
	if r.n != 1 || c.resolve(st, 1, &req) != r {
		t.Fatalf("resolved %+v, not cached", r)
	}
	for i := 0; i < maxIdleTenants; i++ {
		c.resolve(st, 1, &Request{User: fmt.Sprint("other", i)})
	}
	queued := c.enqueueTenant("u")
	if queued != r.tenant {
		t.Fatal("enqueued on another tenant than the canonical one")
	}
	if err := c.Update(mustSettings(t, "USER => 'u', TABLE => 'ns:t', LIMIT => '5req/sec'", "TABLE => 'ns:t', LIMIT => '7req/sec'"), epoch); err != nil {
		t.Fatal(err)
	}
	st2 := c.state.Load()
	r2 := c.resolve(st2, 1, &req)
	if r2.n != 2 || r2.lims[0].subject.Table != "t" || r2.lims[1].subject.User != "" {
		t.Fatalf("after the update: %d limiters %v", r2.n, r2.lims)
	}
	if r2.tenant != r.tenant {
		t.Fatal("the queued tenant was dropped")
	}
	idle := c.resolve(st, 1, &Request{User: "other0"}).tenant
	if idle.queued.Load() == 0 {
		t.Fatal("an idle tenant held by an old entry was neither kept nor marked dead")
	}
	if c.resolve(st2, 1, &Request{User: "other0"}).tenant == idle {
		t.Fatal("a dead tenant was handed out again")
	}
	queued.queued.Add(-1)
}

// TestResolveKey checks that the stack-built key is appendResolveKey's and
// that no two (user, namespace, table) triples share a key, long names
// (heap-built keys) included.
func TestResolveKey(t *testing.T) {
	long := strings.Repeat("x", 200)
	triples := [][3]string{
		{"ab", "c", ""}, {"a", "bc", ""}, {"a", "b", "c"}, {"", "ab", "c"},
		{"u", "default", "t"}, {"u", "", "t"}, {long, "ns", "t"}, {long[:130], "ns", "t"},
		{"u", long[:60], long[:63]}, {"u", long[:60], long[:64]}, {"\x01a", "", ""}, {"", "\x01a", ""},
	}
	seen := make(map[string][3]string)
	for _, tr := range triples {
		var buf resolveKeyBuf
		k := string(resolveKey(&buf, tr[0], tr[1], tr[2]))
		if want := string(appendResolveKey(nil, tr[0], tr[1], tr[2])); k != want {
			t.Errorf("resolveKey(%q) = %q, want %q", tr, k, want)
		}
		if prev, dup := seen[k]; dup {
			t.Errorf("triples %q and %q share key %q", prev, tr, k)
		}
		seen[k] = tr
	}
}
