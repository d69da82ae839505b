package bench_test

import (
	"context"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/cluster"
)

// startCluster starts an in-process cluster for an end-to-end bench test
// (skipped with -short), with a context that bounds the whole test; both
// are closed when the test ends.
func startCluster(t *testing.T, cfg cluster.Config) (context.Context, *cluster.Cluster) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a cluster")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cfg.DataDir = t.TempDir()
	c, err := cluster.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return ctx, c
}
