package clientsvc

import (
	"context"
	"errors"
	"fmt"

	"github.com/weirdb/weir/internal/hbaseconv"
	"github.com/weirdb/weir/internal/hbaserpc"
	"github.com/weirdb/weir/internal/region"
)

// ErrNotServing is returned by a Regions lookup for a region this server
// does not serve now; the client reloads its location and retries.
var ErrNotServing = errors.New("clientsvc: region not serving")

// remote maps an error of the region layer onto the Java exception the
// HBase client understands, which decides whether it retries, relocates
// the region or gives up. This is the one place that table lives.
func remote(err error) error {
	if err == nil {
		return nil
	}
	var re *hbaserpc.Error
	if errors.As(err, &re) {
		return re
	}
	var unsup *hbaseconv.UnsupportedError
	switch {
	case errors.As(err, &unsup):
		return hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "%v: Weir does not support %s", err, unsup.Class)
	case errors.Is(err, ErrNotServing), errors.Is(err, region.ErrClosed), errors.Is(err, region.ErrWrongRegion):
		return hbaserpc.Errorf(hbaserpc.NotServingRegion, false, "%v", err)
	case errors.Is(err, region.ErrNoSuchFamily):
		return hbaserpc.Errorf(hbaserpc.NoSuchColumnFamily, true, "%v", err)
	case errors.Is(err, region.ErrInvalidArgument), errors.Is(err, region.ErrNotACounter),
		errors.Is(err, hbaseconv.ErrInvalid), errors.Is(err, region.ErrScannerClosed):
		return hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "%v", err)
	case errors.Is(err, region.ErrRowLockTimeout):
		return hbaserpc.Errorf(hbaserpc.IOException, false, "%v", err)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return hbaserpc.Errorf(hbaserpc.IOException, false, "call ended: %v", err)
	}
	return hbaserpc.Errorf(hbaserpc.IOException, false, "%v", err)
}

func badRequest(format string, args ...any) error {
	return hbaserpc.Errorf(hbaserpc.DoNotRetryIOException, true, "%s", fmt.Sprintf(format, args...))
}
