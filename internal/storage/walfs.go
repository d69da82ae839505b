package storage

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// walCategory is the disk-write category Pebble creates its WAL files
// with.
const walCategory vfs.DiskWriteCategory = "pebble-wal"

// walFS gives the engine HBase's two synchronous WAL levels on top of
// Pebble's one. Pebble's Sync commit waits for its WAL file's sync; walFS
// wraps the WAL files so that sync is an fdatasync only while some caller
// asked for one (FsyncWAL commits, the periodic background sync, Close)
// and otherwise returns at once. A Sync commit then waits until its record
// is written to the OS, which is HBase's hflush: it survives the process's
// crash but not the machine's. Every other file (SSTs, MANIFEST, OPTIONS)
// passes through untouched.
type walFS struct {
	vfs.FS
	// hard counts the callers that need the WAL's next syncs to reach the
	// disk. A commit's record is queued after its caller raised hard, so
	// the sync that acknowledges it starts while hard > 0 and is real.
	hard atomic.Int32
	// syncs observes the real fdatasyncs of WAL files (the no-op ones are
	// not disk latency).
	syncs *syncHistogram
}

func newWALFS(fs vfs.FS) *walFS {
	return &walFS{FS: fs, syncs: newSyncHistogram()}
}

// hardSync runs fn with the WAL's syncs reaching the disk.
func (fs *walFS) hardSync(fn func() error) error {
	fs.hard.Add(1)
	defer fs.hard.Add(-1)
	return fn()
}

func (fs *walFS) wrap(f vfs.File, category vfs.DiskWriteCategory) vfs.File {
	if category != walCategory {
		return f
	}
	return &walFile{File: f, fs: fs}
}

func (fs *walFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, category)
	if err != nil {
		return nil, err
	}
	return fs.wrap(f, category), nil
}

func (fs *walFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, category)
	if err != nil {
		return nil, err
	}
	return fs.wrap(f, category), nil
}

// walFile is one WAL file under walFS.
type walFile struct {
	vfs.File
	fs *walFS
}

func (f *walFile) Sync() error {
	if f.fs.hard.Load() == 0 {
		return nil
	}
	return f.observe(f.File.Sync)
}

func (f *walFile) SyncData() error {
	if f.fs.hard.Load() == 0 {
		return nil
	}
	return f.observe(f.File.SyncData)
}

// Close syncs for real: Pebble closes a WAL when it rotates to the next
// one (once per memtable) or closes the store, so only the live WAL's tail
// is ever left to the background sync.
func (f *walFile) Close() error {
	err := f.observe(f.File.SyncData)
	return errors.Join(err, f.File.Close())
}

func (f *walFile) observe(sync func() error) error {
	start := time.Now()
	err := sync()
	f.fs.syncs.observe(time.Since(start))
	return err
}
