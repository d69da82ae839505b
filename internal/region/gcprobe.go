package region

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weirdb/weir/internal/storage"
)

// A region being loaded is surveyed again and again as it grows, and each
// survey reads every cell to find what the load's new rows cannot hold:
// garbage. In 1,000,000-row loads and reloads the surveys were 6-12% of
// the server's CPU samples (docs/performance.md, "The row cache after a
// drop, and probes instead of surveys"). Where garbage can only come from
// writes (no family has a TTL, and the garbage rules have not changed
// since the last full survey), the rows written since the last pass tell
// whether the writes made any: a probe reads a uniform sample of them
// instead of the whole region, and a region whose sampled rows hold no
// more garbage than a load's is taken to have grown by what was written,
// as a survey would have found.

// probeRows is how many written rows a probe reads. A write that
// overwrites or deletes leaves garbage in its row; a probe takes the
// writes for new cells when at most a tenth of its rows hold some, as a
// survey does when the live cells grew by nine tenths of the writes.
// Writes that mostly overwrite (YCSB's A and F) leave garbage in nearly
// every sampled row.
const probeRows = 64

// probeWait is how long a probe that found new rows waits for a write to
// show that the writes go on. A region being loaded takes none while the
// WAL's background sync or a memtable rotation holds the commits, up to a
// few hundred milliseconds (docs/performance.md, "Where the inserts'
// slowest requests fall"); at 20 ms, one first pass per 1,000,000-row load
// fell in such a stall and surveyed the whole region.
const probeWait = 500 * time.Millisecond

// writtenWithin reports whether a key is written from the last restart
// on, waiting up to d for one.
func (g *gcState) writtenWithin(ctx context.Context, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for g.written.Load() == 0 {
		if ctx.Err() != nil || time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

// rowSample is a uniform sample (reservoir sampling, Algorithm R) of the
// rows written since the region's last pass began.
type rowSample struct {
	seen atomic.Uint64
	mu   sync.Mutex
	rows [][]byte // stored rows; the slots' buffers are reused
}

// offer counts a written row into the sample. Most calls after the first
// probeRows take no lock.
func (s *rowSample) offer(row []byte) {
	n := s.seen.Add(1)
	j := n - 1
	if n > probeRows {
		if j = rand.Uint64N(n); j >= probeRows {
			return
		}
	}
	s.mu.Lock()
	if len(s.rows) < probeRows {
		s.rows = append(s.rows, append([]byte(nil), row...))
	} else {
		s.rows[j] = append(s.rows[j][:0], row...)
	}
	s.mu.Unlock()
}

// full returns a copy of the sample, or nil if fewer than probeRows rows
// were written.
func (s *rowSample) full() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.rows) < probeRows {
		return nil
	}
	rows := make([][]byte, len(s.rows))
	for i, r := range s.rows {
		rows[i] = append([]byte(nil), r...)
	}
	return rows
}

// reset starts a new sample. A write counted just before it may land in
// the new one: it is a write of about the same time.
func (s *rowSample) reset() {
	s.mu.Lock()
	s.rows = s.rows[:0]
	s.seen.Store(0)
	s.mu.Unlock()
}

// probeOK reports whether garbage in desc's region can come only from
// writes since the last full survey, which found the writes before it
// were new cells (grew): no family has a TTL, and the schema has not
// changed since (a lower VERSIONS or a dropped family makes garbage of
// cells no write touched).
func (r *Region) probeOK(desc *TableDescriptor) bool {
	if !r.gc.grew.Load() || !r.gc.liveKnown.Load() || r.gc.schemaChanged.Load() {
		return false
	}
	for i := range desc.Families {
		if desc.Families[i].ttlMillis() > 0 {
			return false
		}
	}
	return true
}

// garbageRulesChanged reports whether going from schema old to next may
// have made garbage of cells no write touched: a family dropped, or one
// whose versions, TTL or deleted-cell rules changed. The region server
// hands its regions their table's schema again at every change of the
// table's record (enable, disable), which must not rule probes out.
func garbageRulesChanged(old, next *TableDescriptor) bool {
	for i := range old.Families {
		o := &old.Families[i]
		n := next.Family(o.Name)
		if n == nil || n.MaxVersions != o.MaxVersions || n.MinVersions != o.MinVersions ||
			n.TTL != o.TTL || n.KeepDeletedCells != o.KeepDeletedCells {
			return true
		}
	}
	return false
}

// probe reads the sampled rows and reports whether their writes were new
// cells: at most a tenth of the rows hold garbage. st counts what it read.
func (r *Region) probe(rows [][]byte, desc *TableDescriptor, now int64) (st GCStats, grew bool, err error) {
	st.Probed = true
	garbageRows := 0
	var prefix []byte
	for _, row := range rows {
		prefix = storage.AppendRowPrefix(prefix[:0], r.info.TableID, row)
		keys, err := r.readRowKeys(prefix)
		if err != nil {
			return st, false, err
		}
		st.RowsScanned++
		if drops, _ := r.countGCRow(keys, desc, now, &st); len(drops) > 0 {
			garbageRows++
		}
	}
	return st, garbageRows*10 <= len(rows), nil
}

// probed records a probe that found the written keys were new cells: the
// region grew by them, as surveyed would have found, and its loose rows
// are left for when the writes stop, as a survey during writes leaves
// them.
func (g *gcState) probed(written uint64, loose bool) {
	g.backoff.Store(min(g.backoff.Load()+1, maxGCBackoff))
	g.grew.Store(true)
	g.cells.Add(written)
	g.live.Add(written)
	g.looseDue.Store(loose)
}
