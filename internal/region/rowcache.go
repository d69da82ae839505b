package region

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/weirdb/weir/internal/cell"
)

// RowCache holds the visible cells of whole rows that Gets read, for the
// regions of one store, so a hot row is served without walking the LSM.
// Under a zipfian read load the hottest rows are also the ones that
// updates pile versions on, which every uncached read must seek past.
//
// An entry is the latest version of every column of a row whose table has
// no TTL (so the result cannot change with time), as a Get with no filter,
// time range or per-family limit reads it. A write to a row drops the
// row's entry before its commit and again after it, and no fill is kept
// in between; a Get fills the cache only if no write dropped an entry of
// its shard while it read. So once a write is visible to any Get, no later
// Get finds the row as it was before the write. A Put whose cells are all
// newer than anything the row held, alone in its shard for its commit,
// puts the row back patched with its cells instead (endWrite), so the rows
// that updates keep hot stay cached. All methods are safe for concurrent
// use.
//
// A read fills the cache at once with a row it had to step over keys of
// (admit), and with any other row only at its second miss in a while (the
// doorkeeper): a row stored as one image and nothing else costs a read one
// seek, which a hit barely beats, and caching every such row churns the
// heap. A table several times the cache's size, read at random after a
// compaction, missed half the time and every miss filled: the server spent
// 28.6 µs per Get with the cache and 17.3 without (docs/performance.md,
// "Which rows the row cache takes"). But a row read again soon is likely
// to be updated too (YCSB's read-modify-writes), and one cached by then is
// patched by the update rather than stepped over by the next read.
type RowCache struct {
	seed     maphash.Seed
	shards   [rowCacheShards]rowCacheShard
	perShard int64 // byte budget of each shard
	// regions hands each opened region its own key space, so a region
	// opened again (after a move away and back, a restore) never sees the
	// entries of its last incarnation.
	regions atomic.Uint64

	hits, misses, fills, patches, evictions, declined atomic.Uint64
	door                                              doorkeeper
	// admitAll makes every read fill (tests of the cache's consistency,
	// which want the rows they write cached whatever their shape).
	admitAll bool
}

const rowCacheShards = 32

// entryOverhead approximates an entry's bookkeeping beyond its bytes: the
// map slot, the entry struct and its list links.
const entryOverhead = 96

type rowCacheShard struct {
	mu sync.Mutex
	// drops counts the invalidations in this shard; a fill compares it with
	// the count before its read.
	drops atomic.Uint64
	// writing counts the writes to rows of this shard between their
	// beginWrite and endWrite; no fill is kept while one is.
	writing int
	m       map[string]*rowCacheEntry
	// peak is the most entries m has held since it was made: a Go map
	// keeps the slots of its peak, and every write looks its row up in it.
	peak  int
	bytes int64
	// lru is a circular list through a sentinel: lru.next is the most
	// recently used entry, lru.prev the next to evict.
	lru rowCacheEntry
	_   [64]byte // keep shards' locks off each other's cache lines
}

type rowCacheEntry struct {
	key   string
	epoch uint64 // the region's cache generation the row was read in
	// maxTS is the greatest timestamp of any key the row held when it was
	// read (delete markers and hidden versions included): a put newer than
	// it is visible and the newest of its column.
	maxTS int64
	// data holds the cells one after the other (appendCachedCell), so an
	// entry costs its bytes and a few per cell, not a cell.Cell each.
	data       []byte
	need       int // the family, qualifier and value bytes of all cells
	size       int64
	prev, next *rowCacheEntry
}

// appendCachedCell encodes c (its row left out) for rowCacheEntry.data:
// the family, qualifier and value lengths as uvarints, the timestamp, the
// type, then the three byte strings.
func appendCachedCell(dst []byte, c *cell.Cell) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(c.Family)))
	dst = binary.AppendUvarint(dst, uint64(len(c.Qualifier)))
	dst = binary.AppendUvarint(dst, uint64(len(c.Value)))
	dst = binary.BigEndian.AppendUint64(dst, uint64(c.Timestamp))
	dst = append(dst, byte(c.Type))
	dst = append(dst, c.Family...)
	dst = append(dst, c.Qualifier...)
	return append(dst, c.Value...)
}

