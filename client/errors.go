package client

import (
	"errors"
	"fmt"

	"github.com/weirdb/weir/internal/hbaserpc"
)

// Sentinel errors. A *RemoteError matches the one for its Java class with
// errors.Is.
var (
	ErrClosed             = errors.New("client: connection closed")
	ErrTableNotFound      = errors.New("client: table not found")
	ErrTableExists        = errors.New("client: table exists")
	ErrTableDisabled      = errors.New("client: table not enabled")
	ErrTableNotDisabled   = errors.New("client: table not disabled")
	ErrNamespaceNotFound  = errors.New("client: namespace not found")
	ErrNamespaceExists    = errors.New("client: namespace exists")
	ErrNoSuchColumnFamily = errors.New("client: no such column family")
	ErrRegionOffline      = errors.New("client: region offline")
	ErrNoServerForRegion  = errors.New("client: no server for region")
	ErrNotServingRegion   = errors.New("client: region not serving")
	ErrThrottled          = errors.New("client: throttled")
	ErrDoNotRetry         = errors.New("client: do not retry")
	ErrInvalidArgument    = errors.New("client: invalid argument")
)

// RemoteError is an exception the server sent.
type RemoteError struct {
	// Class is the Java exception class, e.g.
	// "org.apache.hadoop.hbase.TableNotFoundException".
	Class string
	// Message is the exception's message (HBase sends its stack trace).
	Message string
	// DoNotRetry is the server's do_not_retry flag.
	DoNotRetry bool
}

func (e *RemoteError) Error() string {
	if e.Message == "" {
		return "client: server exception " + e.Class
	}
	return "client: server exception " + e.Class + ": " + e.Message
}

var classSentinels = map[string]error{
	hbaserpc.TableNotFound:      ErrTableNotFound,
	hbaserpc.TableExists:        ErrTableExists,
	hbaserpc.TableNotEnabled:    ErrTableDisabled,
	hbaserpc.TableNotDisabled:   ErrTableNotDisabled,
	hbaserpc.NamespaceNotFound:  ErrNamespaceNotFound,
	hbaserpc.NamespaceExist:     ErrNamespaceExists,
	hbaserpc.NoSuchColumnFamily: ErrNoSuchColumnFamily,
	hbaserpc.NotServingRegion:   ErrNotServingRegion,
	hbaserpc.RegionMoved:        ErrNotServingRegion,
	hbaserpc.RpcThrottling:      ErrThrottled,
}

// Is maps the exception's class to this package's sentinels.
func (e *RemoteError) Is(target error) bool {
	if s, ok := classSentinels[e.Class]; ok && s == target {
		return true
	}
	return target == ErrDoNotRetry && e.DoNotRetry
}

// remote converts an hbaserpc exception into a *RemoteError; other errors
// are returned as they are.
func remote(err error) error {
	var he *hbaserpc.Error
	if errors.As(err, &he) {
		return &RemoteError{Class: he.Class, Message: he.Message, DoNotRetry: he.DoNotRetry}
	}
	return err
}

// remoteFromPair converts a Multi per-action exception (class name and
// stack trace).
func remoteFromPair(name string, value []byte) *RemoteError {
	return &RemoteError{Class: name, Message: string(value)}
}

// classOf returns the Java class of a server exception in err, or "".
func classOf(err error) string {
	var re *RemoteError
	if errors.As(err, &re) {
		return re.Class
	}
	var he *hbaserpc.Error
	if errors.As(err, &he) {
		return he.Class
	}
	return ""
}

// retryKind says what a failed attempt calls for.
type retryKind int

const (
	retryNo       retryKind = iota // give up
	retryRelocate                  // drop the cached location, then retry
	retryBackoff                   // retry after a pause
	retryThrottle                  // wait the server's hint, then retry
)

// classify decides how to go on after err.
func classify(err error) retryKind {
	if err == nil {
		return retryNo
	}
	if errors.Is(err, ErrClosed) {
		return retryNo
	}
	class := classOf(err)
	if class == "" {
		if errors.Is(err, errRegionHole) || errors.Is(err, ErrNoServerForRegion) {
			return retryRelocate
		}
		if isLocalError(err) {
			return retryNo
		}
		// A broken or refused connection.
		return retryRelocate
	}
	switch class {
	case hbaserpc.NotServingRegion, hbaserpc.RegionMoved, hbaserpc.RegionOpening,
		hbaserpc.UnknownScanner, hbaserpc.OutOfOrderScannerNext, hbaserpc.ServerNotRunningYet:
		return retryRelocate
	case hbaserpc.RpcThrottling:
		return retryThrottle
	case hbaserpc.RegionTooBusy, hbaserpc.CallQueueTooBig, hbaserpc.PleaseHold:
		return retryBackoff
	case hbaserpc.IOException:
		var re *RemoteError
		if errors.As(err, &re) && re.DoNotRetry {
			return retryNo
		}
		var he *hbaserpc.Error
		if errors.As(err, &he) && he.DoNotRetry {
			return retryNo
		}
		return retryBackoff
	}
	if hbaserpc.IsClass(err, class) {
		var he *hbaserpc.Error
		if errors.As(err, &he) && he.IsFatal() {
			return retryRelocate
		}
	}
	return retryNo
}

// localError marks errors of the client's own making (bad arguments,
// unparsable answers): retrying would not help.
type localError struct{ err error }

func (e *localError) Error() string { return e.err.Error() }
func (e *localError) Unwrap() error { return e.err }

func isLocalError(err error) bool {
	var le *localError
	return errors.As(err, &le)
}

func invalidf(format string, args ...any) error {
	return &localError{fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))}
}

func permanent(err error) error {
	if err == nil {
		return nil
	}
	return &localError{err}
}

// errRegionHole: hbase:meta has no region covering the row (a split or
// merge in flight); retried.
var errRegionHole = errors.New("client: no region in hbase:meta covers the row")
