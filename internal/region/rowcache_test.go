package region

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
)

// openCachedRegion opens openTestRegion's region with a row cache of size
// bytes that takes every row read (admitAll): the tests of what the cache
// serves want the rows they write cached whatever their shape.
func openCachedRegion(t testing.TB, size int64, families ...FamilyDescriptor) (*Region, *RowCache) {
	t.Helper()
	c := NewRowCache(size)
	c.admitAll = true
	r, _ := openTestRegionOpts(t, Options{RowCache: c}, families...)
	return r, c
}

// TestRowCacheAdmitsRowsWithKeysPassed: a Get fills the cache at once
// with a row whose read stepped over keys it did not return (older
// versions, delete markers, an image's cells replaced by later puts); a
// row of one version per column, loose or as an image, is declined at its
// first miss and taken at its second (the doorkeeper).
func TestRowCacheAdmitsRowsWithKeysPassed(t *testing.T) {
	ctx := context.Background()
	c := NewRowCache(1 << 20)
	r, _ := openTestRegionOpts(t, Options{RowCache: c}, FamilyDescriptor{Name: []byte("f1")})
	mustMutate(t, r,
		put("imaged", "f1", "a", 1, "a1"), put("imaged", "f1", "b", 1, "b1"),
		put("patched", "f1", "a", 1, "a1"), put("patched", "f1", "b", 1, "b1"))
	if err := r.Compact(ctx, true); err != nil {
		t.Fatal(err)
	}
	mustMutate(t, r,
		put("loose", "f1", "a", 1, "a1"), put("loose", "f1", "b", 1, "b1"),
		put("versions", "f1", "a", 1, "a1"), put("versions", "f1", "a", 2, "a2"),
		put("deleted", "f1", "a", 1, "a1"), put("deleted", "f1", "b", 1, "b1"),
		del("deleted", "f1", "b", 2, cell.TypeDeleteColumn),
		put("patched", "f1", "b", 2, "b2"))
	for _, tc := range []struct {
		row string
		// misses is how many reads miss before the row is served from
		// the cache; declined how many of them the cache declines.
		misses, declined int
	}{
		{"imaged", 2, 1},
		{"loose", 2, 1},
		{"absent", 2, 1},
		{"versions", 1, 0},
		{"deleted", 1, 0},
		{"patched", 1, 0},
	} {
		t.Run(tc.row, func(t *testing.T) {
			g := Get{Row: []byte(tc.row)}
			before := c.Stats()
			want := mustGet(t, r, g)
			for i := 1; i <= tc.misses; i++ {
				st := c.Stats()
				if got := mustGet(t, r, g); got != want {
					t.Fatalf("read %d: %q, first %q", i+1, got, want)
				}
				after := c.Stats()
				if hit := after.Hits > st.Hits; hit != (i == tc.misses) {
					t.Fatalf("read %d served from the cache: %v, want %v (stats %+v)", i+1, hit, i == tc.misses, after)
				}
			}
			if got := c.Stats().Declined - before.Declined; got != uint64(tc.declined) {
				t.Fatalf("declined %d reads, want %d", got, tc.declined)
			}
		})
	}
}

// TestDoorkeeper: a hash is seen at its second mark, the filter forgets
// what it was told once a window of marks has passed, and hashes never
// marked are taken for seen about as often as the filter's fill says.
func TestDoorkeeper(t *testing.T) {
	d := new(doorkeeper)
	rng := rand.New(rand.NewPCG(1, 2))
	hashes := make([]uint64, 1000)
	for i := range hashes {
		hashes[i] = rng.Uint64()
		if d.seen(hashes[i]) {
			t.Fatalf("hash %d seen before it was marked", i)
		}
	}
	for i, h := range hashes {
		if !d.seen(h) {
			t.Fatalf("hash %d not seen after it was marked", i)
		}
	}
	// Fill the rest of the window with other hashes; false positives
	// among them (seen at their first mark) stay rare, and the window's
	// end clears the filter.
	false1 := 0
	for d.added.Load()%doorWindow != 0 {
		if d.seen(rng.Uint64()) {
			false1++
		}
	}
	if max := doorWindow / 30; false1 > max {
		t.Fatalf("%d of %d unmarked hashes seen, want at most %d", false1, doorWindow, max)
	}
	for i, h := range hashes {
		if d.seen(h) {
			t.Fatalf("hash %d still seen after the filter was cleared", i)
		}
	}
}

