package regionserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/lifecycle"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/storage"
)

// Region moves copy a region's range from the source store to the target
// store over HTTP on the region servers' info ports, so they work between
// hosts as well as on one. The master drives a move:
//
//  1. POST target /weir/move/in {region, source}: the target pulls
//     GET source /weir/move/export?phase=bulk (the source starts tracking
//     the rows written from now on and streams one SST of the whole range,
//     while it keeps serving the region), clears the range in its own store
//     and ingests the file; then GET .../export?phase=final (the source
//     fences the region: it closes it, so new calls get
//     NotServingRegionException and retry, waits for the calls in flight,
//     and streams an SST of only the rows written since the bulk export)
//     and ingests that.
//  2. The master switches the catalog record to the target's store; the
//     target's assignment watch opens the region. GET target
//     /weir/move/wait returns when it is open.
//  3. POST source /weir/move/release: the source deletes the range from
//     its store, unless a region assigned to it covers it again.
//
// If anything fails before the switch, POST source /weir/move/abort
// unfences the region; a fence also lifts itself after fenceTimeout if the
// catalog still assigns the region here.
const fenceTimeout = 30 * time.Second

// outgoing is a region being moved away from this server.
type outgoing struct {
	rec     meta.Region
	tracker *storage.Tracker
	fenced  bool
	done    chan struct{} // closed when the move ends here (release, abort)
}

// moves is the server's state of regions moving out. mu also serialises
// region opens with fencing, so the assignment loop never reopens a fenced
// region.
type moves struct {
	mu  sync.Mutex
	out map[string]*outgoing // by encoded name
	seq atomic.Int64         // temp file names
}

// fenced reports whether the region is fenced for a move; call with mu held.
func (m *moves) fencedLocked(encoded string) bool {
	o := m.out[encoded]
	return o != nil && o.fenced
}

func (rs *RegionServer) serveMoves(h interface {
	Handle(string, http.Handler)
}) {
	// Files of moves and major compactions a crash interrupted; none is in
	// flight at start.
	_ = rs.engine.FS().RemoveAll(filepath.Join(rs.cfg.DataDir, "move-tmp"))
	h.Handle(meta.MovePathExport, http.HandlerFunc(rs.httpExport))
	h.Handle(meta.MovePathAbort, http.HandlerFunc(rs.httpAbort))
	h.Handle(meta.MovePathRelease, http.HandlerFunc(rs.httpRelease))
	h.Handle(meta.MovePathIn, http.HandlerFunc(rs.httpMoveIn))
	h.Handle(meta.MovePathWait, http.HandlerFunc(rs.httpWait))
	h.Handle(meta.MovePathMidKey, http.HandlerFunc(rs.httpMidKey))
}

func (rs *RegionServer) tmpPath(kind string) (string, error) {
	dir := filepath.Join(rs.cfg.DataDir, "move-tmp")
	if err := rs.engine.FS().MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return filepath.Join(dir, fmt.Sprintf("%d-%d-%s.sst", rs.startCode, rs.moves.seq.Add(1), kind)), nil
}

func regionBounds(rec *meta.Region) (lo, hi []byte) {
	return storage.RegionLowerBound(rec.TableID, rec.StartKey), storage.RegionUpperBound(rec.TableID, rec.EndKey)
}

// httpExport streams one phase of a region's export (source side).
func (rs *RegionServer) httpExport(w http.ResponseWriter, r *http.Request) {
	enc := r.URL.Query().Get("region")
	switch phase := r.URL.Query().Get("phase"); phase {
	case "bulk":
		info, err := rs.exportBulk(r.Context(), enc)
		rs.sendBulk(w, r, enc, info, err)
	case "final":
		t0 := time.Now()
		repr, keys, err := rs.exportFinal(r.Context(), enc)
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		w.Header().Set("X-Weir-Export-Ms", strconv.FormatFloat(ms(time.Since(t0)), 'f', 3, 64))
		w.Header().Set("X-Weir-Keys", strconv.FormatInt(keys, 10))
		w.Header().Set("X-Weir-Clock", strconv.FormatInt(rs.clockFloor.Load(), 10))
		if repr == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(repr)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(repr)
	default:
		http.Error(w, fmt.Sprintf("regionserver: unknown export phase %q", phase), http.StatusBadRequest)
	}
}

