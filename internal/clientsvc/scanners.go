package clientsvc

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weirdb/weir/internal/region"
)

// openScanner is a client's server-side scanner: HBase's RegionScanner
// behind a scanner id, with a lease that ends it when the client goes away.
type openScanner struct {
	id     uint64
	region *region.Region
	name   []byte // region name, for the client's checks

	// mu serialises the client's calls on this scanner (HBase allows one
	// at a time) and guards the fields below.
	mu       sync.Mutex
	sc       *region.Scanner
	scan     region.Scan
	maxBytes int64 // per response, from the client's max result size
	nextSeq  uint64
	rows     int // rows (or row parts) returned so far
	closed   bool
	lastUsed atomic.Int64 // unix nanos
}

// scannerTable holds the open scanners by id.
type scannerTable struct {
	lease  time.Duration
	nextID atomic.Uint64
	mu     struct {
		sync.Mutex
		byID map[uint64]*openScanner
	}
}

func newScannerTable(lease time.Duration) *scannerTable {
	t := &scannerTable{lease: lease}
	t.mu.byID = map[uint64]*openScanner{}
	// Ids start from a time-derived value so a restarted server does not
	// reuse ids its clients may still hold.
	t.nextID.Store(uint64(time.Now().UnixNano()) & (1<<52 - 1))
	return t
}

func (t *scannerTable) add(r *region.Region, name []byte, sc *region.Scanner, scan region.Scan, maxBytes int64) *openScanner {
	s := &openScanner{id: t.nextID.Add(1), region: r, name: name, sc: sc, scan: scan, maxBytes: maxBytes}
	s.lastUsed.Store(time.Now().UnixNano())
	t.mu.Lock()
	t.mu.byID[s.id] = s
	t.mu.Unlock()
	return s
}

func (t *scannerTable) get(id uint64) *openScanner {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.mu.byID[id]
}

// remove closes and forgets a scanner.
func (t *scannerTable) remove(id uint64) {
	t.mu.Lock()
	s := t.mu.byID[id]
	delete(t.mu.byID, id)
	t.mu.Unlock()
	if s != nil {
		s.close()
	}
}

func (s *openScanner) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeLocked()
}

func (s *openScanner) closeLocked() {
	if !s.closed {
		s.closed = true
		_ = s.sc.Close()
	}
}

// endLocked forgets and closes a scanner whose lock the caller holds.
func (t *scannerTable) endLocked(s *openScanner) {
	t.mu.Lock()
	delete(t.mu.byID, s.id)
	t.mu.Unlock()
	s.closeLocked()
}

// closeRegion ends every scanner of a region that is closing.
func (t *scannerTable) closeRegion(r *region.Region) {
	t.mu.Lock()
	var victims []*openScanner
	for id, s := range t.mu.byID {
		if s.region == r {
			victims = append(victims, s)
			delete(t.mu.byID, id)
		}
	}
	t.mu.Unlock()
	for _, s := range victims {
		s.close()
	}
}

// closeAll ends every scanner (server shutdown).
func (t *scannerTable) closeAll() {
	t.mu.Lock()
	victims := t.mu.byID
	t.mu.byID = map[uint64]*openScanner{}
	t.mu.Unlock()
	for _, s := range victims {
		s.close()
	}
}

// count is the number of open scanners.
func (t *scannerTable) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.mu.byID)
}

// reap closes scanners idle for longer than the lease, every lease/4, until
// ctx ends.
func (t *scannerTable) reap(ctx context.Context) {
	tick := time.NewTicker(max(t.lease/4, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			cutoff := now.Add(-t.lease).UnixNano()
			t.mu.Lock()
			var expired []*openScanner
			for id, s := range t.mu.byID {
				if s.lastUsed.Load() < cutoff {
					expired = append(expired, s)
					delete(t.mu.byID, id)
				}
			}
			t.mu.Unlock()
			for _, s := range expired {
				s.close()
			}
		}
	}
}
