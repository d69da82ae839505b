package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
)

// hbase:meta's layout, as HBase 2.6 writes it.
var (
	metaRegionName = []byte("hbase:meta,,1")
	metaInfoFamily = []byte("info")
	qualRegionInfo = []byte("regioninfo")
	qualServer     = []byte("server")
	metaTableFam   = []byte("table")
	qualState      = []byte("state")
	pbufMagic      = []byte("PBUF")
	metaNines      = "99999999999999" // HConstants.NINES
	metaZeroes     = "00000000000000" // HConstants.ZEROES
)

// regionLoc is one region of a table and where it is served.
type regionLoc struct {
	table   string // normalised: "t" in the default namespace, else "ns:t"
	name    []byte
	start   []byte
	end     []byte // empty: the table's last region
	server  string // host:port; "" when unassigned
	offline bool
	split   bool
	// specPB is spec's result, built on first use and shared by every
	// request to the region (encoding only reads it): one allocation
	// per location instead of two per request.
	specPB atomic.Pointer[hbasepb.RegionSpecifier]
}

func (r *regionLoc) contains(row []byte) bool {
	return bytes.Compare(row, r.start) >= 0 && (len(r.end) == 0 || bytes.Compare(row, r.end) < 0)
}

// containsBefore reports whether the region holds rows just below key (the
// region a reversed scan moves to from a region starting at key); an empty
// key is the end of the table.
func (r *regionLoc) containsBefore(key []byte) bool {
	if len(key) == 0 {
		return len(r.end) == 0
	}
	return bytes.Compare(r.start, key) < 0 && (len(r.end) == 0 || bytes.Compare(r.end, key) >= 0)
}

func (r *regionLoc) spec() *hbasepb.RegionSpecifier {
	if p := r.specPB.Load(); p != nil {
		return p
	}
	p := &hbasepb.RegionSpecifier{Type: hbasepb.RegionSpecifier_REGION_NAME.Enum(), Value: r.name}
	r.specPB.Store(p)
	return p
}

// regionCache caches region locations per table, sorted by start key.
type regionCache struct {
	mu struct {
		sync.Mutex
		tables map[string][]*regionLoc
	}
}

func newRegionCache() *regionCache {
	rc := &regionCache{}
	rc.mu.tables = map[string][]*regionLoc{}
	return rc
}

// lookup returns the cached region of table holding row, or nil.
func (rc *regionCache) lookup(table string, row []byte) *regionLoc {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	locs := rc.mu.tables[table]
	i := sort.Search(len(locs), func(i int) bool { return bytes.Compare(locs[i].start, row) > 0 })
	if i == 0 {
		return nil
	}
	if l := locs[i-1]; l.contains(row) {
		return l
	}
	return nil
}

// lookupBefore returns the cached region holding the rows just below key
// (key empty: the last region), or nil.
func (rc *regionCache) lookupBefore(table string, key []byte) *regionLoc {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	locs := rc.mu.tables[table]
	if len(key) == 0 {
		if n := len(locs); n > 0 && len(locs[n-1].end) == 0 {
			return locs[n-1]
		}
		return nil
	}
	i := sort.Search(len(locs), func(i int) bool { return bytes.Compare(locs[i].start, key) >= 0 })
	if i == 0 {
		return nil
	}
	if l := locs[i-1]; l.containsBefore(key) {
		return l
	}
	return nil
}

// add caches l, dropping the cached regions it overlaps.
func (rc *regionCache) add(l *regionLoc) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	locs := rc.mu.tables[l.table]
	locs = slices.DeleteFunc(slices.Clone(locs), func(o *regionLoc) bool {
		return (len(l.end) == 0 || bytes.Compare(o.start, l.end) < 0) && (len(o.end) == 0 || bytes.Compare(l.start, o.end) < 0)
	})
	i := sort.Search(len(locs), func(i int) bool { return bytes.Compare(locs[i].start, l.start) > 0 })
	locs = slices.Insert(locs, i, l)
	rc.mu.tables[l.table] = locs
}

// invalidate drops l (matched by region name) from the cache.
func (rc *regionCache) invalidate(l *regionLoc) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	locs := rc.mu.tables[l.table]
	rc.mu.tables[l.table] = slices.DeleteFunc(slices.Clone(locs), func(o *regionLoc) bool { return bytes.Equal(o.name, l.name) })
}

