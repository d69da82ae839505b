package region

import (
	"context"
	"fmt"
	"sync"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/storage"
)

// MutationType is HBase's MutationType for Put and Delete.
type MutationType uint8

const (
	MutationPut MutationType = iota
	MutationDelete
)

func (t MutationType) String() string {
	if t == MutationDelete {
		return "DELETE"
	}
	return "PUT"
}

// Mutation is one row's Put or Delete.
//
// A Put's cells carry Family, Qualifier, Value and Timestamp
// (cell.LatestTimestamp: the server's clock). A Delete's cells carry Family,
// Qualifier, Timestamp and Type: TypeDelete (one version; at
// LatestTimestamp, the newest visible one), TypeDeleteColumn,
// TypeDeleteFamily or TypeDeleteFamilyVersion (which needs a timestamp). A
// Delete without cells deletes the whole row: a DeleteFamily at Timestamp
// on every family.
type Mutation struct {
	Type       MutationType
	Row        []byte
	Cells      []cell.Cell
	Timestamp  int64 // whole-row delete only; 0 or LatestTimestamp = now
	Durability Durability
}

// ValidateMutation checks m against the region and schema without writing.
// The RPC layer uses it to reject bad actions of a batch one by one.
func (r *Region) ValidateMutation(m *Mutation) error {
	if err := r.checkRow(m.Row); err != nil {
		return err
	}
	desc := r.Descriptor()
	if desc.ReadOnly {
		return invalidf("table %q is read-only", desc.Name)
	}
	if m.Durability > FsyncWAL {
		return invalidf("bad durability %d", m.Durability)
	}
	switch m.Type {
	case MutationPut:
		if len(m.Cells) == 0 {
			return invalidf("put of row %q has no cells", m.Row)
		}
	case MutationDelete:
		if len(m.Cells) == 0 {
			if err := checkTimestamp(m.Timestamp, true); err != nil && m.Timestamp != 0 {
				return err
			}
		}
	default:
		return invalidf("unknown mutation type %d", m.Type)
	}
	for i := range m.Cells {
		c := &m.Cells[i]
		if desc.Family(c.Family) == nil {
			return fmt.Errorf("%w: %q in table %q", ErrNoSuchFamily, c.Family, desc.Name)
		}
		if err := checkTimestamp(c.Timestamp, true); err != nil {
			return err
		}
		if len(m.Row)+len(c.Family)+len(c.Qualifier)+len(c.Value) > r.opts.MaxCellSize {
			return invalidf("cell %s:%s of row %q is %d bytes, over the %d byte limit",
				c.Family, c.Qualifier, m.Row, len(m.Row)+len(c.Family)+len(c.Qualifier)+len(c.Value), r.opts.MaxCellSize)
		}
		if m.Type == MutationPut {
			continue
		}
		switch c.Type {
		case cell.TypeDelete, cell.TypeDeleteColumn:
		case cell.TypeDeleteFamily:
			if len(c.Qualifier) > 0 {
				return invalidf("DeleteFamily of %q carries a qualifier", c.Family)
			}
		case cell.TypeDeleteFamilyVersion:
			if len(c.Qualifier) > 0 {
				return invalidf("DeleteFamilyVersion of %q carries a qualifier", c.Family)
			}
			if c.Timestamp == cell.LatestTimestamp {
				return invalidf("DeleteFamilyVersion of %q needs an explicit timestamp", c.Family)
			}
		default:
			return invalidf("cell type %s is not a delete", c.Type)
		}
		if len(c.Value) > 0 {
			return invalidf("delete of %s:%s carries a value", c.Family, c.Qualifier)
		}
	}
	return nil
}

func checkTimestamp(ts int64, latestOK bool) error {
	if ts < 0 {
		return invalidf("timestamp %d is negative", ts)
	}
	if ts == cell.LatestTimestamp && !latestOK {
		return invalidf("timestamp %d is reserved (LATEST_TIMESTAMP)", ts)
	}
	return nil
}

