package master

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/weirdb/weir/internal/meta"
)

// Sentinel errors of the region lifecycle (move, split, merge, assign).
var (
	ErrUnknownServer  = errors.New("master: no such live region server")
	ErrBadSplitRow    = errors.New("master: bad split row")
	ErrNotMergeable   = errors.New("master: regions cannot be merged")
	ErrRegionNotReady = errors.New("master: region not online")
)

// openWait bounds how long a lifecycle call waits for its regions to open.
const openWait = 10 * time.Second

// MoveStats describes a finished move.
type MoveStats struct {
	Source, Target string // store ids
	BulkKeys       int64
	BulkBytes      int64
	FinalKeys      int64
	// Unavailable is how long clients could not reach the region: from the
	// source's fence to the target having it open.
	Unavailable time.Duration
	// FenceAt is when, from the move's start, the source fenced the region.
	FenceAt time.Duration
	// The parts of Unavailable: the final export's fetch and ingest at the
	// target, and the catalog switch until the target has it open.
	FinalFetch, FinalIngest, Switch time.Duration
	// FinalExport is the source's part of FinalFetch.
	FinalExport time.Duration
	Total       time.Duration
}

// MoveRegion moves a region (by encoded or full name) with its data to
// the live region server whose store id is targetStore, or, when
// targetStore is "", to the least loaded other store. Moving a region to
// the store it is on is a no-op. The call returns when the region is open
// at the target and its data has been removed from the source.
func (m *Master) MoveRegion(ctx context.Context, encodedName []byte, targetStore string) error {
	_, err := m.MoveRegionStats(ctx, encodedName, targetStore)
	return err
}

// MoveRegionStats is MoveRegion, returning what the move took.
func (m *Master) MoveRegionStats(ctx context.Context, encodedName []byte, targetStore string) (MoveStats, error) {
	m.regionOps.Lock()
	defer m.regionOps.Unlock()
	st, err := m.moveLocked(ctx, encodedName, targetStore)
	if err == nil && st.Unavailable > 0 {
		m.lifecycle.unavailable.Observe(st.Unavailable.Seconds())
	}
	return st, m.lifecycle.done("move", err)
}

// StoreOf returns the store id of the live region server at addr
// ("host:port", or HBase's "host,port,startcode").
func (m *Master) StoreOf(ctx context.Context, addr string) (string, error) {
	stores, err := m.liveStores(ctx)
	if err != nil {
		return "", err
	}
	host, port, code := parseServerName(addr)
	for _, s := range stores {
		if s.Host == host && strconv.Itoa(s.Port) == port && (code == 0 || code == s.StartCode) {
			return s.StoreID, nil
		}
	}
	return "", fmt.Errorf("%w: %s", ErrUnknownServer, addr)
}

// parseServerName splits "host:port" or "host,port,startcode".
func parseServerName(s string) (host, port string, startCode int64) {
	if parts := bytes.Split([]byte(s), []byte(",")); len(parts) == 3 {
		code, _ := strconv.ParseInt(string(parts[2]), 10, 64)
		return string(parts[0]), string(parts[1]), code
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return s, "", 0
	}
	return host, port, 0
}

// liveStores maps each live server's store id to its newest registration.
func (m *Master) liveStores(ctx context.Context) (map[string]meta.ServerInfo, error) {
	servers, err := m.catalog.Servers(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]meta.ServerInfo{}
	for _, s := range servers {
		if old, dup := out[s.StoreID]; !dup || s.StartCode > old.StartCode {
			out[s.StoreID] = s
		}
	}
	return out, nil
}

// onlineRegion looks a region up and checks that it is served: assigned
// to a live server and not offline. It returns the region and its server.
func (m *Master) onlineRegion(ctx context.Context, name []byte) (meta.VersionedRegion, meta.ServerInfo, error) {
	vr, err := m.catalog.LookupRegion(ctx, name)
	if err != nil {
		return vr, meta.ServerInfo{}, err
	}
	_, enc := vr.Name()
	if vr.Offline || vr.Split || vr.Store == "" {
		return vr, meta.ServerInfo{}, fmt.Errorf("%w: region %s is offline or unassigned", ErrRegionNotReady, enc)
	}
	stores, err := m.liveStores(ctx)
	if err != nil {
		return vr, meta.ServerInfo{}, err
	}
	src, ok := stores[vr.Store]
	if !ok {
		return vr, meta.ServerInfo{}, fmt.Errorf("%w: the server of region %s (store %s) is down", ErrRegionNotReady, enc, vr.Store)
	}
	return vr, src, nil
}

