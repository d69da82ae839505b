package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/weirdb/weir/client"
	"github.com/weirdb/weir/internal/filter"
)

// DB is one worker thread's view of the database, as YCSB's DB class:
// fields nil means all fields. Keys, field names and values may be reused
// by the caller after the call returns.
type DB interface {
	// Read reads fields of the row at key (nil: all); cell, when not nil,
	// is given each field and value read, valid during the call only.
	Read(ctx context.Context, key []byte, fields [][]byte, cell func(field, value []byte)) Status
	Scan(ctx context.Context, start []byte, count int, fields [][]byte) Status
	Update(ctx context.Context, key []byte, fields, values [][]byte) Status
	Insert(ctx context.Context, key []byte, fields, values [][]byte) Status
	Delete(ctx context.Context, key []byte) Status
	// Close flushes buffered writes.
	Close(ctx context.Context) Status
}

// Binding connects a workload to a database and hands out per-thread DBs.
type Binding interface {
	// Prepare checks (run) or creates (load) the table.
	Prepare(ctx context.Context, phase string, w *Workload) error
	NewDB(w *Workload) DB
	Close() error
}

// nullBinding does nothing, to measure the driver itself.
type nullBinding struct{}

type nullDB struct{}

func (nullBinding) Prepare(context.Context, string, *Workload) error { return nil }
func (nullBinding) NewDB(*Workload) DB                               { return nullDB{} }
func (nullBinding) Close() error                                     { return nil }

func (nullDB) Read(context.Context, []byte, [][]byte, func(_, _ []byte)) Status { return StatusOK }
func (nullDB) Scan(context.Context, []byte, int, [][]byte) Status               { return StatusOK }
func (nullDB) Update(context.Context, []byte, [][]byte, [][]byte) Status        { return StatusOK }
func (nullDB) Insert(context.Context, []byte, [][]byte, [][]byte) Status        { return StatusOK }
func (nullDB) Delete(context.Context, []byte) Status                            { return StatusOK }
func (nullDB) Close(context.Context) Status                                     { return StatusOK }

// hbaseBinding runs the workload through Weir's (HBase-compatible) client,
// with the semantics of YCSB's hbase2 binding.
type hbaseBinding struct {
	conn   *client.Conn
	table  *client.Table
	family []byte
	dur    client.Durability
}

// connectHBase connects as user with the workload's retry count. An
// unreachable cluster is reported after a few quick attempts rather than
// after the whole retry schedule.
func connectHBase(ctx context.Context, master, user string, retries int) (*hbaseBinding, error) {
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	probe, err := client.Connect(cctx, master, client.WithUser(user), client.WithRetries(3))
	if err != nil {
		return nil, fmt.Errorf("cannot reach the cluster at %s: %w", master, err)
	}
	_ = probe.Close()
	conn, err := client.Connect(cctx, master, client.WithUser(user), client.WithRetries(retries))
	if err != nil {
		return nil, fmt.Errorf("cannot reach the cluster at %s: %w", master, err)
	}
	return &hbaseBinding{conn: conn}, nil
}

// connectAdmin connects as "admin" for a study's setup (tables, quotas),
// giving up after a few quick attempts.
func connectAdmin(ctx context.Context, master string) (*client.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	conn, err := client.Connect(cctx, master, client.WithUser("admin"), client.WithRetries(3))
	if err != nil {
		return nil, fmt.Errorf("cannot reach the cluster at %s: %w", master, err)
	}
	return conn, nil
}

func (b *hbaseBinding) Prepare(ctx context.Context, phase string, w *Workload) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	b.family = []byte(w.Family)
	b.dur = map[string]client.Durability{"USE_DEFAULT": client.DurabilityDefault, "SKIP_WAL": client.SkipWAL,
		"ASYNC_WAL": client.AsyncWAL, "SYNC_WAL": client.SyncWAL, "FSYNC_WAL": client.FsyncWAL}[w.Durability]
	admin := b.conn.Admin()
	ok, err := admin.TableExists(ctx, w.Table)
	if err != nil {
		return fmt.Errorf("cannot reach the cluster: %w", err)
	}
	if !ok {
		if phase != "load" {
			return fmt.Errorf("table %q does not exist: run `weir bench load` with the same workload first", w.Table)
		}
		d := client.TableDescriptor{Name: w.Table, Families: []client.FamilyDescriptor{{Name: w.Family}}}
		if err := admin.CreateTable(ctx, d, w.SplitKeys(w.Splits)); err != nil && !errors.Is(err, client.ErrTableExists) {
			return fmt.Errorf("creating table %q: %w", w.Table, err)
		}
	} else {
		d, err := admin.DescribeTable(ctx, w.Table)
		if err != nil {
			return fmt.Errorf("describing table %q: %w", w.Table, err)
		}
		found := false
		for _, f := range d.Families {
			found = found || f.Name == w.Family
		}
		if !found {
			return fmt.Errorf("table %q has no column family %q (set -p columnfamily=...)", w.Table, w.Family)
		}
	}
	b.table = b.conn.Table(w.Table)
	return nil
}