func uvarintLen(n int) int {
	l := 1
	for ; n >= 0x80; n >>= 7 {
		l++
	}
	return l
}

// nextCachedCell decodes the cell at the start of data into c, its byte
// strings aliasing data, and returns the rest. data is what
// appendCachedCell wrote, so it is not checked.
func nextCachedCell(data []byte, c *cell.Cell) []byte {
	fl, n := binary.Uvarint(data)
	data = data[n:]
	ql, n := binary.Uvarint(data)
	data = data[n:]
	vl, n := binary.Uvarint(data)
	data = data[n:]
	c.Timestamp = int64(binary.BigEndian.Uint64(data))
	c.Type = cell.Type(data[8])
	data = data[9:]
	c.Family, data = data[:fl:fl], data[fl:]
	c.Qualifier, data = data[:ql:ql], data[ql:]
	c.Value, data = data[:vl:vl], data[vl:]
	return data
}

// NewRowCache returns a cache of about size bytes, or nil (no cache) for
// size <= 0.
func NewRowCache(size int64) *RowCache {
	if size <= 0 {
		return nil
	}
	c := &RowCache{seed: maphash.MakeSeed(), perShard: max(size/rowCacheShards, 1)}
	for i := range c.shards {
		s := &c.shards[i]
		s.m = make(map[string]*rowCacheEntry)
		s.lru.next, s.lru.prev = &s.lru, &s.lru
	}
	return c
}

// RowCacheStats are a cache's counters since it was made and its size now.
type RowCacheStats struct {
	Hits, Misses, Fills, Patches, Evictions uint64
	// Declined counts the reads whose row the cache did not take (admit).
	Declined uint64
	Bytes    int64
	Entries  int
}

// Stats returns the cache's counters.
func (c *RowCache) Stats() RowCacheStats {
	st := RowCacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), Fills: c.fills.Load(), Patches: c.patches.Load(), Evictions: c.evictions.Load(), Declined: c.declined.Load()}
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		st.Bytes += s.bytes
		st.Entries += len(s.m)
		s.mu.Unlock()
	}
	return st
}

// newRegionID returns a key space for a region being opened.
func (c *RowCache) newRegionID() uint64 { return c.regions.Add(1) }

// appendKey appends the cache key of row in the region key space id.
func appendRowCacheKey(dst []byte, id uint64, row []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, id)
	return append(dst, row...)
}

func (c *RowCache) shard(key []byte) *rowCacheShard {
	return &c.shards[maphash.Bytes(c.seed, key)%rowCacheShards]
}

// lookup copies the cached cells of key into out and arena (the caller's
// buffers, as the row reader fills them), with Row set to row. ok is false
// on a miss; token is then what fill needs.
func (c *RowCache) lookup(key []byte, epoch uint64, row []byte, out []cell.Cell, arena []byte, keep func(family, qualifier []byte) bool) (cells []cell.Cell, a []byte, token uint64, ok bool) {
	s := c.shard(key)
	// Read before the row is: a drop after this makes the fill fail.
	token = s.drops.Load()
	ok = c.withEntry(s, key, epoch, func(e *rowCacheEntry) {
		if cap(arena)-len(arena) < e.need {
			// A new chunk: cells already handed out keep the old one.
			arena = make([]byte, 0, e.need)
		}
		var src cell.Cell
		for data := e.data; len(data) > 0; {
			data = nextCachedCell(data, &src)
			if !keep(src.Family, src.Qualifier) {
				continue
			}
			start := len(arena)
			arena = append(arena, src.Family...)
			arena = append(arena, src.Qualifier...)
			arena = append(arena, src.Value...)
			f := start + len(src.Family)
			q := f + len(src.Qualifier)
			out = append(out, cell.Cell{Row: row, Family: arena[start:f:f], Qualifier: arena[f:q:q],
				Timestamp: src.Timestamp, Type: src.Type, Value: arena[q:len(arena):len(arena)]})
		}
	})
	return out, arena, token, ok
}

