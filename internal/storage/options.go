package storage

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// DefaultL0StopWrites is Options.L0StopWritesThreshold's default.
const DefaultL0StopWrites = 32

// MaxMemTableSize is the largest Options.MemTableSize: Pebble requires a
// memtable below 4 GiB - 1 (math.MaxUint32).
const MaxMemTableSize = 4<<30 - 2

// Options configures an Engine. The zero value of every field means its
// default; call EnsureDefaults (Open does) and Validate.
type Options struct {
	// Dir is the store's directory. Required.
	Dir string
	// FS is the filesystem all I/O goes through. Default: the OS's. Tests
	// pass a memory FS, a crashable one or an error-injecting wrapper.
	FS vfs.FS
	// CacheSize is the block cache size in bytes. Default 1 GiB. Pebble
	// charges its memtables to the same cache; the store's cache holds
	// one memtable (MemTableSize) besides, so that the blocks keep
	// CacheSize while a single memtable is being written, and lose room
	// only to memtables queued for a flush.
	CacheSize int64
	// MemTableSize is the size of one memtable in bytes. Default 64 MiB;
	// at most MaxMemTableSize.
	MemTableSize uint64
	// MemTableStopWritesThreshold is how many memtables may queue for flush
	// before writes stall. Default 4.
	MemTableStopWritesThreshold int
	// L0CompactionThreshold is the L0 depth (sublevels, about one per
	// memtable flush) at which a compaction of L0 starts. Default 12: the
	// fewer, larger L0 compactions, the fewer rewrites of the base level
	// under YCSB's hashed keys, whose every flush overlaps all of it; a
	// 1,000,000-row load compacted 0.31 GB at 12, 0.75-0.96 GB at 8 and
	// 1.8-2.0 GB at 4 (docs/performance.md, "Twelve sublevels before an
	// L0 compaction"). Pebble's own L0CompactionThreshold is a score's
	// denominator that starts a compaction at half of it, so the engine
	// hands Pebble twice this. HBase compacts a store at 3 files and
	// blocks its writes at 16.
	L0CompactionThreshold int
	// L0StopWritesThreshold is the L0 depth (sublevels) at which writes
	// stop until a compaction makes it shallower. Default 32; more than
	// L0CompactionThreshold.
	L0StopWritesThreshold int
	// LBaseMaxBytes is the size the base level (the level L0 compacts
	// into) may reach before it compacts into the next level; the levels
	// below grow tenfold each. Default 256 MiB (RocksDB's default; Pebble's
	// 64 MiB makes a store of a few hundred MB keep three levels busy).
	LBaseMaxBytes int64
	// L0TargetFileSize is the size at which flushes and L0 compactions cut
	// an SST; the levels below double it each. Default 8 MiB.
	L0TargetFileSize int64
	// BlockSize is the SST data block size in bytes. Default 32 KiB.
	BlockSize int
	// WALSyncInterval is how often a background fdatasync makes the writes
	// committed with SyncWAL, AsyncWAL or SkipWAL durable on disk, like
	// HBase's hbase.regionserver.optionallogflushinterval. It bounds what a
	// crash of the machine can lose. Default 1 s.
	WALSyncInterval time.Duration
	// DisableAutomaticCompactions leaves compactions to explicit Compact
	// calls (tests use it to control the LSM's shape). Default false.
	DisableAutomaticCompactions bool
	// Logger receives the engine's logs. Default: discard.
	Logger *slog.Logger
	// Events receives typed engine events. Optional.
	Events EventListener
}

// DefaultOptions returns Options for dir with every default filled in.
func DefaultOptions(dir string) Options {
	o := Options{Dir: dir}
	o.EnsureDefaults()
	return o
}

// EnsureDefaults replaces zero fields by their defaults.
func (o *Options) EnsureDefaults() {
	if o.FS == nil {
		o.FS = vfs.Default
	}
	if o.CacheSize == 0 {
		o.CacheSize = 1 << 30
	}
	if o.MemTableSize == 0 {
		o.MemTableSize = 64 << 20
	}
	if o.MemTableStopWritesThreshold == 0 {
		o.MemTableStopWritesThreshold = 4
	}
	if o.L0CompactionThreshold == 0 {
		o.L0CompactionThreshold = 12
	}
	if o.L0StopWritesThreshold == 0 {
		o.L0StopWritesThreshold = DefaultL0StopWrites
	}
	if o.LBaseMaxBytes == 0 {
		o.LBaseMaxBytes = 256 << 20
	}
	if o.L0TargetFileSize == 0 {
		o.L0TargetFileSize = 8 << 20
	}
	if o.BlockSize == 0 {
		o.BlockSize = 32 << 10
	}
	if o.WALSyncInterval == 0 {
		o.WALSyncInterval = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Validate reports every field with an impossible value, each error naming
// its field.
func (o *Options) Validate() error {
	var errs []error
	if o.Dir == "" {
		errs = append(errs, errors.New("storage: Options.Dir is empty"))
	}
	if o.CacheSize < 0 {
		errs = append(errs, fmt.Errorf("storage: Options.CacheSize %d is negative", o.CacheSize))
	}
	if o.MemTableSize < 64<<10 || o.MemTableSize > MaxMemTableSize {
		errs = append(errs, fmt.Errorf("storage: Options.MemTableSize %d is outside [65536, %d]", o.MemTableSize, MaxMemTableSize))
	}
	if o.MemTableStopWritesThreshold < 2 {
		errs = append(errs, fmt.Errorf("storage: Options.MemTableStopWritesThreshold %d is below 2", o.MemTableStopWritesThreshold))
	}
	if o.L0CompactionThreshold < 1 {
		errs = append(errs, fmt.Errorf("storage: Options.L0CompactionThreshold %d is below 1", o.L0CompactionThreshold))
	} else if o.L0StopWritesThreshold <= o.L0CompactionThreshold {
		errs = append(errs, fmt.Errorf("storage: Options.L0StopWritesThreshold %d is not above L0CompactionThreshold %d",
			o.L0StopWritesThreshold, o.L0CompactionThreshold))
	}
	if o.LBaseMaxBytes < 1<<20 {
		errs = append(errs, fmt.Errorf("storage: Options.LBaseMaxBytes %d is below 1 MiB", o.LBaseMaxBytes))
	}
	if o.L0TargetFileSize < 64<<10 || o.L0TargetFileSize > 1<<30 {
		errs = append(errs, fmt.Errorf("storage: Options.L0TargetFileSize %d is outside [64 KiB, 1 GiB]", o.L0TargetFileSize))
	}
	if o.BlockSize < 1<<10 || o.BlockSize > 16<<20 {
		errs = append(errs, fmt.Errorf("storage: Options.BlockSize %d is outside [1 KiB, 16 MiB]", o.BlockSize))
	}
	if o.WALSyncInterval < time.Millisecond {
		errs = append(errs, fmt.Errorf("storage: Options.WALSyncInterval %v is below 1ms", o.WALSyncInterval))
	}
	return errors.Join(errs...)
}
