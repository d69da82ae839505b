package storage

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
)

// ErrClosed is returned by operations on a closed Engine.
var ErrClosed = errors.New("storage: engine closed")

// Durability is how far a write must reach before Commit returns, HBase's
// Durability without USE_DEFAULT (the region resolves that).
type Durability uint8

const (
	// SyncWAL: the write is in the WAL and written to the OS before Commit
	// returns, HBase's hflush: a crash of the process loses nothing, a
	// crash of the machine may lose what the background sync (every
	// Options.WALSyncInterval) had not reached yet. Concurrent committers
	// share one write (group commit).
	SyncWAL Durability = iota
	// FsyncWAL: the write is in the WAL and the WAL is synced to disk
	// (fdatasync) before Commit returns, HBase's hsync. Concurrent
	// committers share one sync.
	FsyncWAL
	// AsyncWAL: the write is in the WAL buffer when Commit returns; a
	// background sync makes it durable within Options.WALSyncInterval.
	AsyncWAL
	// SkipWAL: no sync is ever waited for, and a crash may lose the write.
	// Pebble has no per-batch WAL bypass, so the record still goes to the
	// WAL, unsynced; what HBase promises (nothing) holds.
	SkipWAL
)

func (d Durability) String() string {
	switch d {
	case SyncWAL:
		return "SYNC_WAL"
	case FsyncWAL:
		return "FSYNC_WAL"
	case AsyncWAL:
		return "ASYNC_WAL"
	case SkipWAL:
		return "SKIP_WAL"
	}
	return fmt.Sprintf("Durability(%d)", uint8(d))
}

// pebbleL0Threshold is Pebble's L0CompactionThreshold for a compaction that
// starts at depth sublevels: Pebble compacts L0 once twice its depth over
// the threshold reaches 1 (calculateL0FillFactor).
func pebbleL0Threshold(depth int) int { return 2 * depth }

// comparer orders keys bytewise and splits them at the row: Pebble's bloom
// filters and prefix iteration then work per row (HBase's ROW bloom).
var comparer = func() *pebble.Comparer {
	c := *pebble.DefaultComparer
	c.Split = RowPrefixLen
	c.Name = "weir.cellkey.v1"
	return &c
}()

// Engine is one Pebble store holding many regions as key ranges. All methods
// are safe for concurrent use.
type Engine struct {
	db   *pebble.DB
	opts Options
	po   *pebble.Options
	wal  *walFS

	walDirty atomic.Bool // a write that was not fsynced awaits the background sync
	// trackers record the rows written in key spans (region moves); nil
	// when none is active, so a commit pays one atomic load.
	trackers atomic.Pointer[[]*Tracker]
	// iters pools iterators for short reads (iterpool.go).
	iters *iterPool
	// gate is held shared by every operation that reaches Pebble and
	// exclusively by Close, so Close never pulls Pebble from under a call.
	gate   sync.RWMutex
	closed atomic.Bool
	stop   chan struct{}
	wg     sync.WaitGroup
}

// Open opens (creating if needed) the store in opts.Dir and replays its WAL.
func Open(opts Options) (*Engine, error) {
	opts.EnsureDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	iters := newIterPool()
	// The mutable memtable's reservation on top of the blocks' size: a
	// 512 MiB memtable left a table that fitted the cache missing it
	// (docs/performance.md, "The memtable's share of the block cache").
	cache := pebble.NewCache(opts.CacheSize + int64(opts.MemTableSize))
	defer cache.Unref()
	wal := newWALFS(opts.FS)
	po := &pebble.Options{
		FS:                          wal,
		Cache:                       cache,
		Comparer:                    comparer,
		MemTableSize:                opts.MemTableSize,
		MemTableStopWritesThreshold: opts.MemTableStopWritesThreshold,
		L0CompactionThreshold:       pebbleL0Threshold(opts.L0CompactionThreshold),
		L0StopWritesThreshold:       opts.L0StopWritesThreshold,
		LBaseMaxBytes:               opts.LBaseMaxBytes,
		FormatMajorVersion:          pebble.FormatNewest,
		DisableAutomaticCompactions: opts.DisableAutomaticCompactions,
		Logger:                      slogAdapter{opts.Logger},
		EventListener:               opts.Events.pebble(opts.Logger, iters.reshaped),
	}
	// Pebble moves every value but the first of a key prefix into separate
	// value blocks, betting that older MVCC versions are rarely read. Weir's
	// prefix is the row (for the bloom filters), so that would put nine of a
	// ten-cell row's values out of line, and every whole-row read would pay
	// a value-block lookup per cell. Keep values in the data blocks.
	po.Experimental.SpanPolicyFunc = func([]byte) (pebble.SpanPolicy, []byte, error) {
		return pebble.SpanPolicy{DisableValueSeparationBySuffix: true}, nil, nil
	}
	po.TargetFileSizes[0] = opts.L0TargetFileSize // Pebble doubles it per level below
	for i := range po.Levels {
		l := &po.Levels[i]
		l.BlockSize = opts.BlockSize
		l.FilterPolicy = bloom.FilterPolicy(10)
		l.FilterType = pebble.TableFilter
	}
	po.EnsureDefaults()
	db, err := pebble.Open(opts.Dir, po)
	if err != nil {
		return nil, fmt.Errorf("storage: opening %s: %w", opts.Dir, err)
	}
	e := &Engine{db: db, opts: opts, po: po, wal: wal, iters: iters, stop: make(chan struct{})}
	e.wg.Add(2)
	go e.walSyncer()
	go e.iterJanitor()
	return e, nil
}

