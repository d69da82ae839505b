package regionserver

import (
	"testing"

	"github.com/weirdb/weir/internal/storage"
)

// The store's memtable defaults to HBase's memstore flush size; a size set
// (hbase.hregion.memstore.flush.size) is kept.
func TestConfigMemtableDefault(t *testing.T) {
	var c Config
	c.EnsureDefaults()
	if c.Storage.MemTableSize != DefaultMemstoreFlushSize || DefaultMemstoreFlushSize != 128<<20 {
		t.Fatalf("memtable %d by default; want HBase's flush size, 128 MiB", c.Storage.MemTableSize)
	}
	c = Config{Storage: storage.Options{MemTableSize: 8 << 20}}
	c.EnsureDefaults()
	if c.Storage.MemTableSize != 8<<20 {
		t.Fatalf("memtable %d; want the 8 MiB set", c.Storage.MemTableSize)
	}
}
