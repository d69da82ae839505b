package cluster

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/cpumeter"
	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/region"
)

// YCSB-like workload shape: rows "user%08d" in family "family", each of
// benchCellsPerRow cells "field0".."field9" with benchValueSize-byte values.
const (
	benchTable       = "usertable"
	benchFamily      = "family"
	benchRows        = 10_000
	benchCellsPerRow = 10
	benchValueSize   = 100
	benchLoadBatch   = 100 // rows per Multi while loading
	benchCallers     = 32  // goroutines of the concurrent sub-benchmarks
)

var benchQualifiers = func() [][]byte {
	q := make([][]byte, benchCellsPerRow)
	for i := range q {
		q[i] = fmt.Appendf(nil, "field%d", i)
	}
	return q
}()

// benchEnv is a running one-process cluster with benchTable created and
// its single region assigned.
type benchEnv struct {
	c          *Cluster
	rsAddr     string
	regionName []byte
	spec       *hbasepb.RegionSpecifier
}

func benchRowKey(i int) []byte { return fmt.Appendf(nil, "user%08d", i) }

// benchRowCells is a whole row: benchCellsPerRow cells of benchValueSize
// bytes, the value derived from the row number.
func benchRowCells(i int) []cell.Cell {
	cells := make([]cell.Cell, benchCellsPerRow)
	for j := range cells {
		cells[j] = cell.Cell{
			Family: []byte(benchFamily), Qualifier: benchQualifiers[j],
			Timestamp: cell.LatestTimestamp, Type: cell.TypePut,
			Value: bytes.Repeat([]byte{byte('a' + (i+j)%26)}, benchValueSize),
		}
	}
	return cells
}