// Close stops the background syncer, syncs the WAL and closes Pebble. It
// is idempotent.
func (e *Engine) Close() error {
	e.gate.Lock()
	defer e.gate.Unlock()
	if !e.closed.CompareAndSwap(false, true) {
		return nil
	}
	close(e.stop)
	e.wg.Wait()
	e.iters.drain()
	var errs []error
	if e.walDirty.Load() {
		errs = append(errs, e.syncWAL())
	}
	errs = append(errs, e.db.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("storage: closing %s: %w", e.opts.Dir, err)
	}
	return nil
}

// enter admits an operation unless the engine is closed; a nil error must
// be paired with exit.
func (e *Engine) enter() error {
	e.gate.RLock()
	if e.closed.Load() {
		e.gate.RUnlock()
		return ErrClosed
	}
	return nil
}

func (e *Engine) exit() { e.gate.RUnlock() }

// syncWAL writes out Pebble's WAL buffer and fdatasyncs the WAL.
func (e *Engine) syncWAL() error {
	return e.wal.hardSync(func() error { return e.db.LogData(nil, pebble.Sync) })
}

// walSyncer makes SyncWAL and AsyncWAL writes durable every
// WALSyncInterval.
func (e *Engine) walSyncer() {
	defer e.wg.Done()
	t := time.NewTicker(e.opts.WALSyncInterval)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
			if e.walDirty.CompareAndSwap(true, false) {
				if err := e.syncWAL(); err != nil {
					e.opts.Logger.Error("storage: background WAL sync failed", "err", err)
					e.walDirty.Store(true)
				}
			}
		}
	}
}

// Batch collects writes that commit atomically.
type Batch struct {
	e *Engine
	b *pebble.Batch
}

// NewBatch returns an empty write batch.
func (e *Engine) NewBatch() *Batch { return &Batch{e: e, b: e.db.NewBatch()} }

// Set adds key=value; key and value are copied.
func (b *Batch) Set(key, value []byte) error { return b.b.Set(key, value, nil) }

// Delete adds a point deletion of key.
func (b *Batch) Delete(key []byte) error { return b.b.Delete(key, nil) }

// DeleteRange removes every key in [start, end).
func (b *Batch) DeleteRange(start, end []byte) error { return b.b.DeleteRange(start, end, nil) }

// Len returns the batch's encoded size in bytes.
func (b *Batch) Len() int { return b.b.Len() }

// Count is the number of keys the batch sets or deletes.
func (b *Batch) Count() uint32 { return b.b.Count() }

// Empty reports whether the batch holds no writes.
func (b *Batch) Empty() bool { return b.b.Empty() }

// Commit applies the batch atomically with durability d. The batch must
// not be used afterwards except for Close. A failed WAL write or sync is
// fatal, as in HBase (a region server aborts when its WAL fails): Pebble
// cannot tell which writes reached the disk, so the process exits through
// the logger's Fatalf and recovery replays the WAL on restart.
func (b *Batch) Commit(d Durability) error {
	if err := b.e.enter(); err != nil {
		return err
	}
	defer b.e.exit()
	var err error
	b.e.iters.beginWrite()
	switch d {
	case FsyncWAL:
		err = b.e.wal.hardSync(func() error { return b.b.Commit(pebble.Sync) })
	case SyncWAL:
		err = b.b.Commit(pebble.Sync)
	default:
		err = b.b.Commit(pebble.NoSync)
	}
	b.e.iters.endWrite()
	if err != nil {
		return fmt.Errorf("storage: commit: %w", err)
	}
	if d != FsyncWAL && !b.e.walDirty.Load() {
		b.e.walDirty.Store(true)
	}
	b.e.noteCommit(b.b)
	return nil
}