func mustGet(t testing.TB, r *Region, g Get) string {
	t.Helper()
	res, err := r.Get(context.Background(), g)
	if err != nil {
		t.Fatalf("Get %q: %v", g.Row, err)
	}
	return fmtCells(res.Cells)
}

// TestRowCacheServesWhatTheStoreHolds: for Gets of every shape, the cached
// region answers as the store does, and the cache is used only by the
// shapes it can answer.
func TestRowCacheServesWhatTheStoreHolds(t *testing.T) {
	r, c := openCachedRegion(t, 1<<20)
	mustMutate(t, r,
		put("r", "f1", "a", 10, "a10"), put("r", "f1", "a", 20, "a20"), put("r", "f1", "b", 15, "b15"),
		put("r", "f2", "x", 5, "x5"), put("r", "f2", "y", 7, "y7"))
	whole := Get{Row: []byte("r")}
	for _, tc := range []struct {
		name string
		g    Get
		hit  bool // served from the cache once the whole row is there
	}{
		{"whole row", whole, true},
		{"both families", Get{Row: []byte("r"), Columns: []Columns{{Family: []byte("f2")}, {Family: []byte("f1")}}}, true},
		{"one family", Get{Row: []byte("r"), Columns: []Columns{{Family: []byte("f2")}}}, true},
		{"qualifiers", Get{Row: []byte("r"), Columns: []Columns{{Family: []byte("f1"), Qualifiers: [][]byte{[]byte("b"), []byte("zz")}}}}, true},
		{"existence", Get{Row: []byte("r"), ExistenceOnly: true}, true},
		{"versions", Get{Row: []byte("r"), MaxVersions: 3}, false},
		{"time range", Get{Row: []byte("r"), TimeRange: cell.TimeRange{Min: 0, Max: 16}}, false},
		{"store limit", Get{Row: []byte("r"), StoreLimit: 1}, false},
		{"filter", Get{Row: []byte("r"), Filter: &filter.FirstKeyOnlyFilter{}}, false},
		{"absent row", Get{Row: []byte("nope")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r.forgetCachedRows()
			want := mustGet(t, r, tc.g) // from the store (the cache is empty)
			mustGet(t, r, whole)        // fills the whole row
			mustGet(t, r, Get{Row: []byte("nope")})
			before := c.Stats().Hits
			if got := mustGet(t, r, tc.g); got != want {
				t.Fatalf("cached region answered\n%s\nthe store\n%s", got, want)
			}
			if hit := c.Stats().Hits > before; hit != tc.hit {
				t.Fatalf("served from the cache: %v, want %v", hit, tc.hit)
			}
		})
	}
}