func (m *Master) moveLocked(ctx context.Context, name []byte, targetStore string) (MoveStats, error) {
	start := time.Now()
	var st MoveStats
	vr, src, err := m.onlineRegion(ctx, name)
	if err != nil {
		return st, err
	}
	_, enc := vr.Name()
	stores, err := m.liveStores(ctx)
	if err != nil {
		return st, err
	}
	if targetStore == "" {
		load, err := m.storeLoad(ctx, stores)
		if err != nil {
			return st, err
		}
		delete(stores, vr.Store)
		if len(stores) == 0 {
			return st, fmt.Errorf("%w: no other live region server to move %s to", ErrUnknownServer, enc)
		}
		targetStore = leastLoaded(stores, load).StoreID
	}
	tgt, ok := stores[targetStore]
	if !ok {
		return st, fmt.Errorf("%w: no live region server has store %q", ErrUnknownServer, targetStore)
	}
	st.Source, st.Target = vr.Store, tgt.StoreID
	if tgt.StoreID == vr.Store {
		return st, nil
	}
	if src.InfoPort == 0 || tgt.InfoPort == 0 {
		return st, fmt.Errorf("master: moving %s needs the info ports of both region servers, which are off", enc)
	}
	srcInfo := net.JoinHostPort(src.Host, strconv.Itoa(src.InfoPort))
	tgtInfo := net.JoinHostPort(tgt.Host, strconv.Itoa(tgt.InfoPort))
	abort := func(err error) (MoveStats, error) {
		if _, aerr := m.rsCall(context.WithoutCancel(ctx), srcInfo, meta.MovePathAbort, url.Values{"region": {enc}}, nil); aerr != nil {
			m.log.Warn("master: aborting a move at its source failed; the fence lifts by itself", "region", enc, "err", aerr)
		}
		return st, fmt.Errorf("master: moving region %s: %w", enc, err)
	}
	body, err := json.Marshal(meta.MoveIn{Region: vr.Region, Source: srcInfo})
	if err != nil {
		return st, err
	}
	out, err := m.rsCall(ctx, tgtInfo, meta.MovePathIn, nil, body)
	if err != nil {
		return abort(err)
	}
	var res meta.MoveInResult
	if err := json.Unmarshal(out, &res); err != nil {
		return abort(err)
	}
	st.BulkKeys, st.BulkBytes, st.FinalKeys = res.BulkKeys, res.BulkBytes, res.FinalKeys
	switched := time.Now()
	st.FenceAt = switched.Sub(start) - time.Duration(res.FencedMs*float64(time.Millisecond))
	next := vr.Region
	next.Store, next.Server, next.StartCode = tgt.StoreID, tgt.Addr(), tgt.StartCode
	next.OpenSeq++
	m.assignMu.Lock()
	err = m.catalog.ChangeRegions(ctx, []meta.VersionedRegion{vr}, []meta.Region{next})
	m.assignMu.Unlock()
	if err != nil {
		return abort(err)
	}
	m.rebuildMeta(ctx)
	if err := m.waitOpen(ctx, tgtInfo, enc); err != nil {
		m.log.Warn("master: moved region slow to open", "region", enc, "err", err)
	}
	st.Switch = time.Since(switched)
	st.FinalFetch = time.Duration(res.FinalFetchMs * float64(time.Millisecond))
	st.FinalIngest = time.Duration(res.FinalIngestMs * float64(time.Millisecond))
	st.FinalExport = time.Duration(res.FinalExportMs * float64(time.Millisecond))
	st.Unavailable = time.Duration(res.FencedMs*float64(time.Millisecond)) + st.Switch
	if _, err := m.rsCall(ctx, srcInfo, meta.MovePathRelease, url.Values{"region": {enc}}, nil); err != nil {
		m.log.Warn("master: the source did not release a moved region's data", "region", enc, "err", err)
	}
	st.Total = time.Since(start)
	m.log.Info("master: moved region", "region", enc, "from", st.Source, "to", st.Target, "keys", st.BulkKeys+st.FinalKeys,
		"bytes", st.BulkBytes, "unavailable", st.Unavailable, "took", st.Total)
	return st, nil
}

// storeLoad counts the regions assigned to each live store.
func (m *Master) storeLoad(ctx context.Context, stores map[string]meta.ServerInfo) (map[string]int, error) {
	regions, err := m.catalog.AllRegions(ctx)
	if err != nil {
		return nil, err
	}
	load := map[string]int{}
	for id := range stores {
		load[id] = 0
	}
	for _, r := range regions {
		if r.Store != "" {
			load[r.Store]++
		}
	}
	return load, nil
}

func (m *Master) rebuildMeta(ctx context.Context) {
	if err := m.meta.rebuild(ctx); err != nil {
		m.log.Warn("master: hbase:meta rebuild failed; the view catches up by watch", "err", err)
	}
}

// waitOpen waits until the server at infoAddr has the region open.
func (m *Master) waitOpen(ctx context.Context, infoAddr, enc string) error {
	_, err := m.rsCall(ctx, infoAddr, meta.MovePathWait, url.Values{"region": {enc}, "timeout": {openWait.String()}}, nil)
	return err
}

// rsCall calls a region server's lifecycle endpoint on its info port: a
// POST when body is non-nil (or for abort and release), else a GET.
func (m *Master) rsCall(ctx context.Context, infoAddr, path string, q url.Values, body []byte) ([]byte, error) {
	method := http.MethodGet
	if body != nil || path == meta.MovePathAbort || path == meta.MovePathRelease {
		method = http.MethodPost
	}
	u := "http://" + infoAddr + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("calling region server %s: %w", infoAddr, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("region server %s: %s", infoAddr, bytes.TrimSpace(out))
	}
	return out, nil
}
