package storage

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"math/rand"
	randv2 "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

const keysPerBatch = 4

func batchKey(id, j int) []byte { return fmt.Appendf(nil, "b%08d/%d", id, j) }

// checkBatches opens the store at dir on fs and checks that every batch is
// whole or absent and every batch in acked is there. It returns how many
// batches were found.
func checkBatches(t *testing.T, fs vfs.FS, dir string, acked []int, seed int64, what string) int {
	t.Helper()
	e, err := Open(testOptions(fs, dir))
	if err != nil {
		t.Fatalf("seed %d, %s: Open after crash: %v", seed, what, err)
	}
	defer func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	found := map[int]int{}
	for _, p := range scanEngine(t, e, IterOptions{}) {
		id, err := strconv.Atoi(strings.SplitN(p.k[1:], "/", 2)[0])
		if err != nil || p.v != strconv.Itoa(id) {
			t.Fatalf("seed %d, %s: unexpected key %q = %q", seed, what, p.k, p.v)
		}
		found[id]++
	}
	for id, n := range found {
		if n != keysPerBatch {
			t.Fatalf("seed %d, %s: batch %d has %d of its %d keys after a crash", seed, what, id, n, keysPerBatch)
		}
	}
	for _, id := range acked {
		if found[id] == 0 {
			t.Fatalf("seed %d, %s: acknowledged SyncWAL batch %d lost (%d batches survived)", seed, what, id, len(found))
		}
	}
	return len(found)
}

func commitBatch(e *Engine, id int, d Durability) error {
	b := e.NewBatch()
	defer b.Close()
	for j := range keysPerBatch {
		if err := b.Set(batchKey(id, j), []byte(strconv.Itoa(id))); err != nil {
			return err
		}
	}
	return b.Commit(d)
}

// TestCrashCloneSyncWAL: concurrent committers, half with FsyncWAL and
// half with SyncWAL, and crash clones taken at random moments keeping 0,
// 50 or 100% of the data written but not synced. Every clone opens and
// holds each batch whole or not at all; it holds every FsyncWAL batch
// acknowledged before the clone, and, when it keeps all written data (a
// crash of the process, not of the machine), every SyncWAL one too.
func TestCrashCloneSyncWAL(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	fs := vfs.NewCrashableMem()
	opts := testOptions(fs, "/db")
	opts.MemTableSize = 64 << 10 // rotate WALs and flush during the run
	opts.WALSyncInterval = time.Hour
	e := openEngine(t, opts)

	var (
		mu      sync.Mutex
		fsynced []int // acknowledged FsyncWAL batches
		flushed []int // acknowledged SyncWAL batches
		nextID  atomic.Int64
		stop    atomic.Bool
		wg      sync.WaitGroup
	)
	for g := range 8 {
		d := []Durability{FsyncWAL, SyncWAL}[g%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				id := int(nextID.Add(1))
				if err := commitBatch(e, id, d); err != nil {
					t.Errorf("commit %d: %v", id, err)
					return
				}
				mu.Lock()
				if d == FsyncWAL {
					fsynced = append(fsynced, id)
				} else {
					flushed = append(flushed, id)
				}
				mu.Unlock()
			}
		}()
	}
	type clone struct {
		fs    *vfs.MemFS
		acked []int
		p     int
	}
	var clones []clone
	for i := range 9 {
		time.Sleep(time.Duration(1+rng.Intn(15)) * time.Millisecond)
		p := []int{0, 50, 100}[i%3]
		mu.Lock()
		// Acknowledged before the clone starts.
		snap := slices.Clone(fsynced)
		if p == 100 {
			snap = append(snap, flushed...)
		}
		mu.Unlock()
		clones = append(clones, clone{
			fs:    fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: p, RNG: randv2.New(randv2.NewPCG(uint64(rng.Int63()), 0))}),
			acked: snap,
			p:     p,
		})
	}
	stop.Store(true)
	wg.Wait()
	for i, c := range clones {
		n := checkBatches(t, c.fs, "/db", c.acked, seed, fmt.Sprintf("clone %d (unsynced %d%%)", i, c.p))
		if testing.Verbose() {
			t.Logf("clone %d (unsynced %d%%): %d required, %d batches survived", i, c.p, len(c.acked), n)
		}
	}
}