// sendBulk answers the bulk export: the SST streamed, or, to a target on
// this host, its path to hard-link.
func (rs *RegionServer) sendBulk(w http.ResponseWriter, r *http.Request, enc string, info storage.ExportInfo, err error) {
	w.Header().Set("X-Weir-Keys", strconv.FormatInt(info.Keys, 10))
	if errors.Is(err, storage.ErrEmptyExport) {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	if host := r.URL.Query().Get("host"); host != "" && host == rs.cfg.HostID {
		// Same host: the target links the file instead of copying it,
		// and removes it.
		w.Header().Set("X-Weir-Path", info.Path)
		w.WriteHeader(http.StatusOK)
		return
	}
	f, err := rs.engine.FS().Open(info.Path)
	if err != nil {
		_ = rs.engine.FS().Remove(info.Path)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	// Freeing a region-sized file takes a while on a busy disk, and the
	// target's next request on this connection (the final phase, while
	// the region is fenced) waits for this handler: do it in the
	// background.
	release := func(context.Context) {
		_ = f.Close()
		_ = rs.engine.FS().Remove(info.Path)
	}
	defer func() {
		if !rs.group.Go(release) {
			release(context.Background())
		}
	}()
	w.Header().Set("Content-Length", strconv.FormatUint(info.Size, 10))
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, f); err != nil {
		rs.log.Warn("regionserver: streaming a region export failed", "region", enc, "err", err)
	}
}

// exportBulk starts a move out: track writes, then export the whole range
// while the region keeps serving.
func (rs *RegionServer) exportBulk(ctx context.Context, enc string) (storage.ExportInfo, error) {
	h, err := rs.regions.lookup([]byte(enc), true)
	if err != nil {
		return storage.ExportInfo{}, err
	}
	rs.moves.mu.Lock()
	if o := rs.moves.out[enc]; o != nil {
		rs.moves.mu.Unlock()
		return storage.ExportInfo{}, fmt.Errorf("regionserver: region %s is already moving", enc)
	}
	lo, hi := regionBounds(&h.rec)
	o := &outgoing{rec: h.rec, tracker: rs.engine.Track(lo, hi), done: make(chan struct{})}
	if rs.moves.out == nil {
		rs.moves.out = map[string]*outgoing{}
	}
	rs.moves.out[enc] = o
	rs.moves.mu.Unlock()
	path, err := rs.tmpPath("bulk")
	if err != nil {
		rs.endMove(enc, false)
		return storage.ExportInfo{}, err
	}
	info, err := rs.engine.Export(ctx, lo, hi, path)
	if err != nil && !errors.Is(err, storage.ErrEmptyExport) {
		rs.endMove(enc, false)
	}
	return info, err
}

// exportFinal fences the region and exports the rows written since the
// bulk export.
func (rs *RegionServer) exportFinal(ctx context.Context, enc string) ([]byte, int64, error) {
	rs.moves.mu.Lock()
	o := rs.moves.out[enc]
	if o == nil {
		rs.moves.mu.Unlock()
		return nil, 0, fmt.Errorf("regionserver: region %s has no bulk export in progress", enc)
	}
	o.fenced = true
	name, _ := o.rec.Name()
	rs.closeRegion(name) // waits for the calls in flight: no write escapes the tracker
	rs.moves.mu.Unlock()
	rs.group.Go(func(gctx context.Context) {
		select {
		case <-gctx.Done():
		case <-o.done:
		case <-time.After(fenceTimeout):
			rs.log.Warn("regionserver: a move did not finish in time; lifting the fence", "region", enc)
			rs.finishMoveOut(context.WithoutCancel(gctx), enc)
		}
	})
	return rs.engine.ChangesRepr(ctx, o.tracker)
}

// endMove forgets a move out; reopen unfences the region, reopening it if
// the catalog still assigns it here.
func (rs *RegionServer) endMove(enc string, reopen bool) *outgoing {
	rs.moves.mu.Lock()
	o := rs.moves.out[enc]
	if o != nil {
		delete(rs.moves.out, enc)
		o.tracker.Stop()
		close(o.done)
	}
	rs.moves.mu.Unlock()
	if o != nil && reopen {
		rs.resyncSoon()
	}
	return o
}

// resyncSoon makes the assignment loop read the catalog again (it opens
// an unfenced region that is still ours).
func (rs *RegionServer) resyncSoon() {
	select {
	case rs.resync <- struct{}{}:
	default:
	}
}

func (rs *RegionServer) httpAbort(w http.ResponseWriter, r *http.Request) {
	enc := r.URL.Query().Get("region")
	if rs.endMove(enc, true) == nil {
		http.Error(w, "regionserver: no move of region "+enc, http.StatusNotFound)
		return
	}
	rs.log.Info("regionserver: move aborted; region unfenced", "region", enc)
}

func (rs *RegionServer) httpRelease(w http.ResponseWriter, r *http.Request) {
	if err := rs.finishMoveOut(r.Context(), r.URL.Query().Get("region")); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
	}
}

