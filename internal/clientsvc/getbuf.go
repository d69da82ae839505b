package clientsvc

import (
	"sync"

	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/region"
)

// getBuf holds a Get response's cells (region.GetInto) until the RPC
// layer has encoded the response and hands it back (Release): a busy
// region server reuses a few of them instead of allocating, zeroing and
// collecting a row's worth of memory per Get.
//
// It holds the response message too: fresh, those few structs are memory
// the CPU has not touched since the last collection (the server's GC
// target is 400%), and their first stores missed every cache.
type getBuf struct {
	b      region.GetBuffer
	resp   hbasepb.GetResponse
	result hbaseconv.PBResult
}

// maxPooledGetBuf keeps a buffer that a large row grew out of the pool.
const maxPooledGetBuf = 256 << 10

var getBufPool = sync.Pool{New: func() any { return new(getBuf) }}

func getGetBuf() *getBuf { return getBufPool.Get().(*getBuf) }

// Release returns the buffer to the pool. Nil-safe.
func (b *getBuf) Release() {
	if b == nil || b.b.Footprint() > maxPooledGetBuf {
		return
	}
	b.resp, b.result = hbasepb.GetResponse{}, hbaseconv.PBResult{}
	getBufPool.Put(b)
}

// mutateOut is a Mutate's response, taken back (Release) once encoded,
// for the reason getBuf holds a Get's.
type mutateOut struct {
	resp      hbasepb.MutateResponse
	processed bool
	result    hbaseconv.PBResult
}

var mutateOutPool = sync.Pool{New: func() any { return new(mutateOut) }}

// getMutateOut returns a response with processed set.
func getMutateOut() *mutateOut {
	o := mutateOutPool.Get().(*mutateOut)
	o.processed = true
	o.resp.Processed = &o.processed
	return o
}

// Release returns the response to the pool.
func (o *mutateOut) Release() {
	*o = mutateOut{}
	mutateOutPool.Put(o)
}
