package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weirdb/weir/client"
	"github.com/weirdb/weir/internal/meta"
)

// writeLoad runs writers that put unique rows into a table until stopped,
// recording every acknowledged put, so a test can check that region
// moves, splits and merges lose none of them.
type writeLoad struct {
	tbl     *client.Table
	stop    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	acked   map[string]string
	failed  atomic.Int64
	maxWait atomic.Int64 // longest single put, ns
}

func startWriteLoad(t *testing.T, conn *client.Conn, table string, writers int) *writeLoad {
	w := &writeLoad{tbl: conn.Table(table), stop: make(chan struct{}), acked: map[string]string{}}
	for g := range writers {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			for i := 0; ; i++ {
				select {
				case <-w.stop:
					return
				default:
				}
				// Rows spread over the key space: the prefix letter cycles.
				row := fmt.Sprintf("%c-%d-%06d", 'a'+byte(i%26), g, i)
				val := fmt.Sprintf("v%d-%d", g, i)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				start := time.Now()
				err := w.tbl.Put(ctx, client.NewPut([]byte(row)).AddColumn([]byte("f"), []byte("q"), []byte(val)))
				cancel()
				if d := time.Since(start).Nanoseconds(); d > w.maxWait.Load() {
					w.maxWait.Store(d)
				}
				if err != nil {
					w.failed.Add(1)
					continue
				}
				w.mu.Lock()
				w.acked[row] = val
				w.mu.Unlock()
			}
		}()
	}
	return w
}

// finish stops the writers and checks that every acknowledged put reads
// back.
func (w *writeLoad) finish(t *testing.T) {
	t.Helper()
	close(w.stop)
	w.wg.Wait()
	ctx := testCtx(t)
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.acked) == 0 {
		t.Fatal("no write was acknowledged")
	}
	for row, want := range w.acked {
		res, err := w.tbl.Get(ctx, client.NewGet([]byte(row)))
		if err != nil {
			t.Fatalf("get %s: %v", row, err)
		}
		if got := string(res.Value([]byte("f"), []byte("q"))); got != want {
			t.Fatalf("acknowledged row %s reads %q, want %q", row, got, want)
		}
	}
	t.Logf("%d acknowledged writes all readable (%d failed, longest put %v)", len(w.acked), w.failed.Load(),
		time.Duration(w.maxWait.Load()))
}

func connect(t *testing.T, c *Cluster) *client.Conn {
	t.Helper()
	conn, err := client.Connect(testCtx(t), c.MasterAddr(), client.WithPause(10*time.Millisecond),
		client.WithOperationTimeout(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

func createLifecycleTable(t *testing.T, conn *client.Conn, name string, splits ...string) {
	t.Helper()
	var keys [][]byte
	for _, s := range splits {
		keys = append(keys, []byte(s))
	}
	must(t, conn.Admin().CreateTable(testCtx(t), client.TableDescriptor{Name: name,
		Families: []client.FamilyDescriptor{{Name: "f"}}}, keys))
}

// regionRecords returns the table's catalog records.
func regionRecords(t *testing.T, c *Cluster, table string) []meta.Region {
	t.Helper()
	cat := meta.New(c.EtcdClient, "")
	tb, err := cat.GetTable(testCtx(t), tableName(table))
	must(t, err)
	rs, err := cat.TableRegions(testCtx(t), tb.ID)
	must(t, err)
	return rs
}

func encodedName(r meta.Region) []byte {
	_, enc := r.Name()
	return []byte(enc)
}

// otherStore returns the store id of a region server other than store.
func otherStore(c *Cluster, store string) string {
	for _, rs := range c.RegionServers {
		if id := rs.Info().StoreID; id != store {
			return id
		}
	}
	return ""
}

func TestMoveUnderWrites(t *testing.T) {
	c := startCluster(t, Config{RegionServers: 3})
	conn := connect(t, c)
	createLifecycleTable(t, conn, "mv", "m")
	load := startWriteLoad(t, conn, "mv", 4)
	time.Sleep(200 * time.Millisecond)
	for i := range 3 {
		r := regionRecords(t, c, "mv")[i%2]
		target := otherStore(c, r.Store)
		st, err := c.Master.MoveRegionStats(testCtx(t), encodedName(r), target)
		must(t, err)
		t.Logf("move %d: %d+%d keys, unavailable %v, total %v", i, st.BulkKeys, st.FinalKeys, st.Unavailable, st.Total)
		if got := regionRecords(t, c, "mv")[i%2]; got.Store != target {
			t.Fatalf("after the move the region is on store %s, want %s", got.Store, target)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The Go client's MoveRegion with no server: the master picks one.
	r := regionRecords(t, c, "mv")[0]
	must(t, conn.Admin().MoveRegion(testCtx(t), encodedName(r), ""))
	if got := regionRecords(t, c, "mv")[0]; got.Store == r.Store {
		t.Fatal("MoveRegion without a server left the region where it was")
	}
	time.Sleep(100 * time.Millisecond)
	load.finish(t)
}

func TestMoveBadInput(t *testing.T) {
	c := startCluster(t, Config{RegionServers: 2})
	conn := connect(t, c)
	createLifecycleTable(t, conn, "mvbad")
	r := regionRecords(t, c, "mvbad")[0]
	adm := conn.Admin()
	var re *client.RemoteError
	err := adm.MoveRegion(testCtx(t), encodedName(r), "127.0.0.1:1")
	if !errors.As(err, &re) || re.Class != "org.apache.hadoop.hbase.DoNotRetryIOException" {
		t.Fatalf("move to a server that does not exist: %v", err)
	}
	err = adm.MoveRegion(testCtx(t), []byte("0123456789abcdef0123456789abcdef"), "")
	if !errors.As(err, &re) || re.Class != "org.apache.hadoop.hbase.UnknownRegionException" {
		t.Fatalf("move of an unknown region: %v", err)
	}
	if got := regionRecords(t, c, "mvbad")[0]; got.Store != r.Store || got.OpenSeq != r.OpenSeq {
		t.Fatalf("bad moves changed the region: %+v, was %+v", got, r)
	}
}