// finishMoveOut ends a move out: if the catalog no longer assigns the
// region's range to this store, the range is deleted here; if it still
// does (the move did not happen), the region is unfenced.
func (rs *RegionServer) finishMoveOut(ctx context.Context, enc string) error {
	rs.moves.mu.Lock()
	o := rs.moves.out[enc]
	rs.moves.mu.Unlock()
	if o == nil {
		return fmt.Errorf("regionserver: no move of region %s", enc)
	}
	regions, err := rs.catalog.TableRegions(ctx, o.rec.TableID)
	if err != nil {
		return err
	}
	for i := range regions {
		x := &regions[i]
		if x.Store == rs.storeID && overlaps(x, &o.rec) {
			rs.endMove(enc, true)
			return fmt.Errorf("regionserver: region %s is still assigned here; unfenced", enc)
		}
	}
	lo, hi := regionBounds(&o.rec)
	if err := rs.engine.ClearRange(lo, hi); err != nil {
		return err
	}
	rs.endMove(enc, false)
	rs.log.Info("regionserver: moved region's data released", "region", enc)
	return nil
}

func overlaps(a, b *meta.Region) bool {
	return (len(a.EndKey) == 0 || bytes.Compare(b.StartKey, a.EndKey) < 0) &&
		(len(b.EndKey) == 0 || bytes.Compare(a.StartKey, b.EndKey) < 0)
}

// httpMoveIn pulls a region from its source into this store (target side).
// The region is not opened: the catalog switch does that.
func (rs *RegionServer) httpMoveIn(w http.ResponseWriter, r *http.Request) {
	var in meta.MoveIn
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, "regionserver: bad move request: "+err.Error(), http.StatusBadRequest)
		return
	}
	res, err := rs.moveIn(r.Context(), in)
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	_ = json.NewEncoder(w).Encode(res)
}

func (rs *RegionServer) moveIn(ctx context.Context, in meta.MoveIn) (meta.MoveInResult, error) {
	var res meta.MoveInResult
	name, enc := in.Region.Name()
	if in.Region.Store == rs.storeID {
		return res, fmt.Errorf("regionserver: region %s is already on this store", enc)
	}
	if _, err := rs.regions.get(name); err == nil {
		return res, fmt.Errorf("regionserver: region %s is already open here", enc)
	}
	lo, hi := regionBounds(&in.Region)
	bulk, err := rs.fetchBulk(ctx, in.Source, enc)
	if err != nil {
		return res, err
	}
	res.BulkKeys, res.BulkBytes = bulk.keys, fileSize(rs, bulk.path)
	if err := rs.clearStale(lo, hi); err != nil {
		return res, err
	}
	if bulk.path != "" {
		if err := rs.engine.Ingest(ctx, []string{bulk.path}); err != nil {
			return res, err
		}
	}
	start := time.Now()
	final, err := rs.fetchFinal(ctx, in.Source, enc)
	if err != nil {
		return res, err
	}
	res.FinalKeys, res.FinalExportMs = final.keys, final.exportMs
	res.FinalFetchMs = ms(time.Since(start))
	if final.repr != nil {
		if err := rs.engine.ApplyRepr(final.repr, lo, hi); err != nil {
			return res, err
		}
	}
	res.FencedMs = ms(time.Since(start))
	res.FinalIngestMs = res.FencedMs - res.FinalFetchMs
	return res, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// clearStale deletes what an earlier stint of the region left in this
// store's range, if anything. An empty range gets no range deletion: one
// in the memtable would turn the bulk ingest into a flushable ingest into
// L0 and a compaction rewriting the whole region, where a file over an
// empty range goes straight to the bottom level.
func (rs *RegionServer) clearStale(lo, hi []byte) error {
	it, err := rs.engine.NewIter(storage.IterOptions{Lower: lo, Upper: hi})
	if err != nil {
		return err
	}
	stale := it.First()
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return err
	}
	if !stale {
		return nil
	}
	return rs.engine.ClearRange(lo, hi)
}

