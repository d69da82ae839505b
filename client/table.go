package client

import (
	"bytes"
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/hbasepb"
)

// Table runs data operations on one table. It is cheap; make one per use
// or share it, as convenient. Safe for concurrent use.
type Table struct {
	c    *Conn
	name string
}

// Table returns a handle on table name ("ns:t", or "t" in the default
// namespace). It does not check that the table exists.
func (c *Conn) Table(name string) *Table { return &Table{c: c, name: normTable(name)} }

// Name returns the table's name as hbase:meta spells it.
func (t *Table) Name() string { return t.name }

// onRegion runs fn against the region holding row, relocating and
// retrying as the errors call for, within the operation timeout. The first
// attempt runs without a timer context (see opdeadline.go).
func (t *Table) onRegion(ctx context.Context, what string, row []byte, fn func(ctx context.Context, l *regionLoc) error) error {
	attempt := func(ctx context.Context) error {
		l, err := t.c.locate(ctx, t.name, row, false, false)
		if err != nil {
			return err
		}
		err = fn(ctx, l)
		t.c.relocateAfter(err, l)
		return err
	}
	if err := t.c.runOp(ctx, what, attempt); err != nil {
		return fmt.Errorf("client: %s %s row %q: %w", what, t.name, row, err)
	}
	return nil
}

// Get reads one row. A row with nothing to return gives a Result with no
// cells and Exists false.
func (t *Table) Get(ctx context.Context, g *Get) (*Result, error) {
	return t.get(ctx, g, nil)
}