// benchStart starts a cluster, creates benchTable through MasterService
// and waits until its region serves Gets. The cluster is closed before the
// temporary directory is removed (cleanups run last-in first-out).
func benchStart(b *testing.B) *benchEnv {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := b.TempDir()
	c, err := Start(ctx, Config{DataDir: dir})
	if err != nil {
		b.Fatalf("starting cluster: %v", err)
	}
	b.Cleanup(c.Close)

	mc := benchDial(b, c.MasterAddr(), "MasterService")
	tn := meta.TableName{Namespace: meta.DefaultNamespace, Qualifier: benchTable}
	desc := region.TableDescriptor{Name: benchTable, Families: []region.FamilyDescriptor{{Name: []byte(benchFamily)}}}
	desc.EnsureDefaults()
	req := &hbasepb.CreateTableRequest{TableSchema: hbaseconv.TableDescriptorToPB(tn, desc)}
	if _, err := mc.Call(ctx, "CreateTable", req, nil, &hbasepb.CreateTableResponse{}); err != nil {
		b.Fatalf("CreateTable: %v", err)
	}

	cat := meta.New(c.EtcdClient, "")
	t, err := cat.GetTable(ctx, tn)
	if err != nil {
		b.Fatalf("GetTable: %v", err)
	}
	regions, err := cat.TableRegions(ctx, t.ID)
	if err != nil {
		b.Fatalf("TableRegions: %v", err)
	}
	if len(regions) != 1 {
		b.Fatalf("%s has %d regions; want 1", tn, len(regions))
	}
	name, _ := regions[0].Name()
	env := &benchEnv{c: c, rsAddr: c.RegionServers[0].Addr(), regionName: name,
		spec: hbaseconv.RegionSpecifierFromName(name)}

	// Assignment is asynchronous: retry a Get until the region answers.
	cc := benchDial(b, env.rsAddr, "ClientService")
	for {
		_, err := env.benchGet(ctx, cc, benchRowKey(0))
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			b.Fatalf("region %q never served a Get: %v", name, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return env
}

// benchDial opens a connection closed at the end of the benchmark.
func benchDial(b *testing.B, addr, service string) *hbaserpc.ClientConn {
	b.Helper()
	cc, err := hbaserpc.Dial(context.Background(), addr, hbaserpc.DialOptions{User: "bench", Service: service})
	if err != nil {
		b.Fatalf("dialing %s %s: %v", service, addr, err)
	}
	b.Cleanup(func() { _ = cc.Close() })
	return cc
}

// benchGet reads one whole row and returns its cells.
func (e *benchEnv) benchGet(ctx context.Context, cc *hbaserpc.ClientConn, row []byte) ([]cell.Cell, error) {
	g, err := hbaseconv.GetToPB(region.Get{Row: row})
	if err != nil {
		return nil, err
	}
	var resp hbasepb.GetResponse
	blockCells, err := cc.Call(ctx, "Get", &hbasepb.GetRequest{Region: e.spec, Get: g}, nil, &resp)
	if err != nil {
		return nil, err
	}
	res, _, err := hbaseconv.ResultFromPB(resp.GetResult(), blockCells)
	if err != nil {
		return nil, err
	}
	return res.Cells, nil
}

// benchPut writes one whole row with a single Mutate (durability USE_DEFAULT,
// which is SYNC_WAL), its cells in the request cellblock.
func (e *benchEnv) benchPut(ctx context.Context, cc *hbaserpc.ClientConn, row []byte, cells []cell.Cell) error {
	mp, reqCells, err := hbaseconv.MutationToPB(hbaseconv.Converted{Kind: hbaseconv.KindPut,
		Mutation: region.Mutation{Type: region.MutationPut, Row: row, Cells: cells}}, true)
	if err != nil {
		return err
	}
	var resp hbasepb.MutateResponse
	if _, err := cc.Call(ctx, "Mutate", &hbasepb.MutateRequest{Region: e.spec, Mutation: mp}, reqCells, &resp); err != nil {
		return err
	}
	if !resp.GetProcessed() {
		return fmt.Errorf("put of %q not processed", row)
	}
	return nil
}

// benchLoad writes benchRows rows with Multi requests of benchLoadBatch Puts.
func (e *benchEnv) benchLoad(b *testing.B) {
	b.Helper()
	ctx := context.Background()
	cc := benchDial(b, e.rsAddr, "ClientService")
	for start := 0; start < benchRows; start += benchLoadBatch {
		ra := &hbasepb.RegionAction{Region: e.spec}
		var reqCells []cell.Cell
		for i := start; i < min(start+benchLoadBatch, benchRows); i++ {
			mp, cells, err := hbaseconv.MutationToPB(hbaseconv.Converted{Kind: hbaseconv.KindPut,
				Mutation: region.Mutation{Type: region.MutationPut, Row: benchRowKey(i), Cells: benchRowCells(i)}}, true)
			if err != nil {
				b.Fatal(err)
			}
			idx := uint32(len(ra.Action))
			ra.Action = append(ra.Action, &hbasepb.Action{Index: &idx, Mutation: mp})
			reqCells = append(reqCells, cells...)
		}
		var resp hbasepb.MultiResponse
		if _, err := cc.Call(ctx, "Multi", &hbasepb.MultiRequest{RegionAction: []*hbasepb.RegionAction{ra}}, reqCells, &resp); err != nil {
			b.Fatalf("Multi at row %d: %v", start, err)
		}
		for _, rar := range resp.GetRegionActionResult() {
			if ex := rar.GetException(); ex != nil {
				b.Fatalf("Multi at row %d: region exception %s", start, ex.GetName())
			}
			for _, roe := range rar.GetResultOrException() {
				if ex := roe.GetException(); ex != nil {
					b.Fatalf("Multi at row %d: action %d: %s", start, roe.GetIndex(), ex.GetName())
				}
			}
		}
	}
}

// benchParallelism is the SetParallelism argument giving at least callers
// goroutines in RunParallel, and how many that actually is.
func benchParallelism(callers int) (p, actual int) {
	procs := runtime.GOMAXPROCS(0)
	p = (callers + procs - 1) / procs
	return p, p * procs
}

// benchMeter reports "cpu-ns/op" (process CPU, server included, per
// operation) and "ops/s" (wall-clock throughput) for the timed loop it
// brackets.
type benchMeter struct {
	cpu  time.Duration
	wall time.Time
}

func benchStartMeter(b *testing.B) benchMeter {
	return benchMeter{cpu: cpumeter.Process(), wall: time.Now()}
}

func (m benchMeter) benchReport(b *testing.B) {
	wall := time.Since(m.wall)
	cpu := cpumeter.Process() - m.cpu
	if b.N == 0 || wall <= 0 {
		return
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(b.N)/wall.Seconds(), "ops/s")
}
