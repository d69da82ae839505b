package hbaserpc

import (
	"sync"

	"github.com/weirdb/weir/internal/hbasepb"
)

// A call's header and its decoded Get or Mutate request live in memory the
// connection takes back once the response is sent, instead of in fresh
// allocations.
//
// Why: with the server's GC target at 400% (cli.tuneGC) the heap between
// collections spans hundreds of MB, so a fresh allocation is memory the
// CPU has not touched for a long time, and the first stores into it miss
// every cache. Zeroing and filling a call's few hundred bytes of structs
// that way took about a tenth of the server's CPU on YCSB workload C.
// Reused, they are still in the cache from the call before.
//
// The rule that makes it safe: what a handler gets from Call.DecodeGet and
// Call.DecodeMutate, like the Call itself, must not be kept after the
// handler has returned (or has responded with Call.Respond). Their byte
// fields alias the request frame, which is not reused, so bytes a handler
// keeps (a scanner's start row) stay valid.
var (
	parsedRequestPool = sync.Pool{New: func() any { return new(parsedRequest) }}
	getRequestPool    = sync.Pool{New: func() any { return new(fastGetRequest) }}
	mutateRequestPool = sync.Pool{New: func() any { return new(fastMutateRequest) }}
)

// DecodeGet is DecodeGetRequest of c.Param, into memory reused for a later
// call once this one's response is sent (see above): the message must not
// outlive the call.
func (c *Call) DecodeGet() (*hbasepb.GetRequest, bool) {
	if c.parsed == nil || c.fastGet != nil {
		return DecodeGetRequest(c.Param)
	}
	f := getRequestPool.Get().(*fastGetRequest)
	if !f.decode(c.Param) {
		*f = fastGetRequest{}
		getRequestPool.Put(f)
		return nil, false
	}
	c.fastGet = f
	return &f.req, true
}

// DecodeMutate is DecodeMutateRequest of c.Param, as DecodeGet is of a Get.
func (c *Call) DecodeMutate() (*hbasepb.MutateRequest, bool) {
	if c.parsed == nil || c.fastMutate != nil {
		return DecodeMutateRequest(c.Param)
	}
	f := mutateRequestPool.Get().(*fastMutateRequest)
	if !f.decode(c.Param) {
		*f = fastMutateRequest{}
		mutateRequestPool.Put(f)
		return nil, false
	}
	c.fastMutate = f
	return &f.req, true
}

// maxRecycledCells bounds the cellblock array a recycled call keeps.
const maxRecycledCells = 256

// newParsedRequest returns a zero parsedRequest, its Call marked as the
// connection's to recycle.
func newParsedRequest() *parsedRequest {
	p := parsedRequestPool.Get().(*parsedRequest)
	p.call.parsed = p
	return p
}

// recycle takes back the memory of a call whose response has been sent
// (or dropped). Nothing may use call afterwards.
func (call *Call) recycle() {
	p := call.parsed
	if p == nil {
		return
	}
	if f := call.fastGet; f != nil {
		*f = fastGetRequest{}
		getRequestPool.Put(f)
	}
	if f := call.fastMutate; f != nil {
		*f = fastMutateRequest{}
		mutateRequestPool.Put(f)
	}
	// The cells alias the request frame: keep none of them alive.
	cells := call.Cells
	if cap(cells) < cap(p.cells) || cap(cells) > maxRecycledCells {
		cells = p.cells[:cap(p.cells)]
	}
	clear(cells)
	*p = parsedRequest{cells: cells[:0]}
	parsedRequestPool.Put(p)
}
