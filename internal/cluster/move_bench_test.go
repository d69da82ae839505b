package cluster

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/weirdb/weir/client"
)

// TestMoveBigRegion measures a region move of WEIR_MOVE_BYTES bytes (for
// docs/performance.md: WEIR_MOVE_BYTES=1073741824). It loads the region,
// then moves it while a probe client writes and reads it in a loop, and
// reports the unavailability the server measured (fence to open at the
// target) and the longest probe call. WEIR_MOVE_HTTP=1 models two hosts,
// so the data is streamed over HTTP rather than hard-linked. Skipped
// unless WEIR_MOVE_BYTES is set.
func TestMoveBigRegion(t *testing.T) {
	size, _ := strconv.ParseInt(os.Getenv("WEIR_MOVE_BYTES"), 10, 64)
	if size <= 0 {
		t.Skip("set WEIR_MOVE_BYTES to run")
	}
	dir := os.Getenv("WEIR_MOVE_DIR") // default: a temp dir (often tmpfs-free disk)
	if dir == "" {
		dir = t.TempDir()
	}
	cfg := Config{RegionServers: 2, DataDir: dir}
	if os.Getenv("WEIR_MOVE_HTTP") != "" {
		// Two modelled hosts: the SSTs go over HTTP instead of a hard link.
		cfg.HostIDs = []string{"h1", "h2"}
	}
	c := startCluster(t, cfg)
	conn := connect(t, c)
	createLifecycleTable(t, conn, "big")
	tbl := conn.Table("big")

	// Load: 64 KiB random (incompressible) values, 8 writers, 16 rows a batch.
	const valSize = 64 << 10
	rows := int(size / valSize)
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.NewChaCha8([32]byte{byte(w)})
			for {
				first := int(next.Add(16)) - 16
				if first >= rows {
					return
				}
				var actions []client.Action
				for i := first; i < min(first+16, rows); i++ {
					v := make([]byte, valSize)
					_, _ = rng.Read(v)
					actions = append(actions, client.NewPut([]byte(fmt.Sprintf("row%08d", i))).AddColumn([]byte("f"), []byte("q"), v))
				}
				res, err := tbl.Batch(context.Background(), actions)
				if err != nil {
					t.Error(err)
					return
				}
				for _, r := range res {
					if r.Err != nil {
						t.Error(r.Err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	must(t, conn.Admin().Flush(testCtx(t), "big"))
	t.Logf("loaded %d rows (%d MiB) in %v", rows, int64(rows)*valSize>>20, time.Since(start))

	// Probe: small puts and gets on the region during the move.
	stop := make(chan struct{})
	var slowMu sync.Mutex
	var slow []string // calls over 50 ms, at their offset from the move's start
	var moveStart atomic.Int64
	var maxCall atomic.Int64
	var probes atomic.Int64
	var pwg sync.WaitGroup
	pwg.Add(1)
	go func() {
		defer pwg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			t0 := time.Now()
			row := []byte(fmt.Sprintf("probe%06d", i))
			err := tbl.Put(context.Background(), client.NewPut(row).AddColumn([]byte("f"), []byte("q"), []byte("p")))
			if err == nil {
				_, err = tbl.Get(context.Background(), client.NewGet(row))
			}
			if err != nil {
				t.Errorf("probe: %v", err)
			}
			d := time.Since(t0)
			if d.Nanoseconds() > maxCall.Load() {
				maxCall.Store(d.Nanoseconds())
			}
			if ms := moveStart.Load(); d > 50*time.Millisecond && ms != 0 {
				slowMu.Lock()
				slow = append(slow, fmt.Sprintf("%v at +%v", d.Round(time.Millisecond), t0.Sub(time.Unix(0, ms)).Round(time.Millisecond)))
				slowMu.Unlock()
			}
			probes.Add(1)
			time.Sleep(time.Millisecond)
		}
	}()
	time.Sleep(200 * time.Millisecond)
	r := regionRecords(t, c, "big")[0]
	cpu0 := cpuTime()
	moveStart.Store(time.Now().UnixNano())
	st, err := c.Master.MoveRegionStats(testCtx(t), encodedName(r), otherStore(c, r.Store))
	cpu := cpuTime() - cpu0
	must(t, err)
	time.Sleep(200 * time.Millisecond)
	close(stop)
	pwg.Wait()
	t.Logf("moved %d MiB (%d+%d keys): unavailable %v (server: fence to open at the target), longest probe put+get %v, "+
		"move took %v, process CPU %v, %d probes",
		st.BulkBytes>>20, st.BulkKeys, st.FinalKeys, st.Unavailable, time.Duration(maxCall.Load()), st.Total, cpu, probes.Load())
	t.Logf("fence at +%v; unavailable = final fetch %v (source: fence and export %v) + final ingest %v + switch and open %v; slow probe calls: %v",
		st.FenceAt.Round(time.Millisecond), st.FinalFetch, st.FinalExport, st.FinalIngest, st.Switch, slow)
	if st.Unavailable > time.Second {
		t.Errorf("unavailable %v, want at most 1 s", st.Unavailable)
	}
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