// TestRowCacheDroppedByEveryWrite: each kind of write, then a Get, on a row
// whose cells are cached: the Get sees the write.
func TestRowCacheDroppedByEveryWrite(t *testing.T) {
	ctx := context.Background()
	r, c := openCachedRegion(t, 1<<20)
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, row string)
		want  string // the Get's cells after the write; a prefix when it ends in "/"
	}{
		{"put", func(t *testing.T, row string) { mustMutate(t, r, put(row, "f1", "q", 2, "two")) }, "/f1:q/2/Put=two\n"},
		{"delete", func(t *testing.T, row string) { mustMutate(t, r, del(row, "f1", "q", 1, cell.TypeDelete)) }, ""},
		{"increment", func(t *testing.T, row string) {
			if _, err := r.Increment(ctx, ReadModifyWrite{Row: []byte(row), Columns: []ColumnDelta{{Family: []byte("f2"), Qualifier: []byte("n"), Delta: 5}}}); err != nil {
				t.Fatal(err)
			}
		}, "/f1:q/1/Put=one\n" + "/f2:n/"},
		{"append", func(t *testing.T, row string) {
			if _, err := r.Append(ctx, ReadModifyWrite{Row: []byte(row), Columns: []ColumnDelta{{Family: []byte("f1"), Qualifier: []byte("q"), Value: []byte("+")}}}); err != nil {
				t.Fatal(err)
			}
		}, "/f1:q/"},
		{"check and mutate", func(t *testing.T, row string) {
			ok, err := r.CheckAndMutate(ctx, []byte(row), Condition{Family: []byte("f1"), Qualifier: []byte("q"), Op: filter.Equal, Comparator: filter.NewBinaryComparator([]byte("one"))},
				put(row, "f1", "q", 3, "three"))
			if err != nil || !ok {
				t.Fatalf("CheckAndMutate: %v, %v", ok, err)
			}
		}, "/f1:q/3/Put=three\n"},
		{"ingest nothing", func(t *testing.T, row string) {
			if err := r.Ingest(ctx, nil); err != nil {
				t.Fatal(err)
			}
		}, ""},
		{"alter to a TTL", func(t *testing.T, row string) {
			d := *r.Descriptor()
			d.Families = []FamilyDescriptor{{Name: []byte("f1"), MaxVersions: 3, TTL: 1}, {Name: []byte("f2")}}
			if err := r.SetDescriptor(d); err != nil {
				t.Fatal(err)
			}
		}, ""}, // the cell at ts 1 is decades older than one second
	} {
		t.Run(tc.name, func(t *testing.T) {
			row := "row-" + tc.name
			mustMutate(t, r, put(row, "f1", "q", 1, "one"))
			g := Get{Row: []byte(row)}
			mustGet(t, r, g)
			hits := c.Stats().Hits
			if got := mustGet(t, r, g); got != row+"/f1:q/1/Put=one\n" || c.Stats().Hits != hits+1 {
				t.Fatalf("before the write: %q, hits %d -> %d", got, hits, c.Stats().Hits)
			}
			tc.write(t, row)
			got := mustGet(t, r, g)
			want := strings.ReplaceAll(tc.want, "/f", row+"/f")
			if strings.HasSuffix(want, "/") {
				if !strings.HasPrefix(got, want) {
					t.Fatalf("after %s: %q, want %q...", tc.name, got, want)
				}
			} else if got != want {
				t.Fatalf("after %s: %q, want %q", tc.name, got, want)
			}
		})
	}
}

// TestRowCacheConcurrentReadsAndWrites is TestConcurrentGetsAndPuts with
// a row cache: a fill racing a write must not leave the older row behind
// (it fails if either the drop count or the write window is left out of
// RowCache.fill's check).
func TestRowCacheConcurrentReadsAndWrites(t *testing.T) {
	r, c := openCachedRegion(t, 1<<20)
	// The region's key space changes meanwhile (an alter's SetDescriptor):
	// each write's bracket must still close in the shard it opened in.
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				r.forgetCachedRows()
			}
		}
	}()
	concurrentGetsAndPuts(t, r, 4, 400)
	close(stop)
	<-done
	for i := range c.shards {
		if w := c.shards[i].writing; w != 0 {
			t.Errorf("shard %d: %d writes left open", i, w)
		}
	}
	t.Logf("%+v", c.Stats())
}

