package hbaserpc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// appendResponse appends the frame of a handler's successful response:
// its cells encoded here, or, for a cellblock the handler encoded itself,
// all but that block, which is returned as the frame's tail to be sent
// after dst's bytes (so it is copied once, into the connection's writer).
func appendResponse(dst []byte, callID uint32, resp *Response) (frame, tail []byte, err error) {
	if len(resp.CellBlock) == 0 {
		frame, err = appendResponseFrame(dst, callID, resp.Msg, resp.Cells)
		return frame, nil, err
	}
	if len(resp.Cells) > 0 {
		return dst, nil, errors.New("hbaserpc: a response with both cells and an encoded cellblock")
	}
	frame, err = appendResponseHead(dst, callID, resp.Msg, len(resp.CellBlock))
	if err != nil {
		return frame, nil, err
	}
	return frame, resp.CellBlock, nil
}

// appendResponseHead appends a response frame up to its cellblock of
// cbLen > 0 bytes, which the caller sends right after.
func appendResponseHead(dst []byte, callID uint32, msg proto.Message, cbLen int) ([]byte, error) {
	hs := protowire.SizeTag(respCallID) + protowire.SizeVarint(uint64(callID)) +
		protowire.SizeTag(respCellBlockMeta) + protowire.SizeBytes(cellBlockMetaSize(cbLen))
	if msg == nil {
		msg = emptyMsg
	}
	ms := proto.Size(msg)
	head := int64(protowire.SizeVarint(uint64(hs))+hs) + int64(protowire.SizeVarint(uint64(ms))+ms)
	if total := head + int64(cbLen); total > math.MaxInt32 {
		return dst, fmt.Errorf("hbaserpc: frame of %d bytes too large", total)
	}
	start := len(dst)
	dst = slices.Grow(dst, 4+int(head))
	dst = binary.BigEndian.AppendUint32(dst, uint32(head+int64(cbLen)))
	dst = protowire.AppendVarint(dst, uint64(hs))
	dst = protowire.AppendTag(dst, respCallID, protowire.VarintType)
	dst = protowire.AppendVarint(dst, uint64(callID))
	dst = appendCellBlockMeta(dst, respCellBlockMeta, cbLen)
	dst = protowire.AppendVarint(dst, uint64(ms))
	dst, err := marshalCached.MarshalAppend(dst, msg)
	if err != nil {
		return dst[:start], fmt.Errorf("hbaserpc: marshalling %s: %w", msg.ProtoReflect().Descriptor().FullName(), err)
	}
	if len(dst)-start != 4+int(head) {
		return dst[:start], fmt.Errorf("hbaserpc: frame head encoded to %d bytes, expected %d (message changed while encoding?)", len(dst)-start-4, head)
	}
	return dst, nil
}