func fileSize(rs *RegionServer, path string) int64 {
	if path == "" {
		return 0
	}
	st, err := rs.engine.FS().Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// fetched is one export phase received.
type fetched struct {
	path     string // bulk: the SST; "" when the source had nothing
	repr     []byte // final: the changes as a batch; nil when none
	keys     int64
	exportMs float64 // final: the source's time to fence and export
}

// maxFinalBytes bounds the final phase's batch (what was written to the
// region during its bulk copy).
const maxFinalBytes = 1 << 30

// getExport asks the source for one export phase. The caller closes the
// body of a non-nil response (nil: the source had nothing).
func (rs *RegionServer) getExport(ctx context.Context, source, enc, phase string) (*http.Response, fetched, error) {
	u := "http://" + source + meta.MovePathExport + "?region=" + url.QueryEscape(enc) + "&phase=" + phase +
		"&host=" + url.QueryEscape(rs.cfg.HostID)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fetched{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fetched{}, fmt.Errorf("regionserver: fetching the %s export of %s: %w", phase, enc, err)
	}
	if ts, err := strconv.ParseInt(resp.Header.Get("X-Weir-Clock"), 10, 64); err == nil {
		rs.raiseClockFloor(ts)
	}
	var out fetched
	out.keys, _ = strconv.ParseInt(resp.Header.Get("X-Weir-Keys"), 10, 64)
	out.exportMs, _ = strconv.ParseFloat(resp.Header.Get("X-Weir-Export-Ms"), 64)
	switch resp.StatusCode {
	case http.StatusOK:
		return resp, out, nil
	case http.StatusNoContent:
		resp.Body.Close()
		return nil, out, nil
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return nil, out, fmt.Errorf("regionserver: source refused the %s export of %s: %s", phase, enc, bytes.TrimSpace(msg))
}

// fetchFinal receives the final phase: the rows written during the bulk
// copy, as a batch.
func (rs *RegionServer) fetchFinal(ctx context.Context, source, enc string) (fetched, error) {
	resp, out, err := rs.getExport(ctx, source, enc, "final")
	if err != nil || resp == nil {
		return out, err
	}
	defer resp.Body.Close()
	if out.repr, err = io.ReadAll(io.LimitReader(resp.Body, maxFinalBytes+1)); err != nil {
		return out, fmt.Errorf("regionserver: receiving the final export of %s: %w", enc, err)
	}
	if len(out.repr) > maxFinalBytes {
		return out, fmt.Errorf("regionserver: the final export of %s exceeds %d bytes", enc, maxFinalBytes)
	}
	return out, nil
}

// fetchBulk receives the bulk phase into a temp file: by a hard link when
// the source is on this host, else over HTTP.
func (rs *RegionServer) fetchBulk(ctx context.Context, source, enc string) (fetched, error) {
	resp, out, err := rs.getExport(ctx, source, enc, "bulk")
	if err != nil || resp == nil {
		return out, err
	}
	defer resp.Body.Close()
	path, err := rs.tmpPath("bulk-in")
	if err != nil {
		return out, err
	}
	if src := resp.Header.Get("X-Weir-Path"); src != "" {
		err := rs.engine.FS().Link(src, path)
		_ = rs.engine.FS().Remove(src)
		if err != nil {
			return out, fmt.Errorf("regionserver: linking the bulk export of %s: %w", enc, err)
		}
		out.path = path
		return out, nil
	}
	f, err := rs.engine.FS().Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return out, err
	}
	f = storage.NewSyncingFile(f)
	n, err := io.Copy(f, resp.Body)
	if err == nil && resp.ContentLength >= 0 && n != resp.ContentLength {
		err = fmt.Errorf("short transfer: %d of %d bytes", n, resp.ContentLength)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = rs.engine.FS().Remove(path)
		return out, fmt.Errorf("regionserver: receiving the bulk export of %s: %w", enc, err)
	}
	out.path = path
	return out, nil
}

// httpWait answers once the region is open here, or 504 after timeout.
func (rs *RegionServer) httpWait(w http.ResponseWriter, r *http.Request) {
	enc := r.URL.Query().Get("region")
	timeout, err := time.ParseDuration(r.URL.Query().Get("timeout"))
	if err != nil {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	for {
		if _, err := rs.regions.lookup([]byte(enc), true); err == nil {
			return
		}
		if lifecycle.Sleep(ctx, time.Millisecond); ctx.Err() != nil {
			http.Error(w, "regionserver: region "+enc+" did not open in time", http.StatusGatewayTimeout)
			return
		}
	}
}

// httpMidKey answers the row that splits the region's data in half.
func (rs *RegionServer) httpMidKey(w http.ResponseWriter, r *http.Request) {
	h, err := rs.regions.lookup([]byte(r.URL.Query().Get("region")), true)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	row, err := h.r.MidKey(r.Context())
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	_, _ = w.Write(row)
}