// TestRowCacheBound: the cache keeps to its size, evicting the least
// recently used rows, and skips rows too big for a shard.
func TestRowCacheBound(t *testing.T) {
	const size = 1 << 20
	r, c := openCachedRegion(t, size)
	value := string(make([]byte, 300))
	const rows = 4000
	for i := range rows {
		row := fmt.Sprintf("row%04d", i)
		mustMutate(t, r, put(row, "f1", "q", 1, value))
		mustGet(t, r, Get{Row: []byte(row)})
	}
	st := c.Stats()
	if st.Bytes > size || st.Entries == 0 || st.Evictions == 0 {
		t.Fatalf("after %d rows of ~300 B in a %d-byte cache: %+v", rows, size, st)
	}
	// The most recent rows stayed, the first went.
	hitsOf := func(from int) uint64 {
		before := c.Stats().Hits
		for i := from; i < from+100; i++ {
			mustGet(t, r, Get{Row: []byte(fmt.Sprintf("row%04d", i))})
		}
		return c.Stats().Hits - before
	}
	if newest := hitsOf(rows - 100); newest < 90 {
		t.Errorf("%d of the newest 100 rows were cached, want at least 90", newest)
	}
	if oldest := hitsOf(0); oldest > 10 {
		t.Errorf("%d of the oldest 100 rows were still cached, want at most 10", oldest)
	}
	big := string(make([]byte, size/rowCacheShards/4))
	mustMutate(t, r, put("big", "f1", "q", 1, big))
	fills := c.Stats().Fills
	mustGet(t, r, Get{Row: []byte("big")})
	if c.Stats().Fills != fills {
		t.Fatal("a row bigger than a quarter of a shard was cached")
	}
}

// TestRowCacheDropsClosedRegion: closing a region removes its rows from
// the cache and leaves another region's; a shard's map emptied to under a
// quarter of its peak is made anew.
func TestRowCacheDropsClosedRegion(t *testing.T) {
	c := NewRowCache(64 << 20)
	c.admitAll = true
	closing, _ := openTestRegionOpts(t, Options{RowCache: c})
	staying, _ := openTestRegionOpts(t, Options{RowCache: c})
	fillRows := func(r *Region, n int) {
		for i := range n {
			row := fmt.Sprintf("row%05d", i)
			mustMutate(t, r, put(row, "f1", "q", 1, "v"))
			mustGet(t, r, Get{Row: []byte(row)})
		}
	}
	fillRows(closing, 4000)
	fillRows(staying, 20)
	if n := c.Stats().Entries; n != 4020 {
		t.Fatalf("%d entries cached, want 4020", n)
	}
	if err := closing.Close(); err != nil {
		t.Fatal(err)
	}
	if n := c.Stats().Entries; n != 20 {
		t.Fatalf("after closing the region of 4000 rows, %d entries are cached, want 20", n)
	}
	for i := range c.shards {
		if s := &c.shards[i]; s.peak != len(s.m) {
			t.Errorf("shard %d: peak %d with %d entries: its map was not made anew", i, s.peak, len(s.m))
		}
	}
	hits := c.Stats().Hits
	for i := range 20 {
		mustGet(t, staying, Get{Row: []byte(fmt.Sprintf("row%05d", i))})
	}
	if got := c.Stats().Hits - hits; got != 20 {
		t.Fatalf("%d of the open region's 20 rows were still cached, want 20", got)
	}
}

func TestRowCacheOff(t *testing.T) {
	if NewRowCache(0) != nil || NewRowCache(-1) != nil {
		t.Fatal("NewRowCache(<=0) is not nil")
	}
}

// TestCachedCellEncoding: cells survive appendCachedCell and
// nextCachedCell, and fill sizes the entry exactly.
func TestCachedCellEncoding(t *testing.T) {
	cells := []cell.Cell{
		{Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 1, Type: cell.TypePut, Value: []byte("v")},
		{Family: []byte("fam"), Qualifier: nil, Timestamp: -1, Type: cell.TypePut, Value: make([]byte, 300)},
		{Family: []byte("fam"), Qualifier: make([]byte, 200), Timestamp: 1 << 62, Type: cell.TypePut, Value: nil},
	}
	var data []byte
	for i := range cells {
		data = appendCachedCell(data, &cells[i])
	}
	var got cell.Cell
	for i := range cells {
		data = nextCachedCell(data, &got)
		if got.Timestamp != cells[i].Timestamp || got.Type != cells[i].Type || string(got.Family) != string(cells[i].Family) ||
			string(got.Qualifier) != string(cells[i].Qualifier) || string(got.Value) != string(cells[i].Value) {
			t.Fatalf("cell %d decoded as %+v, want %+v", i, got, cells[i])
		}
	}
	if len(data) != 0 {
		t.Fatalf("%d bytes left over", len(data))
	}
	c := NewRowCache(1 << 20)
	key := []byte("key")
	c.fill(key, 0, 0, cells, 0)
	e := c.shard(key).m["key"]
	if e == nil || len(e.data) != cap(e.data) {
		t.Fatalf("entry %v: data %d of %d bytes allocated", e != nil, len(e.data), cap(e.data))
	}
}