// invalidateServer drops every region cached as served by addr.
func (rc *regionCache) invalidateServer(addr string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for t, locs := range rc.mu.tables {
		rc.mu.tables[t] = slices.DeleteFunc(slices.Clone(locs), func(o *regionLoc) bool { return o.server == addr })
	}
}

// invalidateTable forgets every region of table.
func (rc *regionCache) invalidateTable(table string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	delete(rc.mu.tables, table)
}

// parseMetaRow reads a region's hbase:meta row: info:regioninfo ("PBUF" +
// RegionInfo) and info:server. ok is false for rows that are not region
// rows (no info:regioninfo).
func parseMetaRow(cells []cell.Cell) (loc *regionLoc, ok bool, err error) {
	var info []byte
	var server string
	var row []byte
	for i := range cells {
		c := &cells[i]
		if !bytes.Equal(c.Family, metaInfoFamily) {
			continue
		}
		row = c.Row
		switch {
		case bytes.Equal(c.Qualifier, qualRegionInfo) && info == nil:
			info = c.Value
		case bytes.Equal(c.Qualifier, qualServer) && server == "":
			server = string(c.Value)
		}
	}
	if info == nil {
		return nil, false, nil
	}
	if !bytes.HasPrefix(info, pbufMagic) {
		return nil, false, fmt.Errorf("client: hbase:meta row %q: info:regioninfo lacks the PBUF magic", row)
	}
	var ri hbasepb.RegionInfo
	if err := proto.Unmarshal(info[len(pbufMagic):], &ri); err != nil {
		return nil, false, fmt.Errorf("client: hbase:meta row %q: info:regioninfo: %w", row, err)
	}
	return &regionLoc{
		table:   tableString(ri.GetTableName()),
		name:    bytes.Clone(row),
		start:   bytes.Clone(ri.GetStartKey()),
		end:     bytes.Clone(ri.GetEndKey()),
		server:  server,
		offline: ri.GetOffline(),
		split:   ri.GetSplit(),
	}, true, nil
}

// tableString renders a TableName as hbase:meta row keys do.
func tableString(tn *hbasepb.TableName) string {
	ns := string(tn.GetNamespace())
	if ns == "" || ns == "default" {
		return string(tn.GetQualifier())
	}
	return ns + ":" + string(tn.GetQualifier())
}

// normTable normalises a user-given table name: "default:t" is "t".
func normTable(name string) string {
	return strings.TrimPrefix(name, "default:")
}

// tableNamePB splits "ns:t" (or "t") into HBase's TableName.
func tableNamePB(name string) *hbasepb.TableName {
	ns, q, ok := strings.Cut(name, ":")
	if !ok {
		ns, q = "default", name
	}
	return &hbasepb.TableName{Namespace: []byte(ns), Qualifier: []byte(q)}
}

// locate returns the region of table holding row (before: the region
// holding the rows just below row, row empty meaning the table's end),
// from the cache unless reload.
func (c *Conn) locate(ctx context.Context, table string, row []byte, before, reload bool) (*regionLoc, error) {
	if !reload {
		var l *regionLoc
		if before {
			l = c.regions.lookupBefore(table, row)
		} else {
			l = c.regions.lookup(table, row)
		}
		if l != nil {
			return l, nil
		}
	}
	l, err := c.locateInMeta(ctx, table, row, before)
	if err != nil {
		return nil, err
	}
	c.regions.add(l)
	return l, nil
}