// get is Get; with lg, the response is lent (GetFunc) and lg keeps its
// frame and cells.
func (t *Table) get(ctx context.Context, g *Get, lg *lentGet) (*Result, error) {
	pb, err := getPB(g)
	if err != nil {
		return nil, err
	}
	var res *Result
	err = t.onRegion(ctx, "get", g.row, func(ctx context.Context, l *regionLoc) error {
		var resp hbasepb.GetResponse
		var cellBuf []cell.Cell
		if lg != nil {
			cellBuf = lg.cells
		}
		cells, frame, err := t.c.invoke(ctx, l.server, svcClient, "Get", &hbasepb.GetRequest{Region: l.spec(), Get: pb}, nil, &resp, lg != nil, cellBuf)
		if err != nil {
			return err
		}
		r, _, err := resultFromPB(resp.GetResult(), cells)
		if err != nil {
			frame.Release()
			return permanent(err)
		}
		if lg != nil {
			lg.keep(cells, frame)
		}
		res = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	if res.Row == nil {
		res.Row = g.row
	}
	return res, nil
}

// Exists reports whether g would return any cell, without transferring
// them.
func (t *Table) Exists(ctx context.Context, g *Get) (bool, error) {
	eg := *g
	eg.existence = true
	res, err := t.Get(ctx, &eg)
	if err != nil {
		return false, err
	}
	return res.Exists, nil
}

// mutate sends one MutateRequest and returns its response.
func (t *Table) mutate(ctx context.Context, what string, a Action) (*hbasepb.MutateResponse, []cell.Cell, error) {
	mp, cells, err := mutationPB(a, isRMW(a))
	if err != nil {
		return nil, nil, err
	}
	req := &hbasepb.MutateRequest{Mutation: mp}
	if mp.Nonce != nil {
		req.NonceGroup = proto.Uint64(t.c.nonceGroup)
	}
	var resp hbasepb.MutateResponse
	var respCells []cell.Cell
	err = t.onRegion(ctx, what, a.rowKey(), func(ctx context.Context, l *regionLoc) error {
		req.Region = l.spec()
		resp.Reset()
		return t.c.call(ctx, l.server, svcClient, "Mutate", req, cells, &resp, &respCells)
	})
	if err != nil {
		return nil, nil, err
	}
	return &resp, respCells, nil
}

// Put writes p's cells.
func (t *Table) Put(ctx context.Context, p *Put) error {
	_, _, err := t.mutate(ctx, "put", p)
	return err
}

// Delete applies d.
func (t *Table) Delete(ctx context.Context, d *Delete) error {
	_, _, err := t.mutate(ctx, "delete", d)
	return err
}

// Increment applies in and returns the new values of its columns.
func (t *Table) Increment(ctx context.Context, in *Increment) (*Result, error) {
	return t.rmw(ctx, "increment", in)
}

// Append applies a and returns the new values of its columns.
func (t *Table) Append(ctx context.Context, a *Append) (*Result, error) {
	return t.rmw(ctx, "append", a)
}

func (t *Table) rmw(ctx context.Context, what string, a Action) (*Result, error) {
	resp, cells, err := t.mutate(ctx, what, a)
	if err != nil {
		return nil, err
	}
	res, _, err := resultFromPB(resp.GetResult(), cells)
	if err != nil {
		return nil, err
	}
	if res.Row == nil {
		res.Row = a.rowKey()
	}
	return res, nil
}

// CheckAndMutate applies cm's mutations atomically if its condition
// holds, and reports whether it did.
func (t *Table) CheckAndMutate(ctx context.Context, cm *CheckAndMutate) (bool, error) {
	if len(cm.Row) == 0 {
		return false, invalidf("check-and-mutate has an empty row")
	}
	if len(cm.Mutations) == 0 {
		return false, invalidf("check-and-mutate of row %q has no mutations", cm.Row)
	}
	cond, err := conditionPB(cm)
	if err != nil {
		return false, err
	}
	var processed bool
	err = t.atomic(ctx, "check-and-mutate", cm.Row, cm.Mutations, cond, func(p bool) { processed = p })
	return processed, err
}

// MutateRow applies muts, Puts and Deletes of row, atomically.
func (t *Table) MutateRow(ctx context.Context, row []byte, muts ...Mutation) error {
	if len(row) == 0 {
		return invalidf("mutate-row has an empty row")
	}
	if len(muts) == 0 {
		return nil
	}
	return t.atomic(ctx, "mutate-row", row, muts, nil, nil)
}

// atomic sends muts as one atomic RegionAction, with cond when given.
func (t *Table) atomic(ctx context.Context, what string, row []byte, muts []Mutation, cond *hbasepb.Condition, done func(processed bool)) error {
	ra := &hbasepb.RegionAction{Atomic: proto.Bool(true), Condition: cond}
	var cells []cell.Cell
	for i, m := range muts {
		if !bytes.Equal(m.rowKey(), row) {
			return invalidf("%s of row %q holds a mutation of row %q", what, row, m.rowKey())
		}
		mp, mc, err := mutationPB(m, false)
		if err != nil {
			return err
		}
		ra.Action = append(ra.Action, &hbasepb.Action{Index: proto.Uint32(uint32(i)), Mutation: mp})
		cells = append(cells, mc...)
	}
	return t.onRegion(ctx, what, row, func(ctx context.Context, l *regionLoc) error {
		ra.Region = l.spec()
		var resp hbasepb.MultiResponse
		if err := t.c.call(ctx, l.server, svcClient, "Multi", &hbasepb.MultiRequest{RegionAction: []*hbasepb.RegionAction{ra}}, cells, &resp, nil); err != nil {
			return err
		}
		rars := resp.GetRegionActionResult()
		if len(rars) != 1 {
			return permanent(fmt.Errorf("client: Multi answered %d region results for 1", len(rars)))
		}
		rar := rars[0]
		if e := rar.GetException(); e != nil {
			return remoteFromPair(e.GetName(), e.GetValue())
		}
		for _, roe := range rar.GetResultOrException() {
			if e := roe.GetException(); e != nil {
				return remoteFromPair(e.GetName(), e.GetValue())
			}
		}
		if done != nil {
			p := resp.GetProcessed()
			if rar.Processed != nil {
				p = rar.GetProcessed()
			}
			done(p)
		}
		return nil
	})
}
