package cluster

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weirdb/weir/client"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/regionserver"
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
	// Three modelled hosts: the data goes over HTTP (the other tests' moves
	// are on one host and hard-link the files).
	c := startCluster(t, Config{RegionServers: 3, HostIDs: []string{"h1", "h2", "h3"}})
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

func regionNames(t *testing.T, conn *client.Conn, table string) []client.RegionInfo {
	t.Helper()
	rs, err := conn.Admin().Regions(testCtx(t), table)
	must(t, err)
	return rs
}

func TestSplitMergeUnderWrites(t *testing.T) {
	c := startCluster(t, Config{RegionServers: 2})
	conn := connect(t, c)
	adm := conn.Admin()
	createLifecycleTable(t, conn, "sp")
	load := startWriteLoad(t, conn, "sp", 4)
	time.Sleep(300 * time.Millisecond)

	// split 'sp', 'm': clients see two daughters, the parent is gone.
	parent := regionNames(t, conn, "sp")[0]
	start := time.Now()
	must(t, adm.Split(testCtx(t), "sp", []byte("m")))
	t.Logf("split at m took %v", time.Since(start))
	rs := regionNames(t, conn, "sp")
	if len(rs) != 2 || string(rs[0].EndKey) != "m" || string(rs[1].StartKey) != "m" {
		t.Fatalf("after split: %+v", rs)
	}
	for _, r := range rs {
		if string(r.Name) == string(parent.Name) {
			t.Fatal("the parent is still in hbase:meta")
		}
	}
	time.Sleep(200 * time.Millisecond)
	// Split the upper daughter where its data splits in half.
	must(t, adm.SplitRegion(testCtx(t), rs[1].Name, nil))
	rs = regionNames(t, conn, "sp")
	if len(rs) != 3 {
		t.Fatalf("after the midpoint split: %d regions", len(rs))
	}
	t.Logf("midpoint split at %q", rs[2].StartKey)
	time.Sleep(200 * time.Millisecond)

	// Move the middle region away, then merge it back with its neighbour:
	// the merge brings them onto one store first.
	recs := regionRecords(t, c, "sp")
	must(t, c.Master.MoveRegion(testCtx(t), encodedName(recs[1]), otherStore(c, recs[1].Store)))
	recs = regionRecords(t, c, "sp")
	if recs[0].Store == recs[1].Store {
		t.Fatal("the move did not separate the regions")
	}
	must(t, adm.MergeRegions(testCtx(t), encodedName(recs[0]), encodedName(recs[1])))
	rs = regionNames(t, conn, "sp")
	if len(rs) != 2 || len(rs[0].StartKey) != 0 || string(rs[0].EndKey) != string(recs[1].EndKey) {
		t.Fatalf("after merge: %+v", rs)
	}
	time.Sleep(200 * time.Millisecond)
	must(t, adm.MergeRegions(testCtx(t), rs[1].Name, rs[0].Name)) // either order
	if rs = regionNames(t, conn, "sp"); len(rs) != 1 {
		t.Fatalf("after the second merge: %d regions", len(rs))
	}
	load.finish(t)
}

func TestLifecycleBadInput(t *testing.T) {
	c := startCluster(t, Config{RegionServers: 2})
	conn := connect(t, c)
	adm := conn.Admin()
	createLifecycleTable(t, conn, "bad1", "g", "p")
	createLifecycleTable(t, conn, "bad2")
	before := regionRecords(t, c, "bad1")
	r := regionNames(t, conn, "bad1")
	other := regionNames(t, conn, "bad2")
	cases := []struct {
		name  string
		call  func() error
		class string
	}{
		{"split at the start key", func() error { return adm.SplitRegion(testCtx(t), r[1].Name, []byte("g")) },
			"org.apache.hadoop.hbase.DoNotRetryIOException"},
		{"split outside the region", func() error { return adm.SplitRegion(testCtx(t), r[1].Name, []byte("z")) },
			"org.apache.hadoop.hbase.DoNotRetryIOException"},
		{"split an empty region at its midpoint", func() error { return adm.SplitRegion(testCtx(t), r[1].Name, nil) },
			"org.apache.hadoop.hbase.DoNotRetryIOException"},
		{"merge non-adjacent", func() error { return adm.MergeRegions(testCtx(t), r[0].Name, r[2].Name) },
			"org.apache.hadoop.hbase.exceptions.MergeRegionException"},
		{"merge different tables", func() error { return adm.MergeRegions(testCtx(t), r[2].Name, other[0].Name) },
			"org.apache.hadoop.hbase.exceptions.MergeRegionException"},
		{"merge with itself", func() error { return adm.MergeRegions(testCtx(t), r[0].Name, r[0].Name) },
			"org.apache.hadoop.hbase.exceptions.MergeRegionException"},
		{"merge an unknown region", func() error {
			return adm.MergeRegions(testCtx(t), r[0].Name, []byte("0123456789abcdef0123456789abcdef"))
		}, "org.apache.hadoop.hbase.UnknownRegionException"},
		{"assign an unknown region", func() error {
			return adm.AssignRegion(testCtx(t), []byte("0123456789abcdef0123456789abcdef"))
		}, "org.apache.hadoop.hbase.UnknownRegionException"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var re *client.RemoteError
			if !errors.As(err, &re) || re.Class != tc.class {
				t.Fatalf("got %v, want %s", err, tc.class)
			}
			t.Logf("%s: %s", tc.name, re.Message)
		})
	}
	after := regionRecords(t, c, "bad1")
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("bad input changed the catalog:\n%v\n%v", before, after)
	}
}