// locateInMeta does HBase's lookup: a reversed scan of hbase:meta from
// "<table>,<row>,99999999999999" down to "<table>,," (inclusive), family
// info, caching 5; the first region row found is the answer.
func (c *Conn) locateInMeta(ctx context.Context, table string, row []byte, before bool) (*regionLoc, error) {
	suffix := metaNines
	if before && len(row) > 0 {
		suffix = metaZeroes
	}
	start := []byte(table + ",")
	start = append(start, row...)
	start = append(start, ","+suffix...)
	scan := &hbasepb.Scan{
		StartRow: start, StopRow: []byte(table + ",,"), IncludeStopRow: proto.Bool(true),
		Reversed: proto.Bool(true), Column: []*hbasepb.Column{{Family: metaInfoFamily}},
		Caching: proto.Uint32(5), ReadType: hbasepb.Scan_PREAD.Enum(),
	}
	results, err := c.scanMetaOnce(ctx, scan, 5)
	if err != nil {
		return nil, fmt.Errorf("looking up %s in hbase:meta: %w", table, err)
	}
	for _, r := range results {
		l, ok, err := parseMetaRow(r.Cells)
		if err != nil {
			return nil, permanent(err)
		}
		if !ok {
			continue
		}
		if l.table != table {
			break
		}
		if l.split {
			return nil, fmt.Errorf("%w: %s is a split parent", errRegionHole, l.name)
		}
		if (before && !l.containsBefore(row)) || (!before && !l.contains(row)) {
			return nil, fmt.Errorf("%w: %s holds [%q, %q), not %q", errRegionHole, l.name, l.start, l.end, row)
		}
		if l.offline || l.server == "" {
			if st, err := c.tableState(ctx, table); err == nil && (st == hbasepb.TableState_DISABLED || st == hbasepb.TableState_DISABLING) {
				return nil, permanent(fmt.Errorf("%w: %s", ErrTableDisabled, table))
			}
			if l.offline {
				return nil, fmt.Errorf("%w: %s", ErrRegionOffline, l.name)
			}
			return nil, fmt.Errorf("%w: %s", ErrNoServerForRegion, l.name)
		}
		return l, nil
	}
	return nil, permanent(fmt.Errorf("%w: %s (no region in hbase:meta)", ErrTableNotFound, table))
}

// scanMetaOnce opens a scanner on hbase:meta, takes its first batch of
// up to n rows and closes it.
func (c *Conn) scanMetaOnce(ctx context.Context, scan *hbasepb.Scan, n uint32) ([]*Result, error) {
	addr := c.metaServer()
	req := &hbasepb.ScanRequest{
		Region: &hbasepb.RegionSpecifier{Type: hbasepb.RegionSpecifier_REGION_NAME.Enum(), Value: metaRegionName},
		Scan:   scan, NumberOfRows: proto.Uint32(n), ClientHandlesPartials: proto.Bool(true),
	}
	var resp hbasepb.ScanResponse
	var cells []cell.Cell
	if err := c.call(ctx, addr, svcClient, "Scan", req, nil, &resp, &cells); err != nil {
		if classify(err) == retryRelocate {
			c.rediscover(ctx)
		}
		return nil, err
	}
	results, err := scanResults(&resp, cells, nil)
	if err != nil {
		return nil, permanent(err)
	}
	if resp.GetMoreResultsInRegion() && resp.ScannerId != nil {
		_ = c.call(ctx, addr, svcClient, "Scan", &hbasepb.ScanRequest{ScannerId: resp.ScannerId, CloseScanner: proto.Bool(true)}, nil, nil, nil)
	}
	return results, nil
}

// rediscover refreshes the master and hbase:meta locations after a
// failure talking to them; errors are left for the retry to meet.
func (c *Conn) rediscover(ctx context.Context) {
	if err := c.discover(ctx); err != nil {
		c.opts.Logger.Debug("client: rediscovery failed", "err", err)
	}
}

// tableState reads table:state of table's hbase:meta row.
func (c *Conn) tableState(ctx context.Context, table string) (hbasepb.TableState_State, error) {
	req := &hbasepb.GetRequest{
		Region: &hbasepb.RegionSpecifier{Type: hbasepb.RegionSpecifier_REGION_NAME.Enum(), Value: metaRegionName},
		Get:    &hbasepb.Get{Row: []byte(table), Column: []*hbasepb.Column{{Family: metaTableFam, Qualifier: [][]byte{qualState}}}},
	}
	var resp hbasepb.GetResponse
	var cells []cell.Cell
	if err := c.call(ctx, c.metaServer(), svcClient, "Get", req, nil, &resp, &cells); err != nil {
		return 0, err
	}
	res, _, err := resultFromPB(resp.GetResult(), cells)
	if err != nil {
		return 0, err
	}
	v := res.Value(metaTableFam, qualState)
	if v == nil {
		return 0, fmt.Errorf("%w: %s", ErrTableNotFound, table)
	}
	var ts hbasepb.TableState
	if err := proto.Unmarshal(v, &ts); err != nil {
		return 0, fmt.Errorf("client: table:state of %s: %w", table, err)
	}
	return ts.GetState(), nil
}

// relocateAfter drops what err says is stale: the region's location, and
// for a broken connection every region of that server.
func (c *Conn) relocateAfter(err error, l *regionLoc) {
	if l == nil || classify(err) != retryRelocate {
		return
	}
	c.regions.invalidate(l)
	if classOf(err) == "" && !errors.Is(err, errRegionHole) {
		c.regions.invalidateServer(l.server)
	}
}