// Close releases the batch.
func (b *Batch) Close() error { return b.b.Close() }

// Iterator walks the keys of a consistent view of the store within bounds.
// It is not safe for concurrent use. Key and Value alias buffers that the
// next positioning call invalidates.
type Iterator struct {
	it *pebble.Iterator
	// pool is the engine whose pool Close returns the iterator to (nil:
	// Close closes it); gen is the pool generation it reads as of.
	pool *Engine
	gen  uint64
}

// IterOptions bounds an iterator.
type IterOptions struct {
	Lower []byte // inclusive
	Upper []byte // exclusive
}

func (o IterOptions) pebble() *pebble.IterOptions {
	return &pebble.IterOptions{LowerBound: o.Lower, UpperBound: o.Upper}
}

// NewIter returns an iterator over the store as of now.
func (e *Engine) NewIter(o IterOptions) (*Iterator, error) {
	if err := e.enter(); err != nil {
		return nil, err
	}
	defer e.exit()
	return e.newIter(o)
}

func (e *Engine) newIter(o IterOptions) (*Iterator, error) {
	it, err := e.db.NewIter(o.pebble())
	if err != nil {
		return nil, fmt.Errorf("storage: new iterator: %w", err)
	}
	return &Iterator{it: it}, nil
}

func (i *Iterator) First() bool            { return i.it.First() }
func (i *Iterator) Last() bool             { return i.it.Last() }
func (i *Iterator) SeekGE(key []byte) bool { return i.it.SeekGE(key) }
func (i *Iterator) SeekLT(key []byte) bool { return i.it.SeekLT(key) }

// SeekPrefixGE positions at the first key >= key among the keys that share
// key's row prefix, and confines Next to that row. Bloom filters let it skip
// files without the row: the point-read path.
func (i *Iterator) SeekPrefixGE(key []byte) bool { return i.it.SeekPrefixGE(key) }

func (i *Iterator) Next() bool                    { return i.it.Next() }
func (i *Iterator) Prev() bool                    { return i.it.Prev() }
func (i *Iterator) Valid() bool                   { return i.it.Valid() }
func (i *Iterator) Key() []byte                   { return i.it.Key() }
func (i *Iterator) Error() error                  { return i.it.Error() }
func (i *Iterator) SetBounds(lower, upper []byte) { i.it.SetBounds(lower, upper) }

// Value returns the current value; an error means a value in a separate
// blob could not be read.
func (i *Iterator) Value() ([]byte, error) { return i.it.ValueAndErr() }

// Close releases the iterator (to the pool, for NewPooledIter's) and
// reports any error it met.
func (i *Iterator) Close() error {
	if i.pool != nil {
		return i.pool.release(i)
	}
	return i.it.Close()
}

// Snapshot is a consistent, read-only view of the store at one instant.
type Snapshot struct{ s *pebble.Snapshot }

// NewSnapshot pins the store's current state until Close.
func (e *Engine) NewSnapshot() (*Snapshot, error) {
	if err := e.enter(); err != nil {
		return nil, err
	}
	defer e.exit()
	return &Snapshot{s: e.db.NewSnapshot()}, nil
}

// NewIter returns an iterator over the snapshot.
func (s *Snapshot) NewIter(o IterOptions) (*Iterator, error) {
	it, err := s.s.NewIter(o.pebble())
	if err != nil {
		return nil, fmt.Errorf("storage: snapshot iterator: %w", err)
	}
	return &Iterator{it: it}, nil
}

// Close releases the snapshot.
func (s *Snapshot) Close() error { return s.s.Close() }

// Flush writes the memtables to SSTs and waits for it.
func (e *Engine) Flush() error {
	if err := e.enter(); err != nil {
		return err
	}
	defer e.exit()
	if err := e.db.Flush(); err != nil {
		return fmt.Errorf("storage: flush: %w", err)
	}
	return nil
}

// Compact compacts the keys in [start, end) down to the bottom level, which
// also drops the point deletions there.
func (e *Engine) Compact(ctx context.Context, start, end []byte) error {
	if err := e.enter(); err != nil {
		return err
	}
	defer e.exit()
	if err := e.db.Compact(ctx, start, end, true); err != nil {
		return fmt.Errorf("storage: compact: %w", err)
	}
	return nil
}

// EstimateDiskUsage returns the approximate on-disk bytes of [start, end).
func (e *Engine) EstimateDiskUsage(start, end []byte) (uint64, error) {
	if err := e.enter(); err != nil {
		return 0, err // Pebble panics on a closed DB
	}
	defer e.exit()
	return e.db.EstimateDiskUsage(start, end)
}

// Dir is the store's directory.
func (e *Engine) Dir() string { return e.opts.Dir }