func TestAssignUnassign(t *testing.T) {
	c := startCluster(t, Config{RegionServers: 1})
	conn := connect(t, c)
	adm := conn.Admin()
	createLifecycleTable(t, conn, "asg")
	tbl := conn.Table("asg")
	must(t, tbl.Put(testCtx(t), client.NewPut([]byte("r")).AddColumn([]byte("f"), []byte("q"), []byte("v"))))
	name := regionNames(t, conn, "asg")[0].Name
	must(t, adm.UnassignRegion(testCtx(t), name))
	if !regionRecords(t, c, "asg")[0].Offline {
		t.Fatal("unassign left the region online")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if _, err := tbl.Get(ctx, client.NewGet([]byte("r"))); err == nil {
		t.Fatal("a get of an unassigned region succeeded")
	}
	must(t, adm.AssignRegion(testCtx(t), name))
	res, err := tbl.Get(testCtx(t), client.NewGet([]byte("r")))
	must(t, err)
	if string(res.Value([]byte("f"), []byte("q"))) != "v" {
		t.Fatal("the reassigned region lost its data")
	}
	resp, err := http.Get("http://" + c.Master.InfoAddr() + "/metrics")
	must(t, err)
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	must(t, err)
	for _, want := range []string{`weir_master_region_ops_total{op="assign",outcome="ok"} 1`,
		`weir_master_region_ops_total{op="unassign",outcome="ok"} 1`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("master metrics lack %s", want)
		}
	}
}

// TestAutoSplitBySize: a table with a small MAX_FILESIZE splits by
// itself once its flushed data passes it, and every row stays readable.
func TestAutoSplitBySize(t *testing.T) {
	c := startCluster(t, Config{RegionServers: 1, Split: regionserver.SplitConfig{CheckInterval: 50 * time.Millisecond}})
	conn := connect(t, c)
	adm := conn.Admin()
	must(t, adm.CreateTable(testCtx(t), client.TableDescriptor{Name: "auto", MaxFileSize: 64 << 10,
		Families: []client.FamilyDescriptor{{Name: "f"}}}, nil))
	tbl := conn.Table("auto")
	val := make([]byte, 400) // random: it must not compress away
	for i := range 400 {
		_, _ = rand.Read(val)
		must(t, tbl.Put(testCtx(t), client.NewPut([]byte(fmt.Sprintf("row%05d", i))).AddColumn([]byte("f"), []byte("q"), val)))
	}
	must(t, adm.Flush(testCtx(t), "auto"))
	deadline := time.Now().Add(10 * time.Second)
	for len(regionNames(t, conn, "auto")) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the table did not split by itself")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("split into %d regions", len(regionNames(t, conn, "auto")))
	for i := range 400 {
		res, err := tbl.Get(testCtx(t), client.NewGet([]byte(fmt.Sprintf("row%05d", i))))
		must(t, err)
		if len(res.Value([]byte("f"), []byte("q"))) != 400 {
			t.Fatalf("row%05d lost after the automatic split", i)
		}
	}
}

// TestMoveAbortUnfences drives a move's source side by hand and gives up
// after the fence (as the master does when the target fails): the region
// must serve again, with its data, and nothing may be released.
func TestMoveAbortUnfences(t *testing.T) {
	c := startCluster(t, Config{RegionServers: 1})
	conn := connect(t, c)
	createLifecycleTable(t, conn, "abort")
	tbl := conn.Table("abort")
	must(t, tbl.Put(testCtx(t), client.NewPut([]byte("r")).AddColumn([]byte("f"), []byte("q"), []byte("v"))))
	enc := string(encodedName(regionRecords(t, c, "abort")[0]))
	base := "http://" + c.RegionServers[0].InfoAddr()
	call := func(method, path string, want int) {
		t.Helper()
		req, err := http.NewRequestWithContext(testCtx(t), method, base+path, nil)
		must(t, err)
		resp, err := http.DefaultClient.Do(req)
		must(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("%s %s: status %d, want %d", method, path, resp.StatusCode, want)
		}
	}
	call(http.MethodGet, "/weir/move/export?phase=final&region="+enc, http.StatusConflict) // no bulk phase yet
	call(http.MethodGet, "/weir/move/export?phase=bulk&region="+enc, http.StatusOK)
	call(http.MethodGet, "/weir/move/export?phase=bulk&region="+enc, http.StatusConflict) // already moving
	must(t, tbl.Put(testCtx(t), client.NewPut([]byte("r1")).AddColumn([]byte("f"), []byte("q"), []byte("v1"))))
	call(http.MethodGet, "/weir/move/export?phase=final&region="+enc, http.StatusOK) // r1's row
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err := tbl.Get(ctx, client.NewGet([]byte("r")))
	cancel()
	if err == nil {
		t.Fatal("a fenced region served a get")
	}
	// The catalog still assigns the region here: release refuses and
	// unfences rather than deleting the data.
	call(http.MethodPost, "/weir/move/release?region="+enc, http.StatusConflict)
	call(http.MethodPost, "/weir/move/abort?region="+enc, http.StatusNotFound) // already ended
	res, err := tbl.Get(testCtx(t), client.NewGet([]byte("r")))
	must(t, err)
	if string(res.Value([]byte("f"), []byte("q"))) != "v" {
		t.Fatal("the unfenced region lost its data")
	}
	// And a plain abort after a fence.
	call(http.MethodGet, "/weir/move/export?phase=bulk&region="+enc, http.StatusOK)
	call(http.MethodGet, "/weir/move/export?phase=final&region="+enc, http.StatusNoContent) // nothing written since
	call(http.MethodPost, "/weir/move/abort?region="+enc, http.StatusOK)
	must(t, tbl.Put(testCtx(t), client.NewPut([]byte("r2")).AddColumn([]byte("f"), []byte("q"), []byte("v2"))))
}
