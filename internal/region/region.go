package region

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weirdb/weir/internal/storage"
)

// Info identifies a region: the rows [StartKey, EndKey) of one table.
type Info struct {
	// TableID prefixes every key of the table in the store.
	TableID uint32
	// RegionID is the region's creation time in ms, as HBase's region id.
	RegionID int64
	// StartKey is inclusive; empty means the table's first row.
	StartKey []byte
	// EndKey is exclusive; empty means past the table's last row.
	EndKey []byte
}

// ContainsRow reports whether row belongs to the region.
func (i *Info) ContainsRow(row []byte) bool {
	return bytes.Compare(row, i.StartKey) >= 0 && (len(i.EndKey) == 0 || bytes.Compare(row, i.EndKey) < 0)
}

func (i *Info) String() string {
	return fmt.Sprintf("table=%d,start=%q,end=%q,id=%d", i.TableID, i.StartKey, i.EndKey, i.RegionID)
}

// Options configures a region. Zero fields take their defaults.
type Options struct {
	// Now returns the current time in ms since the epoch; tests inject a
	// clock. Default: the wall clock.
	Now func() int64
	// RowLockTimeout bounds the wait for a row lock, HBase's
	// hbase.rowlock.wait.duration. Default 30 s.
	RowLockTimeout time.Duration
	// MaxCellSize bounds one cell's key and value, HBase's
	// hbase.server.keyvalue.maxsize. Default 10 MiB.
	MaxCellSize int
	// MaxRowLength bounds a row key; HBase's is 32767 (a Java short).
	MaxRowLength int
	// Logger receives the region's logs. Default: discard.
	Logger *slog.Logger
	// RowCache, when set, serves whole-row Gets of hot rows (rowcache.go);
	// the regions of a store share one. Default: none.
	RowCache *RowCache
	// WALHflush is hbase.wal.hsync=false: a SYNC_WAL write (and one whose
	// durability and whose table's are both USE_DEFAULT) waits only for
	// its WAL record's write to the OS (HBase's hflush), which survives a
	// crash of the process but not of the machine. Default false: it waits
	// for the WAL's fdatasync, as FSYNC_WAL always does (Weir's default
	// differs from HBase's here, so that every write acknowledged with
	// SYNC_WAL survives any crash).
	WALHflush bool
	// RowOrder, when set, changes how rows sort in the store (hbase:meta
	// sorts its rows by table, start key and region id, not bytewise).
	// Default: HBase's unsigned byte order.
	RowOrder RowOrder
	// ClockFloor makes every server timestamp the region hands out greater
	// than it: a region that takes over rows from another (a split
	// daughter, a merged or moved region) passes the old region's
	// ClockHigh, so a write right after the hand-over never lands on the
	// version of one just before it. Default 0.
	ClockFloor int64
	// NoRowImages keeps every cell in a key of its own: garbage passes
	// write no row images (rowimage.go). Default false: a major compaction
	// stores each row that fits as one image.
	NoRowImages bool
}

// RowOrder maps rows to stored row keys whose byte order is the order
// wanted. Encode must be strictly order preserving and Decode its inverse.
type RowOrder interface {
	Encode(dst, row []byte) []byte
	Decode(stored []byte) []byte
}