// Mutate validates every mutation, then applies them all in one atomic
// batch: readers see all or none. Nothing is written if any is invalid.
func (r *Region) Mutate(ctx context.Context, muts ...Mutation) error {
	if err := r.enter(); err != nil {
		return err
	}
	defer r.gate.RUnlock()
	for i := range muts {
		if err := r.ValidateMutation(&muts[i]); err != nil {
			return err
		}
	}
	sc := mutateScratchPool.Get().(*mutateScratch)
	defer sc.release()
	for i := range muts {
		sc.reqs = append(sc.reqs, lockRequest{stripe: stripeOf(muts[i].Row), exclusive: needsRead(&muts[i])})
	}
	held, err := r.locks.acquire(ctx, sc.reqs, r.opts.RowLockTimeout)
	if err != nil {
		return err
	}
	defer held.release()
	b := r.engine.NewBatch()
	defer b.Close()
	wb := writeBuf{key: sc.key, put: sc.put}
	defer func() { sc.key, sc.put = wb.key, wb.put }()
	durability := UseDefault
	for i := range muts {
		if err := r.addMutation(ctx, b, &wb, &muts[i]); err != nil {
			return err
		}
		durability = max(durability, muts[i].Durability)
	}
	if err := r.commitMutations(b, durability, &wb, muts); err != nil {
		return err
	}
	r.requests.writes.Add(uint64(len(muts)))
	return nil
}

// needsRead reports whether applying m reads the row first (a Delete of
// the latest version), so it must hold the row exclusively.
func needsRead(m *Mutation) bool {
	if m.Type != MutationDelete {
		return false
	}
	for i := range m.Cells {
		if m.Cells[i].Type == cell.TypeDelete && m.Cells[i].Timestamp == cell.LatestTimestamp {
			return true
		}
	}
	return false
}

// commitMutations commits b, which holds muts, inside the row cache's
// write bracket of their rows (rowWrites); scratch is a key buffer the
// caller is done with, now the server timestamp addMutation gave the last
// mutation. A lone Put puts its row back in the cache patched with its
// cells (RowCache.endWrite) instead of leaving it to the next Get. The
// rows go into the sample a probe reads (gcprobe.go).
func (r *Region) commitMutations(b *storage.Batch, d Durability, wb *writeBuf, muts []Mutation) error {
	now := wb.now
	for i := range muts {
		r.gc.sample.offer(r.storedRow(muts[i].Row))
	}
	w := r.rowWrites(wb.key)
	defer func() { wb.key = w.key }()
	if len(muts) == 1 {
		m := &muts[0]
		epoch := r.cacheEpoch.Load()
		t := w.begin(m.Row)
		err := r.commit(b, d)
		var put []cell.Cell
		if err == nil && t.old != nil && m.Type == MutationPut {
			put = wb.put[:0]
			for _, c := range m.Cells {
				if c.Timestamp == cell.LatestTimestamp {
					c.Timestamp = now
				}
				c.Type = cell.TypePut
				put = append(put, c)
			}
			wb.put = put
		}
		w.end(m.Row, t, epoch, put)
		return err
	}
	for i := range muts {
		w.begin(muts[i].Row)
	}
	err := r.commit(b, d)
	for i := range muts {
		w.end(muts[i].Row, writeTicket{}, 0, nil)
	}
	return err
}

// commit writes b with the strongest of the mutations' durabilities, or
// the table's when they all said USE_DEFAULT (SYNC_WAL when it says
// USE_DEFAULT too); SYNC_WAL is an fsync unless WALHflush.
func (r *Region) commit(b *storage.Batch, d Durability) error {
	if d == UseDefault {
		d = r.Descriptor().Durability
	}
	if (d == UseDefault || d == SyncWAL) && !r.opts.WALHflush {
		d = FsyncWAL
	}
	r.writes.begin()
	err := b.Commit(d.storage())
	r.writes.end()
	if err != nil {
		return fmt.Errorf("region: %w", err)
	}
	r.gc.written.Add(uint64(b.Count()))
	return nil
}

// writeBuf is scratch space for encoding keys into a batch, and the
// server timestamp of the last mutation added.
type writeBuf struct {
	key []byte
	now int64
	// put is commitMutations' buffer for a lone Put's cells as the row
	// cache is patched with them (it copies them).
	put []cell.Cell
}