func (b *hbaseBinding) NewDB(w *Workload) DB {
	return &hbaseDB{b: b, buffering: w.ClientBuffering, bufLimit: w.WriteBufferSize, ownValues: w.DataIntegrity,
		pageFilter: w.PageFilter}
}

func (b *hbaseBinding) Close() error { return b.conn.Close() }

type hbaseDB struct {
	b         *hbaseBinding
	buffering bool
	// ownValues: a buffered Put copies its values, which are the
	// worker's reused buffer (dataintegrity) rather than windows of the
	// workload's read-only pool.
	ownValues bool
	bufLimit  int64
	// pageFilter: scans carry a PageFilter (Workload.PageFilter).
	pageFilter bool
	buf        []client.Action
	bufBytes   int64
}

func (d *hbaseDB) Read(ctx context.Context, key []byte, fields [][]byte, cell func(field, value []byte)) Status {
	g := client.NewGet(key)
	if fields == nil {
		g.AddFamily(d.b.family)
	} else {
		for _, f := range fields {
			g.AddColumn(d.b.family, f)
		}
	}
	// The Result is only looked at here, so it is borrowed (GetFunc):
	// the client reuses its buffers instead of allocating per read.
	st := StatusOK
	err := d.b.table.GetFunc(ctx, g, func(r *client.Result) error {
		if len(r.Cells) == 0 {
			st = StatusNotFound
		}
		if cell != nil {
			for i := range r.Cells {
				cell(r.Cells[i].Qualifier, r.Cells[i].Value)
			}
		}
		return nil
	})
	if err != nil {
		return StatusError
	}
	return st
}

func (d *hbaseDB) Scan(ctx context.Context, start []byte, count int, fields [][]byte) Status {
	// As YCSB 0.17's hbase2 binding scans: caching of count rows, no row
	// limit, and a PageFilter of count rows unless hbase.usepagefilter is
	// false; the client stops after count rows and closes the scanner if
	// the server has not.
	s := client.NewScan().WithStartRow(append([]byte(nil), start...), true).SetCaching(count)
	if d.pageFilter && count > 0 {
		s.SetFilter(&filter.PageFilter{PageSize: int64(count)})
	}
	if fields == nil {
		s.AddFamily(d.b.family)
	} else {
		for _, f := range fields {
			s.AddColumn(d.b.family, f)
		}
	}
	if count <= 0 {
		return StatusOK // nothing to read (the scanner was never used)
	}
	// The Results are borrowed (ScanFunc), so each batch reuses the
	// previous one's buffers.
	n := 0
	err := d.b.table.ScanFunc(ctx, s, func(*client.Result) error {
		if n++; n >= count {
			return client.ErrStopScan
		}
		return nil
	})
	if err != nil {
		return StatusError
	}
	return StatusOK
}

func (d *hbaseDB) put(ctx context.Context, key []byte, fields, values [][]byte) Status {
	row := key
	if d.buffering { // the Put outlives the call; the caller reuses key
		row = append([]byte(nil), key...)
	}
	p := client.NewPut(row).Grow(len(fields))
	size := int64(len(key))
	for i, f := range fields {
		v := values[i]
		if d.buffering && d.ownValues { // the worker reuses the buffer behind v
			v = append([]byte(nil), v...)
		}
		p.AddColumn(d.b.family, f, v)
		size += int64(len(f) + len(values[i]))
	}
	p.SetDurability(d.b.dur)
	if !d.buffering {
		if err := d.b.table.Put(ctx, p); err != nil {
			return StatusError
		}
		return StatusOK
	}
	d.buf = append(d.buf, p)
	d.bufBytes += size
	if d.bufBytes >= d.bufLimit {
		return d.flush(ctx)
	}
	return StatusOK
}

func (d *hbaseDB) flush(ctx context.Context) Status {
	if len(d.buf) == 0 {
		return StatusOK
	}
	_, err := d.b.table.Batch(ctx, d.buf)
	d.buf, d.bufBytes = d.buf[:0], 0
	if err != nil {
		return StatusError
	}
	return StatusOK
}

func (d *hbaseDB) Update(ctx context.Context, key []byte, fields, values [][]byte) Status {
	return d.put(ctx, key, fields, values)
}

func (d *hbaseDB) Insert(ctx context.Context, key []byte, fields, values [][]byte) Status {
	return d.put(ctx, key, fields, values)
}

func (d *hbaseDB) Delete(ctx context.Context, key []byte) Status {
	del := client.NewDelete(append([]byte(nil), key...)).SetDurability(d.b.dur)
	if err := d.b.table.Delete(ctx, del); err != nil {
		return StatusError
	}
	return StatusOK
}

func (d *hbaseDB) Close(ctx context.Context) Status { return d.flush(ctx) }