// each calls fn, under the shard's lock, for every cached cell of key's
// row (Row not set; the slices are the entry's, valid during the call
// only), and reports whether the row was cached. The cell is passed by
// value: a pointer handed to an unknown function would put it on the heap.
func (c *RowCache) each(key []byte, epoch uint64, fn func(c cell.Cell)) bool {
	return c.withEntry(c.shard(key), key, epoch, func(e *rowCacheEntry) {
		var cc cell.Cell
		for data := e.data; len(data) > 0; {
			data = nextCachedCell(data, &cc)
			fn(cc)
		}
	})
}

// withEntry calls fn with key's entry of generation epoch under its shard
// s's lock, marking it used and counting a hit, and reports whether there
// was one (a miss is counted).
func (c *RowCache) withEntry(s *rowCacheShard, key []byte, epoch uint64, fn func(e *rowCacheEntry)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.m[string(key)]
	if e == nil || e.epoch != epoch {
		c.misses.Add(1)
		return false
	}
	s.touch(e)
	fn(e)
	c.hits.Add(1)
	return true
}

// fill caches cells, read in the region's cache generation epoch from a
// row whose newest key has timestamp maxTS, as key's row unless a drop in
// its shard happened since token was taken.
// admit reports whether a read of the row cached under key, which stepped
// over passed keys of it, should fill the cache with it.
func (c *RowCache) admit(key []byte, passed int) bool {
	if passed > 0 || c.admitAll || c.door.seen(maphash.Bytes(c.seed, key)) {
		return true
	}
	c.declined.Add(1)
	return false
}

func (c *RowCache) fill(key []byte, epoch, token uint64, cells []cell.Cell, maxTS int64) {
	e := c.newEntry(key, epoch, cells, maxTS)
	if e == nil {
		return
	}
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.drops.Load() != token || s.writing > 0 {
		return // a write to this shard may have raced the read
	}
	c.installLocked(s, e)
	c.fills.Add(1)
}

// newEntry encodes cells as an entry, or returns nil for a row so big it
// would sweep its shard.
func (c *RowCache) newEntry(key []byte, epoch uint64, cells []cell.Cell, maxTS int64) *rowCacheEntry {
	n, need := 0, 0
	for i := range cells {
		need += cachedCellNeed(&cells[i])
		n += cachedCellLen(&cells[i])
	}
	if int64(len(key)+n)+entryOverhead > c.perShard/4 {
		return nil
	}
	e := &rowCacheEntry{key: string(key), epoch: epoch, maxTS: maxTS, data: make([]byte, 0, n), need: need}
	for i := range cells {
		e.data = appendCachedCell(e.data, &cells[i])
	}
	e.size = int64(len(key)+cap(e.data)) + entryOverhead
	return e
}

// installLocked makes e its key's entry and evicts down to the budget.
func (c *RowCache) installLocked(s *rowCacheShard, e *rowCacheEntry) {
	if old := s.m[e.key]; old != nil {
		s.remove(old)
	}
	s.m[e.key] = e
	s.peak = max(s.peak, len(s.m))
	s.bytes += e.size
	s.pushFront(e)
	for s.bytes > c.perShard && s.lru.prev != &s.lru {
		s.remove(s.lru.prev)
		c.evictions.Add(1)
	}
}

