package region

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/weirdb/weir/internal/storage"
)

// BenchmarkScanFloor is the Pebble work under BenchmarkScan100 alone: an
// iterator over the region, one SeekGE and a Next per cell of 100 rows,
// reading each value, no decoding and no result. It shows how much of a
// scan's CPU the region itself adds.
func BenchmarkScanFloor(b *testing.B) {
	const rows = 10000
	r := loadedBenchRegion(b, rows, false)
	stop := cpuMeter(b)
	defer stop()
	i := 0
	for b.Loop() {
		start := storage.AppendRowPrefix(nil, 1, []byte(fmt.Sprintf("user%08d", (i*7919)%(rows-100))))
		it, err := r.engine.NewIter(storage.IterOptions{Lower: r.lower, Upper: r.upper})
		if err != nil {
			b.Fatal(err)
		}
		var prev []byte
		n := 0
		for ok := it.SeekGE(start); ok; ok = it.Next() {
			k := it.Key()
			p := k[:storage.RowPrefixLen(k)]
			if !bytes.Equal(p, prev) {
				if n == 100 {
					break
				}
				n++
				prev = append(prev[:0], p...)
			}
			if _, err := it.Value(); err != nil {
				b.Fatal(err)
			}
		}
		if err := it.Close(); err != nil || n != 100 {
			b.Fatalf("%d rows, %v", n, err)
		}
		i++
	}
}