// EnsureDefaults fills zero fields in.
func (o *Options) EnsureDefaults() {
	if o.Now == nil {
		o.Now = func() int64 { return time.Now().UnixMilli() }
	}
	if o.RowLockTimeout == 0 {
		o.RowLockTimeout = 30 * time.Second
	}
	if o.MaxCellSize == 0 {
		o.MaxCellSize = 10 << 20
	}
	if o.MaxRowLength == 0 {
		o.MaxRowLength = 32767
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Validate reports impossible settings.
func (o *Options) Validate() error {
	var errs []error
	if o.RowLockTimeout < 0 {
		errs = append(errs, fmt.Errorf("region: RowLockTimeout %v is negative", o.RowLockTimeout))
	}
	if o.MaxCellSize < 1 {
		errs = append(errs, fmt.Errorf("region: MaxCellSize %d must be positive", o.MaxCellSize))
	}
	if o.MaxRowLength < 1 || o.MaxRowLength > 32767 {
		errs = append(errs, fmt.Errorf("region: MaxRowLength %d outside [1, 32767]", o.MaxRowLength))
	}
	return errors.Join(errs...)
}

// Region serves the cells of one key range of one table. All methods are
// safe for concurrent use. Mutations of one row are atomic and isolated
// (one Pebble batch each); reads see a consistent point in time.
type Region struct {
	info   Info
	opts   Options
	engine *storage.Engine
	lower  []byte // first key of the region
	upper  []byte // key bound past the region

	// afterSurvey, when set (tests), runs between an automatic garbage
	// pass's survey and its decision: writes it makes count as made
	// during the survey.
	afterSurvey func()
	// beforeCleanRow, when set (tests), runs as a garbage pass is about to
	// clean row, having read it over its view.
	beforeCleanRow func(row []byte)
	// beforeReplace, when set (tests), runs as a replacing pass is about
	// to swap its file in (compact_replace.go).
	beforeReplace func()

	locks rowLocks
	clock rowClock

	// gate is held shared by every operation and exclusively by Close, so
	// Close waits for operations in flight.
	gate   sync.RWMutex
	closed atomic.Bool

	requests  requestCounts
	scanShape scanShape
	gc        gcState // autogc.go
	writes    writeSeq

	// desc is the table schema, replaced whole by SetDescriptor; every
	// read loads it, so it is an atomic pointer, not a mutex's field.
	desc atomic.Pointer[TableDescriptor]
	// cacheID is the region's key space in opts.RowCache, its own from
	// Open on: an entry of a region opened before on the same rows is
	// never found. cacheEpoch is the generation of the cached rows, raised
	// when the schema or the whole contents change; an entry of an older
	// generation is a miss. It is raised after desc is stored, so a reader
	// that loads it first sees a schema at least as new.
	cacheID    uint64
	cacheEpoch atomic.Uint64
}

// Open serves info's key range of engine with the table schema desc. The
// region shares the engine with its siblings; opening reads nothing.
func Open(engine *storage.Engine, info Info, desc TableDescriptor, opts Options) (*Region, error) {
	opts.EnsureDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	desc.EnsureDefaults()
	if err := desc.Validate(); err != nil {
		return nil, fmt.Errorf("region: opening %s: %w", info.String(), err)
	}
	if info.TableID == storage.MetaTableID || info.TableID == math.MaxUint32 {
		// 0 holds store metadata; MaxUint32 has no finite key bound.
		return nil, fmt.Errorf("%w: table id %d is reserved", ErrInvalidArgument, info.TableID)
	}
	if len(info.EndKey) > 0 && bytes.Compare(info.StartKey, info.EndKey) >= 0 {
		return nil, fmt.Errorf("%w: region start %q is not before end %q", ErrInvalidArgument, info.StartKey, info.EndKey)
	}
	r := &Region{
		info:   info,
		opts:   opts,
		engine: engine,
	}
	r.lower = storage.RegionLowerBound(info.TableID, r.storedRow(info.StartKey))
	r.upper = storage.RegionUpperBound(info.TableID, r.storedRow(info.EndKey))
	d := desc
	r.desc.Store(&d)
	if opts.RowCache != nil {
		r.cacheID = opts.RowCache.newRegionID()
	}
	r.clock.floor = opts.ClockFloor
	r.openedEmpty()
	return r, nil
}

// Info returns the region's identity.
func (r *Region) Info() Info { return r.info }

// Descriptor returns the current table schema. Callers must not modify it.
func (r *Region) Descriptor() *TableDescriptor {
	return r.desc.Load()
}

// SetDescriptor swaps the table schema (alter table) for later operations.
func (r *Region) SetDescriptor(desc TableDescriptor) error {
	desc.EnsureDefaults()
	if err := desc.Validate(); err != nil {
		return err
	}
	if old := r.desc.Swap(&desc); garbageRulesChanged(old, &desc) {
		r.gc.schemaChanged.Store(true)
	}
	r.forgetCachedRows()
	return nil
}

// Close waits for operations in flight and refuses new ones, and drops the
// region's rows from the row cache. Data stays in the engine; Open serves
// it again. Idempotent.
func (r *Region) Close() error {
	r.gate.Lock()
	was := r.closed.Swap(true)
	r.gate.Unlock()
	if !was && r.opts.RowCache != nil {
		// No operation is in flight (the gate), none will start, and the
		// region's key space is never used again: a reopened region has
		// its own.
		r.opts.RowCache.dropRegion(r.cacheID)
	}
	return nil
}

// ClockHigh is the greatest server timestamp the region has handed out;
// pass it as the ClockFloor of a region taking over its rows. Call it
// after Close, so no later write can exceed it.
func (r *Region) ClockHigh() int64 { return r.clock.high() }

// enter admits an operation unless the region is closed; the caller must
// call r.gate.RUnlock when done.
func (r *Region) enter() error {
	r.gate.RLock()
	if r.closed.Load() {
		r.gate.RUnlock()
		return ErrClosed
	}
	return nil
}

func (r *Region) checkRow(row []byte) error {
	if len(row) == 0 {
		return invalidf("empty row key")
	}
	if len(row) > r.opts.MaxRowLength {
		return invalidf("row key of %d bytes exceeds the %d byte limit", len(row), r.opts.MaxRowLength)
	}
	if !r.info.ContainsRow(row) {
		return fmt.Errorf("%w: row %q not in %s", ErrWrongRegion, row, r.info.String())
	}
	return nil
}

// rowClock hands out server timestamps that strictly increase per row, so
// two mutations of a row never collide on one version even within a
// millisecond. Rows hash onto slots; a shared slot only makes timestamps
// step further ahead, never back.
type rowClock struct {
	slots [4096]atomic.Int64
	floor int64 // set at Open; every timestamp handed out is above it
}

func (c *rowClock) next(row []byte, now int64) int64 {
	s := &c.slots[rowHash(row)%uint32(len(c.slots))]
	for {
		last := s.Load()
		ts := max(now, last+1, c.floor+1)
		if s.CompareAndSwap(last, ts) {
			return ts
		}
	}
}

// high returns the greatest timestamp handed out (or the floor).
func (c *rowClock) high() int64 {
	h := c.floor
	for i := range c.slots {
		h = max(h, c.slots[i].Load())
	}
	return h
}

// observe records that row holds a version at ts, so later server
// timestamps for the row go past it (Increment and Append need this).
func (c *rowClock) observe(row []byte, ts int64) {
	s := &c.slots[rowHash(row)%uint32(len(c.slots))]
	for {
		last := s.Load()
		if last >= ts || s.CompareAndSwap(last, ts) {
			return
		}
	}
}

// storedRow is the row as stored (Options.RowOrder applied). An empty row
// stays empty: it stands for an unbounded region edge.
func (r *Region) storedRow(row []byte) []byte {
	if r.opts.RowOrder == nil || len(row) == 0 {
		return row
	}
	return r.opts.RowOrder.Encode(nil, row)
}

// userRow is the inverse of storedRow.
func (r *Region) userRow(stored []byte) []byte {
	if r.opts.RowOrder == nil {
		return stored
	}
	return r.opts.RowOrder.Decode(stored)
}
