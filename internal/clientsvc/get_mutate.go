package clientsvc

import (
	"context"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/region"
)

func (s *Service) lookup(spec *hbasepb.RegionSpecifier) (*region.Region, error) {
	name, encoded, err := hbaseconv.RegionNameFromSpecifier(spec)
	if err != nil {
		return nil, err
	}
	return s.regions.Region(name, encoded)
}

// resultOut encodes a Result for the response: inline cells, or a count
// and the cells appended to the response cellblock.
func resultOut(c *hbaserpc.Call, res region.Result, cells *[]cell.Cell, into *hbaseconv.PBResult) *hbasepb.Result {
	if c.CellBlocks {
		if len(*cells) == 0 {
			// The first (for a Get, only) result's cells go out as they
			// are, without a copy; capped, so that a later append copies
			// them rather than writing past them.
			*cells = res.Cells[:len(res.Cells):len(res.Cells)]
		} else {
			*cells = append(*cells, res.Cells...)
		}
	}
	return into.Set(res, !c.CellBlocks)
}

func (s *Service) get(ctx context.Context, c *hbaserpc.Call, req *hbasepb.GetRequest) (hbaserpc.Response, error) {
	r, err := s.lookup(req.GetRegion())
	if err != nil {
		return hbaserpc.Response{}, err
	}
	g, err := hbaseconv.GetFromPB(req.GetGet())
	if err != nil {
		return hbaserpc.Response{}, err
	}
	buf := getGetBuf()
	res, err := r.GetInto(ctx, g, &buf.b)
	if err != nil {
		buf.Release()
		return hbaserpc.Response{}, err
	}
	if g.ExistenceOnly {
		buf.Release()
		return hbaserpc.Response{Msg: &hbasepb.GetResponse{Result: hbaseconv.ExistsResultToPB(res.Exists)}}, nil
	}
	// The cells live in buf until the response is encoded.
	var cells []cell.Cell
	out := &buf.resp
	out.Result = resultOut(c, res, &cells, &buf.result)
	return hbaserpc.Response{Msg: out, Cells: cells, Release: buf}, nil
}

func (s *Service) mutate(ctx context.Context, c *hbaserpc.Call, req *hbasepb.MutateRequest) (hbaserpc.Response, error) {
	r, err := s.lookup(req.GetRegion())
	if err != nil {
		return hbaserpc.Response{}, err
	}
	conv, _, err := hbaseconv.MutationFromPB(req.GetMutation(), c.Cells)
	if err != nil {
		return hbaserpc.Response{}, err
	}
	if err := s.vet(r, &conv); err != nil {
		return hbaserpc.Response{}, err
	}
	if req.Condition != nil {
		row, cond, err := hbaseconv.ConditionFromPB(req.GetCondition())
		if err != nil {
			return hbaserpc.Response{}, err
		}
		if conv.Kind != hbaseconv.KindPut && conv.Kind != hbaseconv.KindDelete {
			return hbaserpc.Response{}, badRequest("check-and-mutate with an increment or append is not supported")
		}
		ok, err := r.CheckAndMutate(ctx, row, cond, conv.Mutation)
		if err != nil {
			return hbaserpc.Response{}, err
		}
		return hbaserpc.Response{Msg: &hbasepb.MutateResponse{Processed: proto.Bool(ok)}}, nil
	}
	res, err := applyOne(ctx, r, conv)
	if err != nil {
		return hbaserpc.Response{}, err
	}
	var cells []cell.Cell
	out := getMutateOut()
	if conv.Kind == hbaseconv.KindIncrement || conv.Kind == hbaseconv.KindAppend {
		out.resp.Result = resultOut(c, res, &cells, &out.result)
	}
	return hbaserpc.Response{Msg: &out.resp, Cells: cells, Release: out}, nil
}

// applyOne runs one decoded mutation.
func applyOne(ctx context.Context, r *region.Region, conv hbaseconv.Converted) (region.Result, error) {
	switch conv.Kind {
	case hbaseconv.KindIncrement:
		return r.Increment(ctx, conv.RMW)
	case hbaseconv.KindAppend:
		return r.Append(ctx, conv.RMW)
	}
	return region.Result{}, r.Mutate(ctx, conv.Mutation)
}