// TestRowCachePatchedByPuts: a Put newer than everything its cached row
// holds puts the row back patched; any other write leaves it to the next
// Get. Either way a Get answers as the store does.
func TestRowCachePatchedByPuts(t *testing.T) {
	const latest = cell.LatestTimestamp
	for _, tc := range []struct {
		name    string
		setup   []Mutation // besides f1:a@10 and f1:b@15
		write   Mutation
		patched bool
	}{
		{"newer version of a column", nil, put("r", "f1", "a", latest, "new"), true},
		{"newer version of a column, a value as long", nil, put("r", "f1", "b", latest, "B99"), true},
		{"two columns, values as long", nil, Mutation{Type: MutationPut, Row: []byte("r"), Cells: []cell.Cell{
			{Family: []byte("f1"), Qualifier: []byte("b"), Timestamp: latest, Value: []byte("B99")},
			{Family: []byte("f1"), Qualifier: []byte("a"), Timestamp: latest, Value: []byte("A99")}}}, true},
		{"one value as long, a new column", nil, Mutation{Type: MutationPut, Row: []byte("r"), Cells: []cell.Cell{
			{Family: []byte("f1"), Qualifier: []byte("a"), Timestamp: latest, Value: []byte("A99")},
			{Family: []byte("f1"), Qualifier: []byte("c"), Timestamp: latest, Value: []byte("C99")}}}, true},
		{"a new column in the middle", nil, put("r", "f1", "aa", latest, "mid"), true},
		{"a new column of the other family", nil, put("r", "f2", "x", latest, "x"), true},
		{"two cells, one column twice", nil, Mutation{Type: MutationPut, Row: []byte("r"), Cells: []cell.Cell{
			{Family: []byte("f1"), Qualifier: []byte("b"), Timestamp: latest, Value: []byte("first")},
			{Family: []byte("f1"), Qualifier: []byte("c"), Timestamp: latest, Value: []byte("c")},
			{Family: []byte("f1"), Qualifier: []byte("b"), Timestamp: latest, Value: []byte("second")}}}, true},
		{"an older version", nil, put("r", "f1", "a", 5, "old"), false},
		{"as old as the newest key", nil, put("r", "f1", "z", 15, "z"), false},
		{"under a newer delete marker of the column", []Mutation{del("r", "f1", "d", 5_000_000, cell.TypeDeleteColumn)},
			put("r", "f1", "d", latest, "masked"), false},
		{"under a newer family marker", []Mutation{{Type: MutationDelete, Row: []byte("r"), Timestamp: 5_000_000}},
			put("r", "f2", "x", latest, "masked"), false},
		{"a delete", nil, del("r", "f1", "a", latest, cell.TypeDeleteColumn), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, c := openCachedRegion(t, 1<<20)
			mustMutate(t, r, put("r", "f1", "a", 10, "a10"), put("r", "f1", "b", 15, "b15"))
			mustMutate(t, r, tc.setup...)
			whole := Get{Row: []byte("r")}
			truth := Get{Row: []byte("r"), StoreLimit: 1000} // a shape the cache never serves
			mustGet(t, r, whole)                             // fills
			mustMutate(t, r, tc.write)
			hits := c.Stats().Hits
			got := mustGet(t, r, whole)
			if want := mustGet(t, r, truth); got != want {
				t.Fatalf("after the write the cached region answered\n%s\nthe store\n%s", got, want)
			}
			if patched := c.Stats().Hits > hits; patched != tc.patched {
				t.Fatalf("row served from the cache right after the write: %v, want %v", patched, tc.patched)
			}
		})
	}
}

