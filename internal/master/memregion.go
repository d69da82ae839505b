package master

import (
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/region"
	"github.com/weirdb/weir/internal/storage"
)

// memRegion is a region on a private in-memory store: the master's views of
// its catalog (hbase:meta, hbase:quota) live in them, rebuilt from etcd,
// so they need no disk.
type memRegion struct {
	engine *storage.Engine
	r      *region.Region
}

func openMemRegion(name string, cacheSize int64, memTable uint64, info region.Info, desc region.TableDescriptor, opts region.Options) (memRegion, error) {
	e, err := storage.Open(storage.Options{Dir: name, FS: vfs.NewMem(), CacheSize: cacheSize, MemTableSize: memTable})
	if err != nil {
		return memRegion{}, err
	}
	r, err := region.Open(e, info, desc, opts)
	if err != nil {
		_ = e.Close()
		return memRegion{}, err
	}
	return memRegion{engine: e, r: r}, nil
}

func (m memRegion) close() {
	_ = m.r.Close()
	_ = m.engine.Close()
}