// dropRegion removes every entry of the region key space id, whose region
// has closed, and makes a shard's map anew when it is left with under a
// quarter of its peak. A dropped table's rows would otherwise sit in the
// cache until evicted, and the writes of the next load would look their
// rows up in maps sized for them: in the side-by-side's reload, 256 MiB of
// them cost 2.5% of the server's CPU (docs/performance.md).
func (c *RowCache) dropRegion(id uint64) {
	var prefix [8]byte
	binary.BigEndian.PutUint64(prefix[:], id)
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		for e := s.lru.next; e != &s.lru; {
			next := e.next
			if strings.HasPrefix(e.key, string(prefix[:])) {
				s.remove(e)
			}
			e = next
		}
		if len(s.m) < s.peak/4 {
			m := make(map[string]*rowCacheEntry, len(s.m))
			for k, e := range s.m {
				m[k] = e
			}
			s.m, s.peak = m, len(m)
		}
		s.mu.Unlock()
	}
}

// writeTicket is what beginWrite saw, for the endWrite of the same write.
type writeTicket struct {
	old   *rowCacheEntry // the entry beginWrite removed; nil if none
	drops uint64         // the shard's drops count after beginWrite
}

// beginWrite removes key's row and keeps its shard from filling until the
// matching endWrite. Writers call it before their commit makes the write
// visible, and endWrite after the commit, before they acknowledge: no
// Get can then see the write in the store and a cached row older than it
// afterwards.
func (c *RowCache) beginWrite(key []byte) writeTicket {
	s := c.shard(key)
	s.mu.Lock()
	s.writing++
	t := writeTicket{old: s.dropLocked(key)}
	t.drops = s.drops.Load()
	s.mu.Unlock()
	return t
}

// endWrite ends beginWrite's window for key, dropping the row again. With
// put, the cells of the one Put the window committed (timestamps as
// written), it instead puts the row back as the commit left it, the entry
// beginWrite removed patched with put, when that is sure to be right: the
// entry was of the region's current generation epoch, nothing else was
// dropped from or written to the shard during the window (so the entry
// was the row just before the commit, and no other write is in it), and
// every cell of put is newer than any key the row held (so each is
// visible, whatever delete markers the row has, and the newest of its
// column).
func (c *RowCache) endWrite(key []byte, t writeTicket, epoch uint64, put []cell.Cell) {
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writing--
	alone := s.drops.Load() == t.drops && s.writing == 0
	s.dropLocked(key)
	if put == nil || !alone || t.old == nil || t.old.epoch != epoch {
		return
	}
	if e := c.patched(t.old, put); e != nil {
		c.installLocked(s, e)
		c.patches.Add(1)
	}
}

// patched returns old with the cells of put written over it, or nil when
// a cell of put is not newer than every key old's row held, or the row
// grows too big. It sorts put. The old cells are copied as encoded, so a
// patch costs the new entry and its bytes, nothing per cell.
func (c *RowCache) patched(old *rowCacheEntry, put []cell.Cell) *rowCacheEntry {
	maxTS := old.maxTS
	grow := 0
	for i := range put {
		if put[i].Timestamp <= old.maxTS || put[i].Type != cell.TypePut {
			return nil
		}
		maxTS = max(maxTS, put[i].Timestamp)
		grow += cachedCellLen(&put[i])
	}
	put = newestPerColumn(put)
	if patchInPlace(old, put) {
		old.maxTS = maxTS
		return old
	}
	data := make([]byte, 0, len(old.data)+grow)
	need := old.need
	var cc cell.Cell
	for rest := old.data; len(rest) > 0; {
		next := nextCachedCell(rest, &cc)
		for len(put) > 0 && compareColumns(&put[0], &cc) < 0 {
			data = appendCachedCell(data, &put[0])
			need += cachedCellNeed(&put[0])
			put = put[1:]
		}
		if len(put) > 0 && compareColumns(&put[0], &cc) == 0 {
			// The put is newer than anything the row held: it is the
			// column's latest version now.
			data = appendCachedCell(data, &put[0])
			need += len(put[0].Value) - len(cc.Value)
			put = put[1:]
		} else {
			data = append(data, rest[:len(rest)-len(next)]...)
		}
		rest = next
	}
	for i := range put {
		data = appendCachedCell(data, &put[i])
		need += cachedCellNeed(&put[i])
	}
	e := &rowCacheEntry{key: old.key, epoch: old.epoch, maxTS: maxTS, data: data, need: need}
	e.size = int64(len(e.key)+cap(data)) + entryOverhead
	if e.size > c.perShard/4 {
		return nil
	}
	return e
}