const errorFSEnv = "WEIR_STORAGE_ERRORFS" // "dir|write" or "dir|sync"

// TestErrorFSWALChild is the child of TestErrorFSWAL: on a real directory
// wrapped in errorfs it commits batches (FsyncWAL when syncs fail, SyncWAL
// when writes do), printing one line per acknowledgement, and injects an
// error into the WAL's writes or syncs after 20 of them.
func TestErrorFSWALChild(t *testing.T) {
	env := os.Getenv(errorFSEnv)
	if env == "" {
		t.Skip("run by TestErrorFSWAL")
	}
	dir, kind, _ := strings.Cut(env, "|")
	var armed atomic.Bool
	inj := errorfs.InjectorFunc(func(op errorfs.Op) error {
		if !armed.Load() || !strings.HasSuffix(op.Path, ".log") {
			return nil
		}
		switch op.Kind {
		case errorfs.OpFileWrite, errorfs.OpFileWriteAt:
			if kind == "write" {
				return errorfs.ErrInjected
			}
		case errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo:
			if kind == "sync" {
				return errorfs.ErrInjected
			}
		}
		return nil
	})
	opts := testOptions(errorfs.Wrap(vfs.Default, inj), dir)
	opts.Logger = slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{Level: slog.LevelError}))
	e, err := Open(opts)
	if err != nil {
		fmt.Printf("open failed: %v\n", err)
		os.Exit(2)
	}
	d := SyncWAL
	if kind == "sync" {
		d = FsyncWAL
	}
	for id := range 40 {
		if id == 20 {
			armed.Store(true)
		}
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			return commitBatch(e, id, d)
		}()
		if err != nil {
			fmt.Printf("commit %d failed: %v\n", id, err)
			os.Exit(3)
		}
		fmt.Printf("ack %d\n", id)
	}
	fmt.Println("all commits succeeded despite injected WAL errors")
	os.Exit(4)
}

// TestErrorFSWAL injects write or sync errors into the WAL through errorfs.
// Pebble does not return them to the committer: its commit pipeline calls
// Logger.Fatalf ("pebble: fatal commit error"), which Weir's logger adapter
// turns into os.Exit(1), so the commit that met the error is never
// acknowledged. The test therefore runs the engine in a child process and
// checks that it exits that way, without a panic and without acknowledging
// the failed commit, and that reopening the directory recovers every write
// acknowledged before the fault.
func TestErrorFSWAL(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	for _, kind := range []string{"write", "sync"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestErrorFSWALChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), errorFSEnv+"="+dir+"|"+kind)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("child exit: %v, want exit status 1 from Logger.Fatalf; output:\n%s", err, out)
			}
			if !strings.Contains(string(out), "pebble: fatal commit error") || !strings.Contains(string(out), "injected error") {
				t.Fatalf("child output lacks Pebble's fatal commit error:\n%s", out)
			}
			if strings.Contains(string(out), "panic") {
				t.Fatalf("child panicked:\n%s", out)
			}
			var acked []int
			for l := range strings.Lines(string(out)) {
				if id, ok := strings.CutPrefix(strings.TrimSpace(l), "ack "); ok {
					n, _ := strconv.Atoi(id)
					acked = append(acked, n)
				}
			}
			if len(acked) != 20 {
				t.Fatalf("child acknowledged %d commits, want the 20 before the fault:\n%s", len(acked), out)
			}
			n := checkBatches(t, vfs.Default, dir, acked, 0, "after a WAL "+kind+" error")
			t.Logf("%d acknowledged, %d batches recovered", len(acked), n)
		})
	}
}

