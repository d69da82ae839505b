package client

import (
	"context"
	"testing"
	"time"
)

// An RPC of an operation's first attempt is bounded by what is left of the
// operation deadline when that is sooner than the RPC timeout; a passed
// deadline refuses the RPC; without one the RPC timeout applies. A dial
// is bounded by it too.
func TestRPCTimeoutUnderOperationDeadline(t *testing.T) {
	c := &Conn{opts: Options{RPCTimeout: 10 * time.Second}}
	if got, ok := c.rpcTimeout(context.Background()); !ok || got != 10*time.Second {
		t.Fatalf("no operation deadline: %v %v; want the RPC timeout", got, ok)
	}
	ctx := withOpDeadline(context.Background(), time.Now().Add(200*time.Millisecond))
	if got, ok := c.rpcTimeout(ctx); !ok || got > 200*time.Millisecond || got < 100*time.Millisecond {
		t.Fatalf("200ms left: %v %v", got, ok)
	}
	far := withOpDeadline(context.Background(), time.Now().Add(time.Hour))
	if got, ok := c.rpcTimeout(far); !ok || got != 10*time.Second {
		t.Fatalf("an hour left: %v %v; want the RPC timeout", got, ok)
	}
	past := withOpDeadline(context.Background(), time.Now().Add(-time.Millisecond))
	if _, ok := c.rpcTimeout(past); ok {
		t.Fatal("passed operation deadline allowed an RPC")
	}
	dctx, cancel := dialContext(ctx)
	defer cancel()
	if dl, ok := dctx.Deadline(); !ok || time.Until(dl) > 200*time.Millisecond {
		t.Fatalf("dial deadline %v %v", dl, ok)
	}
	if _, ok := opDeadline(context.Background()); ok {
		t.Fatal("operation deadline found on a bare context")
	}
}
