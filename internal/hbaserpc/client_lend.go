package hbaserpc

import (
	"context"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
)

// CallLent is CallTimeout for a caller that is done with the response
// before its next call: the response cellblock is decoded into cellBuf's
// array when it is large enough, and the frame the cells (and any bytes
// fields of resp) alias is lent, to be given back with Frame.Release once
// nothing decoded from it is used any more. A caller reading many
// responses so spares allocating and zeroing a frame and a cell slice per
// call (a scan of 100 rows of 10 cells: about 160 KB of frame and 112 KB
// of cells). On error nothing is lent.
func (c *ClientConn) CallLent(ctx context.Context, timeout time.Duration, method string, req proto.Message, reqCells []cell.Cell, resp proto.Message, cellBuf []cell.Cell) ([]cell.Cell, Frame, error) {
	r, err := c.roundTrip(ctx, timeout, method, req, reqCells, true)
	if err != nil {
		return nil, Frame{}, err
	}
	cells, err := decodeResponseInto(r.hdr, r.body, resp, cellBuf)
	if err != nil {
		// The error may quote the frame (an exception's strings): it is
		// left to the collector rather than reused.
		return nil, Frame{}, err
	}
	return cells, r.frame, nil
}