// TestTornWALTail truncates or garbles the end of the newest WAL on a real
// directory. Pebble's default WAL recovery treats a bad tail of the last
// log as its end: Open succeeds, every record before the torn one is
// replayed and the torn record is dropped.
func TestTornWALTail(t *testing.T) {
	const batches = 20
	value := strings.Repeat("v", 2000)
	for _, tc := range []struct {
		name string
		tear func(t *testing.T, path string, size int64)
	}{
		{"truncate", func(t *testing.T, path string, size int64) {
			if err := os.Truncate(path, size-200); err != nil {
				t.Fatal(err)
			}
		}},
		{"garble", func(t *testing.T, path string, size int64) {
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteAt([]byte("garbage!garbage!"), size-300); err != nil {
				t.Fatal(err)
			}
		}},
		{"zeroed", func(t *testing.T, path string, size int64) {
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteAt(make([]byte, 200), size-200); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			e, err := Open(testOptions(vfs.Default, dir))
			if err != nil {
				t.Fatal(err)
			}
			for i := range batches {
				commit(t, e, SyncWAL, kv{fmt.Sprintf("k%02d", i), value})
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			logs, err := filepath.Glob(filepath.Join(dir, "*.log"))
			if err != nil || len(logs) == 0 {
				t.Fatalf("no WAL in %s (%v)", dir, err)
			}
			slices.Sort(logs) // zero-padded numbers: the last is the newest
			newest := logs[len(logs)-1]
			st, err := os.Stat(newest)
			if err != nil {
				t.Fatal(err)
			}
			if st.Size() < batches*int64(len(value)) {
				t.Fatalf("newest WAL %s is %d bytes; the writes are not in it", newest, st.Size())
			}
			tc.tear(t, newest, st.Size())

			e, err = Open(testOptions(vfs.Default, dir))
			if err != nil {
				t.Fatalf("Open after a torn WAL tail: %v", err)
			}
			defer e.Close()
			got := scanEngine(t, e, IterOptions{})
			if len(got) != batches-1 {
				t.Fatalf("after a torn tail %d writes survived, want %d (all but the torn last one)", len(got), batches-1)
			}
			for i, p := range got {
				if want := fmt.Sprintf("k%02d", i); p.k != want || p.v != value {
					t.Fatalf("write %d: %q, want %q", i, p.k, want)
				}
			}
			// The store is writable and durable again.
			commit(t, e, SyncWAL, kv{"after", "1"})
		})
	}
}

const kill9Env = "WEIR_STORAGE_KILL9_DIR"

// TestKill9Child is the child of TestKill9: it commits SyncWAL writes and
// prints one line per acknowledged write until it is killed.
func TestKill9Child(t *testing.T) {
	dir := os.Getenv(kill9Env)
	if dir == "" {
		t.Skip("run by TestKill9")
	}
	e, err := Open(testOptions(vfs.Default, dir))
	if err != nil {
		fmt.Printf("open failed: %v\n", err)
		os.Exit(2)
	}
	deadline := time.Now().Add(30 * time.Second) // never outlive a lost parent
	for i := 0; time.Now().Before(deadline); i++ {
		if err := commitBatch(e, i, SyncWAL); err != nil {
			fmt.Printf("commit failed: %v\n", err)
			os.Exit(3)
		}
		fmt.Printf("ack %d\n", i) // os.Stdout is unbuffered: one write per ack
	}
	os.Exit(4)
}

// TestKill9 runs TestKill9Child in a child process, SIGKILLs it after a
// few hundred acknowledged SyncWAL commits and checks that every
// acknowledged write survives.
func TestKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKill9Child$", "-test.count=1")
	cmd.Env = append(os.Environ(), kill9Env+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acked []int
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	const want = 300
	timeout := time.After(4 * time.Second)
	killed := false
	for !killed {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("child exited early after %d acks: %v", len(acked), cmd.Wait())
			}
			id, isAck := strings.CutPrefix(l, "ack ")
			if !isAck {
				t.Fatalf("child: %s", l)
			}
			n, _ := strconv.Atoi(id)
			acked = append(acked, n)
			if len(acked) < want {
				continue
			}
		case <-timeout:
			if len(acked) == 0 {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				t.Fatal("child acknowledged nothing in 4s")
			}
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		killed = true
	}
	// Lines written before the kill are acknowledgements too.
	for l := range lines {
		if id, ok := strings.CutPrefix(l, "ack "); ok {
			n, _ := strconv.Atoi(id)
			acked = append(acked, n)
		}
	}
	if err := cmd.Wait(); err == nil {
		t.Fatal("child exited cleanly; it was meant to be killed")
	}
	n := checkBatches(t, vfs.Default, dir, acked, 0, "after kill -9")
	t.Logf("%d acknowledged, %d batches survived kill -9", len(acked), n)
}