// patchInPlace writes the cells of put (sorted, one per column) over
// old's cells of the same columns when every one has a cell there of the
// same value length (YCSB's updates, a field rewritten with a value as
// long), and reports whether it did; it changes nothing otherwise. Only
// the writer holds old (beginWrite took it out of the cache), so no reader
// can see the entry half written, and an update costs no copy of the row.
func patchInPlace(old *rowCacheEntry, put []cell.Cell) bool {
	const most = 16
	if len(put) > most {
		return false
	}
	var at [most]int // where each put cell's timestamp goes in old.data
	var cc cell.Cell
	j := 0
	for off := 0; off < len(old.data) && j < len(put); {
		rest := nextCachedCell(old.data[off:], &cc)
		switch c := compareColumns(&put[j], &cc); {
		case c < 0:
			return false // a column old does not have
		case c == 0:
			if len(put[j].Value) != len(cc.Value) {
				return false
			}
			at[j] = off + uvarintLen(len(cc.Family)) + uvarintLen(len(cc.Qualifier)) + uvarintLen(len(cc.Value))
			j++
		}
		off = len(old.data) - len(rest)
	}
	if j < len(put) {
		return false
	}
	for i := range put {
		c := &put[i]
		b := old.data[at[i]:]
		binary.BigEndian.PutUint64(b, uint64(c.Timestamp))
		b[8] = byte(c.Type)
		copy(b[9+len(c.Family)+len(c.Qualifier):], c.Value)
	}
	return true
}

// newestPerColumn sorts cells by column and keeps one per column: the one
// with the greatest timestamp, of equal ones the last in cells (a batch
// that writes one key twice keeps the second value).
func newestPerColumn(cells []cell.Cell) []cell.Cell {
	if len(cells) < 2 {
		return cells
	}
	slices.SortStableFunc(cells, func(a, b cell.Cell) int { return compareColumns(&a, &b) })
	out := cells[:1]
	for i := 1; i < len(cells); i++ {
		last := &out[len(out)-1]
		switch {
		case compareColumns(last, &cells[i]) != 0:
			out = append(out, cells[i])
		case cells[i].Timestamp >= last.Timestamp:
			*last = cells[i]
		}
	}
	return out
}

func compareColumns(a, b *cell.Cell) int {
	return cmp.Or(bytes.Compare(a.Family, b.Family), bytes.Compare(a.Qualifier, b.Qualifier))
}

// cachedCellNeed is the family, qualifier and value bytes of c: what a
// lookup copies out of its entry (rowCacheEntry.need).
func cachedCellNeed(c *cell.Cell) int { return len(c.Family) + len(c.Qualifier) + len(c.Value) }

// cachedCellLen is the size appendCachedCell encodes c in.
func cachedCellLen(c *cell.Cell) int {
	return uvarintLen(len(c.Family)) + uvarintLen(len(c.Qualifier)) + uvarintLen(len(c.Value)) + 9 + cachedCellNeed(c)
}

// dropLocked removes key's entry, returning it (nil if none), and counts
// the drop.
func (s *rowCacheShard) dropLocked(key []byte) *rowCacheEntry {
	s.drops.Add(1)
	e := s.m[string(key)]
	if e != nil {
		s.remove(e)
	}
	return e
}

func (s *rowCacheShard) pushFront(e *rowCacheEntry) {
	e.prev, e.next = &s.lru, s.lru.next
	s.lru.next.prev = e
	s.lru.next = e
}

func (s *rowCacheShard) touch(e *rowCacheEntry) {
	if s.lru.next == e {
		return
	}
	e.prev.next, e.next.prev = e.next, e.prev
	s.pushFront(e)
}

func (s *rowCacheShard) remove(e *rowCacheEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
	delete(s.m, e.key)
	s.bytes -= e.size
}
