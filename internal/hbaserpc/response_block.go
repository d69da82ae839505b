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
// its cells encoded here, or the cellblock it encoded itself.
func appendResponse(dst []byte, callID uint32, resp *Response) ([]byte, error) {
	if len(resp.CellBlock) == 0 {
		return appendResponseFrame(dst, callID, resp.Msg, resp.Cells)
	}
	if len(resp.Cells) > 0 {
		return dst, errors.New("hbaserpc: a response with both cells and an encoded cellblock")
	}
	return appendResponseFrameBlock(dst, callID, resp.Msg, resp.CellBlock)
}

// appendResponseFrameBlock is appendResponseFrame for a non-empty
// cellblock already encoded (Response.CellBlock), copied in as is.
func appendResponseFrameBlock(dst []byte, callID uint32, msg proto.Message, block []byte) ([]byte, error) {
	cbLen := len(block)
	hs := protowire.SizeTag(respCallID) + protowire.SizeVarint(uint64(callID)) +
		protowire.SizeTag(respCellBlockMeta) + protowire.SizeBytes(cellBlockMetaSize(cbLen))
	if msg == nil {
		msg = emptyMsg
	}
	ms := proto.Size(msg)
	total := int64(protowire.SizeVarint(uint64(hs))+hs) + int64(protowire.SizeVarint(uint64(ms))+ms) + int64(cbLen)
	if total > math.MaxInt32 {
		return dst, fmt.Errorf("hbaserpc: frame of %d bytes too large", total)
	}
	start := len(dst)
	dst = slices.Grow(dst, 4+int(total))
	dst = binary.BigEndian.AppendUint32(dst, uint32(total))
	dst = protowire.AppendVarint(dst, uint64(hs))
	dst = protowire.AppendTag(dst, respCallID, protowire.VarintType)
	dst = protowire.AppendVarint(dst, uint64(callID))
	dst = appendCellBlockMeta(dst, respCellBlockMeta, cbLen)
	dst = protowire.AppendVarint(dst, uint64(ms))
	dst, err := marshalCached.MarshalAppend(dst, msg)
	if err != nil {
		return dst[:start], fmt.Errorf("hbaserpc: marshalling %s: %w", msg.ProtoReflect().Descriptor().FullName(), err)
	}
	dst = append(dst, block...)
	if len(dst)-start != 4+int(total) {
		return dst[:start], fmt.Errorf("hbaserpc: frame encoded to %d bytes, expected %d (message changed while encoding?)", len(dst)-start-4, total)
	}
	return dst, nil
}
