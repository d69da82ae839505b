package lifecycle

import (
	"context"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestGroupStopWaitsAndRefuses(t *testing.T) {
	g := New(context.Background())
	var ran atomic.Int32
	for i := 0; i < 3; i++ {
		if !g.Go(func(ctx context.Context) { <-ctx.Done(); ran.Add(1) }) {
			t.Fatal("Go refused before Stop")
		}
	}
	g.Stop()
	if ran.Load() != 3 {
		t.Fatalf("Stop returned before its goroutines: %d ran", ran.Load())
	}
	if g.Go(func(context.Context) {}) {
		t.Fatal("Go accepted after Stop")
	}
	g.Stop()
}
