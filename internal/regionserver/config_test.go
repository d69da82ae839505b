package regionserver

import (
	"testing"

	"github.com/weirdb/weir/internal/storage"
)

// The block cache defaults to a tenth of the server's memory share (at
// least 64 MiB), the memtable to HBase's memstore flush size; sizes that
// are set are kept.
func TestConfigMemoryDefaults(t *testing.T) {
	const gib = 1 << 30
	if DefaultBlockCache(0) != DefaultBlockCacheSize || DefaultBlockCacheSize != 1*gib {
		t.Fatalf("DefaultBlockCache(0) = %d; want the fixed 1 GiB where the memory is unknown", DefaultBlockCache(0))
	}
	for _, tc := range []struct {
		name  string
		share uint64
		cache int64
	}{
		{"24 GiB", 24 * gib, 24 * gib / 10},
		{"8 GiB, a third of a 24 GiB host", 8 * gib, 8 * gib / 10},
		{"1 GiB", 1 * gib, 1 * gib / 10},
		{"tiny: the floor", 100 << 20, 64 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Config{MemoryShare: tc.share}
			c.EnsureDefaults()
			if c.Storage.CacheSize != tc.cache {
				t.Fatalf("block cache %d; want %d", c.Storage.CacheSize, tc.cache)
			}
			if c.Storage.MemTableSize != DefaultMemstoreFlushSize || DefaultMemstoreFlushSize != 128<<20 {
				t.Fatalf("memtable %d by default; want HBase's flush size, 128 MiB", c.Storage.MemTableSize)
			}
		})
	}
	c := Config{MemoryShare: 24 * gib, Storage: storage.Options{MemTableSize: 8 << 20, CacheSize: 32 << 20}}
	c.EnsureDefaults()
	if c.Storage.MemTableSize != 8<<20 || c.Storage.CacheSize != 32<<20 {
		t.Fatalf("memtable %d, block cache %d; want the 8 MiB and 32 MiB set", c.Storage.MemTableSize, c.Storage.CacheSize)
	}
	c = Config{}
	c.EnsureDefaults()
	if c.MemoryShare == 0 {
		t.Skip("this machine's memory is unknown")
	}
	if want := DefaultBlockCache(c.MemoryShare); c.Storage.CacheSize != want {
		t.Fatalf("block cache %d on a machine of %d bytes; want %d", c.Storage.CacheSize, c.MemoryShare, want)
	}
}
