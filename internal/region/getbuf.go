package region

import (
	"context"
	"sync"
	"unsafe"

	"github.com/weirdb/weir/internal/cell"
)

// GetBuffer holds the cells of Gets made with GetInto. Reused from one Get
// to the next it makes them allocation-free once it has grown to the rows
// read. The zero value is ready to use; a GetBuffer must not be used by
// two Gets at once.
type GetBuffer struct {
	cells []cell.Cell
	arena []byte
}

// getBufferPool serves the region's own transient reads (the read of a
// read-modify-write, the latest version a Delete resolves).
var getBufferPool = sync.Pool{New: func() any { return new(GetBuffer) }}

// GetInto is Get with the result's cells in buf instead of memory of
// their own: they are valid until buf's next use, and the caller must not
// keep them (or their byte slices) past it. For callers that consume a
// row before reading the next.
func (r *Region) GetInto(ctx context.Context, g Get, buf *GetBuffer) (Result, error) {
	if buf == nil {
		buf = new(GetBuffer)
	}
	return r.get(ctx, g, buf)
}

// Footprint is the memory buf holds on to, in bytes: for a pool to drop a
// buffer a huge row grew instead of keeping it.
func (buf *GetBuffer) Footprint() int {
	return cap(buf.arena) + cap(buf.cells)*int(unsafe.Sizeof(cell.Cell{}))
}
