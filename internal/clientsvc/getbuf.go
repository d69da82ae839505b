package clientsvc

import (
	"sync"

	"github.com/weirdb/weir/internal/region"
)

// getBuf holds a Get response's cells (region.GetInto) until the RPC
// layer has encoded the response and hands it back (Release): a busy
// region server reuses a few of them instead of allocating, zeroing and
// collecting a row's worth of memory per Get.
type getBuf struct{ b region.GetBuffer }

// maxPooledGetBuf keeps a buffer that a large row grew out of the pool.
const maxPooledGetBuf = 256 << 10

var getBufPool = sync.Pool{New: func() any { return new(getBuf) }}

func getGetBuf() *getBuf { return getBufPool.Get().(*getBuf) }

// Release returns the buffer to the pool. Nil-safe.
func (b *getBuf) Release() {
	if b == nil || b.b.Footprint() > maxPooledGetBuf {
		return
	}
	getBufPool.Put(b)
}