// mutateScratch is the memory of a Mutate call, reused by the next: fresh
// allocations are memory the CPU has not touched since the last garbage
// collection, and their first stores miss every cache (hbaserpc/recycle.go
// says more).
type mutateScratch struct {
	reqs []lockRequest
	key  []byte
	put  []cell.Cell
}

var mutateScratchPool = sync.Pool{New: func() any { return new(mutateScratch) }}

// maxScratchCells keeps a batch's scratch that grew past it out of the
// pool.
const maxScratchCells = 1024

func (sc *mutateScratch) release() {
	if cap(sc.reqs) > maxScratchCells || cap(sc.put) > maxScratchCells || cap(sc.key) > 64<<10 {
		return
	}
	// The cells alias the request's memory: keep none of it alive.
	clear(sc.put[:cap(sc.put)])
	sc.reqs, sc.key, sc.put = sc.reqs[:0], sc.key[:0], sc.put[:0]
	mutateScratchPool.Put(sc)
}

// addMutation encodes one validated mutation into b. The caller holds the
// row lock.
func (r *Region) addMutation(ctx context.Context, b *storage.Batch, wb *writeBuf, m *Mutation) error {
	now := r.clock.next(m.Row, r.opts.Now())
	wb.now = now
	tid := r.info.TableID
	row := r.storedRow(m.Row)
	if m.Type == MutationDelete && len(m.Cells) == 0 {
		ts := m.Timestamp
		if ts == 0 || ts == cell.LatestTimestamp {
			ts = now
		}
		for _, f := range r.Descriptor().Families {
			wb.key = storage.AppendCellKey(wb.key[:0], tid, row, f.Name, nil, ts, uint8(cell.TypeDeleteFamily))
			if err := b.Set(wb.key, nil); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range m.Cells {
		c := &m.Cells[i]
		ts, typ := c.Timestamp, cell.TypePut
		if m.Type == MutationDelete {
			typ = c.Type
		}
		if ts == cell.LatestTimestamp {
			ts = now
			if typ == cell.TypeDelete {
				latest, found, err := r.latestVersion(ctx, m.Row, c.Family, c.Qualifier)
				if err != nil {
					return err
				}
				if found {
					ts = latest
				}
			}
		}
		wb.key = storage.AppendCellKey(wb.key[:0], tid, row, c.Family, c.Qualifier, ts, uint8(typ))
		var err error
		if typ == cell.TypePut {
			err = b.Set(wb.key, c.Value)
		} else {
			err = b.Set(wb.key, nil)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// latestVersion returns the timestamp of the newest visible version of a
// column, as HBase resolves a Delete of "the latest version".
func (r *Region) latestVersion(ctx context.Context, row, family, qualifier []byte) (int64, bool, error) {
	buf := getBufferPool.Get().(*GetBuffer)
	defer getBufferPool.Put(buf)
	res, err := r.getLocked(ctx, Get{Row: row, Columns: []Columns{{Family: family, Qualifiers: [][]byte{qualifier}}}}, buf)
	if err != nil || len(res.Cells) == 0 {
		return 0, false, err
	}
	return res.Cells[0].Timestamp, true, nil
}

// getLocked is Get for callers already inside the region's gate. With
// buf, the result's cells live in buf (see GetInto); without, they own
// their memory.
func (r *Region) getLocked(ctx context.Context, g Get, buf *GetBuffer) (Result, error) {
	q, err := r.newQuery(g.Columns, g.TimeRange, g.MaxVersions, g.Filter, false, g.StoreLimit, g.StoreOffset)
	if err != nil {
		return Result{}, err
	}
	st := getStatePool.Get().(*getState)
	defer st.release()
	// The cache generation before the schema: see Region.cacheEpoch.
	epoch := r.cacheEpoch.Load()
	use := r.rowCacheUse(&q, &g, r.Descriptor())
	var token uint64
	if use != noCache {
		st.cacheKey = appendRowCacheKey(st.cacheKey[:0], r.cacheID, g.Row)
		var out []cell.Cell
		var arena []byte
		if buf != nil {
			out, arena = buf.cells[:0], buf.arena[:0]
		}
		cols := g.Columns
		cells, arena, tok, hit := r.opts.RowCache.lookup(st.cacheKey, epoch, g.Row, out, arena,
			func(family, qualifier []byte) bool { return wanted(cols, family, qualifier) })
		if hit {
			if buf != nil {
				buf.arena, buf.cells = arena, cells[:0]
			}
			return Result{Cells: cells, Exists: len(cells) > 0}, nil
		}
		token = tok
	}
	st.prefix = storage.AppendRowPrefix(st.prefix[:0], r.info.TableID, r.storedRow(g.Row))
	// Unbounded: the read keeps to the row by prefix iteration (seekGE),
	// and pooled iterators then need no new bounds.
	it, err := r.engine.NewPooledIter(storage.IterOptions{})
	if err != nil {
		return Result{}, err
	}
	defer it.Close()
	st.q = q
	st.rr.reset(r, &st.q, it)
	st.rr.pointRead = true
	if r.opts.RowOrder == nil {
		st.rr.pointRow = g.Row
	}
	if buf != nil {
		st.rr.arena, st.rr.outBuf = buf.arena[:0], buf.cells[:0]
	}
	cells, err := st.rr.readFilteredRow(st.prefix)
	if use == cacheFill && err == nil && r.opts.RowCache.admit(st.cacheKey, st.rr.passed) {
		r.opts.RowCache.fill(st.cacheKey, epoch, token, cells, st.rr.maxTS)
	}
	switch {
	case buf != nil:
		buf.arena, buf.cells = st.rr.arena, cells[:0]
		if n := len(g.Row) + cellBytes(cells); cap(buf.arena) < n {
			// The row did not fit one chunk: make the next one fit.
			buf.arena = make([]byte, 0, n)
		}
	case len(cells) > 0:
		// Size the next Get's allocations by this row: rows of a table
		// tend to look alike.
		st.rr.cellsHint, st.rr.arenaHint = len(cells), len(g.Row)+cellBytes(cells)
	}
	return Result{Cells: cells, Exists: len(cells) > 0}, err
}

// cellBytes is the qualifier and value bytes of cells.
func cellBytes(cells []cell.Cell) int {
	n := 0
	for i := range cells {
		n += len(cells[i].Qualifier) + len(cells[i].Value)
	}
	return n
}

// getState is the scratch of one point read, pooled: a Get then allocates
// only what it returns.
type getState struct {
	q        query
	rr       rowReader
	prefix   []byte
	cacheKey []byte
}

var getStatePool = sync.Pool{New: func() any { return new(getState) }}

func (st *getState) release() {
	st.q = query{}
	st.rr.reset(nil, nil, nil)
	st.rr.pointRead = false
	getStatePool.Put(st)
}

// Replace atomically replaces the region's whole contents by the cells of
// puts (which need explicit timestamps): readers see the old contents or
// the new, never a mix. Materialised views (hbase:meta) use it.
func (r *Region) Replace(ctx context.Context, puts []Mutation) error {
	if err := r.enter(); err != nil {
		return err
	}
	defer r.gate.RUnlock()
	for i := range puts {
		if puts[i].Type != MutationPut {
			return invalidf("replace takes puts only")
		}
		if err := r.ValidateMutation(&puts[i]); err != nil {
			return err
		}
		for _, c := range puts[i].Cells {
			if c.Timestamp == cell.LatestTimestamp {
				return invalidf("replace needs explicit timestamps")
			}
		}
	}
	b := r.engine.NewBatch()
	defer b.Close()
	if err := b.DeleteRange(r.lower, r.upper); err != nil {
		return err
	}
	var wb writeBuf
	for i := range puts {
		if err := r.addMutation(ctx, b, &wb, &puts[i]); err != nil {
			return err
		}
	}
	// Every row may change: a new generation of cached rows before and
	// after (Ingest's reasoning).
	r.forgetCachedRows()
	defer r.forgetCachedRows()
	return r.commit(b, FsyncWAL)
}
