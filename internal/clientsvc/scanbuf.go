package clientsvc

import (
	"sync"

	"github.com/weirdb/weir/internal/region"
)

// scanBuf is a scan response's buffers: the cellblock the region encodes
// the rows into, and the per-result counts and flags the ScanResponse
// carries. The RPC layer hands it back (Release) once the response frame
// is encoded, so a busy region server reuses a few of them instead of
// allocating (and zeroing) a response's worth of memory per call.
type scanBuf struct{ b region.KVBatch }

// maxPooledScanBuf keeps a buffer that a large response grew out of the
// pool.
const maxPooledScanBuf = 1 << 20

var scanBufPool = sync.Pool{New: func() any { return new(scanBuf) }}

func getScanBuf() *scanBuf { return scanBufPool.Get().(*scanBuf) }

// Release returns the buffers to the pool. Nil-safe.
func (b *scanBuf) Release() {
	if b == nil {
		return
	}
	if cap(b.b.Block) > maxPooledScanBuf {
		return
	}
	b.b.Reset()
	scanBufPool.Put(b)
}