// TestRowCachePatchRace: writers of one row, each its own column with the
// server's timestamps, race; the row the cache keeps must be the store's.
// It fails if a patch may be installed while another write to the shard
// is in its window.
func TestRowCachePatchRace(t *testing.T) {
	ctx := context.Background()
	r, c := openCachedRegion(t, 1<<20)
	const writers, rounds = 4, 300
	whole := Get{Row: []byte("r")}
	truth := Get{Row: []byte("r"), StoreLimit: 1000}
	var wg sync.WaitGroup
	errc := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				if err := r.Mutate(ctx, put("r", "f1", fmt.Sprintf("q%d", w), cell.LatestTimestamp, fmt.Sprint(i))); err != nil {
					errc <- err
					return
				}
				if _, err := r.Get(ctx, whole); err != nil { // fills, or is served
					errc <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	mustGet(t, r, whole)
	hits := c.Stats().Hits
	if got, want := mustGet(t, r, whole), mustGet(t, r, truth); got != want {
		t.Fatalf("the cached row\n%s\nthe store's\n%s", got, want)
	}
	if c.Stats().Hits == hits {
		t.Fatal("the last Get was not served from the cache: the test checked nothing")
	}
}

// TestRowCacheRandomWrites: random Puts (server and explicit timestamps),
// deletes of every kind, increments and alters, each followed by a whole
// row Get, on rows whose families keep 1 to 3 versions and deleted cells
// or not; every Get must answer as the store does (a shape the cache never
// serves), and most must be served by the cache, filled or patched.
func TestRowCacheRandomWrites(t *testing.T) {
	ctx := context.Background()
	for seed := range int64(8) {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		fams := []FamilyDescriptor{
			{Name: []byte("f1"), MaxVersions: 1 + rng.IntN(3), KeepDeletedCells: KeepDeletedCells(rng.IntN(2))},
			{Name: []byte("f2"), MaxVersions: 1 + rng.IntN(3)},
		}
		r, c := openCachedRegion(t, 1<<20, fams...)
		rows := []string{"a", "b", "c"}
		fam := func() string { return []string{"f1", "f2"}[rng.IntN(2)] }
		qual := func() string { return []string{"p", "q", "r"}[rng.IntN(3)] }
		ts := func() int64 {
			if rng.IntN(3) == 0 {
				return int64(999_990 + rng.IntN(30)) // around the region clock's now
			}
			return cell.LatestTimestamp
		}
		for i := range 600 {
			row := rows[rng.IntN(len(rows))]
			switch w := rng.IntN(20); {
			case w < 11:
				m := put(row, fam(), qual(), ts(), fmt.Sprint(i))
				if rng.IntN(4) == 0 {
					m.Cells = append(m.Cells, cell.Cell{Family: []byte(fam()), Qualifier: []byte(qual()), Timestamp: ts(), Value: []byte("x")})
				}
				mustMutate(t, r, m)
			case w < 15:
				typ := []cell.Type{cell.TypeDelete, cell.TypeDeleteColumn}[rng.IntN(2)]
				mustMutate(t, r, del(row, fam(), qual(), ts(), typ))
			case w < 16:
				mustMutate(t, r, Mutation{Type: MutationDelete, Row: []byte(row), Timestamp: ts()})
			case w < 18:
				if _, err := r.Increment(ctx, ReadModifyWrite{Row: []byte(row), Columns: []ColumnDelta{{Family: []byte("f2"), Qualifier: []byte("n"), Delta: 1}}}); err != nil {
					t.Fatal(err)
				}
			case w < 19:
				mustMutate(t, r, put(row, "f1", "p", ts(), "a"), put(rows[rng.IntN(len(rows))], "f2", "q", ts(), "b"))
			default:
				if err := r.Flush(ctx); err != nil {
					t.Fatal(err)
				}
			}
			g := Get{Row: []byte(row)}
			if got, want := mustGet(t, r, g), mustGet(t, r, Get{Row: []byte(row), StoreLimit: 1000}); got != want {
				t.Fatalf("seed %d, op %d: the cached region answered\n%s\nthe store\n%s", seed, i, got, want)
			}
		}
		st := c.Stats()
		if st.Patches == 0 || st.Hits < 100 {
			t.Errorf("seed %d: %+v: too few patches or hits to have checked them", seed, st)
		}
	}
}
