package client_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/weirdb/weir/client"
)

// cpuTime is this process's user+system CPU time (the in-process cluster's
// servers and the test's client together).
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestSnapshotCloneScale measures snapshot and clone of a table of
// $WEIR_SNAPSHOT_ROWS rows (one 100-byte column each) spread over two
// region servers, e.g.:
//
//	WEIR_SNAPSHOT_ROWS=1000000 go test -run TestSnapshotCloneScale -v -timeout 30m ./client/
//
// Skipped without the variable; docs/performance.md has the numbers.
func TestSnapshotCloneScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("WEIR_SNAPSHOT_ROWS"))
	if n <= 0 {
		t.Skip("WEIR_SNAPSHOT_ROWS not set")
	}
	ctx := context.Background()
	// The snapshot steps' timings are in the master's and region servers'
	// logs (messages "snapshot taken", "copied snapshot image(s)").
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	_, conn, _ := snapCluster(t, 2, log)
	adm := conn.Admin()
	key := func(i int) []byte { return []byte(fmt.Sprintf("user%09d", i)) }
	splits := [][]byte{key(n / 4), key(n / 2), key(3 * n / 4)}
	if err := adm.CreateTable(ctx, client.TableDescriptor{Name: "big", Families: []client.FamilyDescriptor{{Name: "f"}}}, splits); err != nil {
		t.Fatal(err)
	}
	tbl := conn.Table("big")
	// Random values: the SSTs' compression must not flatter the copy.
	values := make([]byte, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range values {
		values[i] = byte(rng.Uint32())
	}
	start := time.Now()
	const workers, batch = 4, 1000
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lo := w * batch; lo < n; lo += workers * batch {
				var actions []client.Action
				for i := lo; i < min(lo+batch, n); i++ {
					k := i * 7919 % n
					off := k * 100 % (len(values) - 100)
					actions = append(actions, client.NewPut(key(k)).AddColumn(fam, b("q"), values[off:off+100]))
				}
				if _, err := tbl.Batch(ctx, actions); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	t.Logf("loaded %d rows in %v", n, time.Since(start).Round(time.Millisecond))

	cpu0, t0 := cpuTime(t), time.Now()
	if err := adm.Snapshot(ctx, "bigsnap", "big", client.SnapshotOptions{}); err != nil {
		t.Fatal(err)
	}
	snapWall, snapCPU := time.Since(t0), cpuTime(t)-cpu0
	cpu0, t0 = cpuTime(t), time.Now()
	if err := adm.CloneSnapshot(ctx, "bigsnap", "bigclone"); err != nil {
		t.Fatal(err)
	}
	cloneWall, cloneCPU := time.Since(t0), cpuTime(t)-cpu0
	t.Logf("snapshot (flush + checkpoint): %v wall, %v CPU", snapWall.Round(time.Millisecond), snapCPU.Round(time.Millisecond))
	t.Logf("clone (copy %d rows into the new table id, ingest, regions online): %v wall, %v CPU", n, cloneWall.Round(time.Millisecond), cloneCPU.Round(time.Millisecond))

	sc := conn.Table("bigclone").Scan(ctx, client.NewScan().SetCaching(5000))
	defer sc.Close()
	rows := 0
	for {
		_, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows++
	}
	if rows != n {
		t.Fatalf("the clone has %d rows, want %d", rows, n)
	}
}
