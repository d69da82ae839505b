// Package clientsvc implements HBase's ClientService (Get, Mutate, Scan,
// Multi) over regions, for region servers and for the master's hbase:meta
// view alike. It decodes requests with hbaseconv, runs them on
// region.Region, and encodes results as cellblocks when the connection
// negotiated a codec.
package clientsvc

import (
	"context"
	"log/slog"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/lifecycle"
	"github.com/weirdb/weir/internal/region"
)

// Regions finds the open region a request names. It returns an error
// wrapping ErrNotServing for a region not served here.
type Regions interface {
	Region(name []byte, encoded bool) (*region.Region, error)
}

// Service is the ClientService handler. It owns the open scanners.
type Service struct {
	regions  Regions
	scanners *scannerTable
	log      *slog.Logger
	group    *lifecycle.Group
	guard    MutationGuard // nil: every mutation may run
}

// New returns a service over regions whose idle scanners expire after
// scannerLease. Close stops its background work.
func New(regions Regions, scannerLease time.Duration, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Service{regions: regions, scanners: newScannerTable(scannerLease), log: log, group: lifecycle.New(context.Background())}
	s.group.Go(s.scanners.reap)
	return s
}

// Close ends every scanner and the lease reaper.
func (s *Service) Close() {
	s.group.Stop()
	s.scanners.closeAll()
}

// CloseRegionScanners ends the scanners of a region that is closing.
func (s *Service) CloseRegionScanners(r *region.Region) { s.scanners.closeRegion(r) }

// OpenScanners is the number of open scanners.
func (s *Service) OpenScanners() int { return s.scanners.count() }

// Serve implements hbaserpc.Handler.
func (s *Service) Serve(ctx context.Context, c *hbaserpc.Call) (hbaserpc.Response, error) {
	var (
		resp hbaserpc.Response
		err  error
	)
	switch c.Method {
	case "Get":
		var req *hbasepb.GetRequest
		if req, err = unmarshal(c, newMsg[hbasepb.GetRequest]); err == nil {
			resp, err = s.get(ctx, c, req)
		}
	case "Mutate":
		var req *hbasepb.MutateRequest
		if req, err = unmarshal(c, newMsg[hbasepb.MutateRequest]); err == nil {
			resp, err = s.mutate(ctx, c, req)
		}
	case "Scan":
		var req *hbasepb.ScanRequest
		if req, err = unmarshal(c, newMsg[hbasepb.ScanRequest]); err == nil {
			resp, err = s.scan(ctx, c, req)
		}
	case "Multi":
		var req *hbasepb.MultiRequest
		if req, err = unmarshal(c, newMsg[hbasepb.MultiRequest]); err == nil {
			resp, err = s.multi(ctx, c, req)
		}
	default:
		return resp, hbaserpc.Errorf(hbaserpc.UnsupportedOperation, true, "ClientService.%s is not supported by Weir", c.Method)
	}
	if err != nil {
		s.log.Debug("clientsvc: call failed", "method", c.Method, "err", err)
	}
	return resp, remote(err)
}

// unmarshal returns the call's request: the message a decorator already
// decoded (c.Msg) when it is of type T, else one decoded from c.Param (a
// new one from newT when the hand decoders decline it; a func, not a
// message, so that a call the fast path or the decorator served allocates
// none).
func unmarshal[T proto.Message](c *hbaserpc.Call, newT func() T) (T, error) {
	if d, ok := c.Msg.(T); ok {
		return d, nil
	}
	// The hand decoders (hbaserpc/fastpb.go) accept only what the runtime
	// would decode the same way.
	var fast proto.Message
	var ok bool
	var zero T
	switch any(zero).(type) {
	case *hbasepb.GetRequest:
		fast, ok = c.DecodeGet()
	case *hbasepb.MutateRequest:
		fast, ok = c.DecodeMutate()
	case *hbasepb.ScanRequest:
		fast, ok = hbaserpc.DecodeScanRequest(c.Param)
	}
	if ok {
		return fast.(T), nil
	}
	m := newT()
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(c.Param, m); err != nil {
		return m, badRequest("malformed %s request: %v", c.Method, err)
	}
	return m, nil
}

// newMsg is unmarshal's newT for a message type M.
func newMsg[M any]() *M { return new(M) }
