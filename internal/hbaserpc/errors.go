package hbaserpc

import (
	"errors"
	"fmt"
)

// Java exception class names that cross the wire in
// ExceptionResponse.exception_class_name. The HBase client rebuilds the
// exception from this name and decides from its type whether to retry,
// relocate the region (NotServingRegion) or give up.
const (
	// IOException is the class for plain Go errors: retryable.
	IOException = "java.io.IOException"
	// DoNotRetryIOException tells the client not to retry.
	DoNotRetryIOException = "org.apache.hadoop.hbase.DoNotRetryIOException"

	NotServingRegion      = "org.apache.hadoop.hbase.NotServingRegionException"
	RegionMoved           = "org.apache.hadoop.hbase.exceptions.RegionMovedException"
	RegionOpening         = "org.apache.hadoop.hbase.exceptions.RegionOpeningException"
	TableNotFound         = "org.apache.hadoop.hbase.TableNotFoundException"
	TableExists           = "org.apache.hadoop.hbase.TableExistsException"
	TableNotEnabled       = "org.apache.hadoop.hbase.TableNotEnabledException"
	TableNotDisabled      = "org.apache.hadoop.hbase.TableNotDisabledException"
	NamespaceNotFound     = "org.apache.hadoop.hbase.NamespaceNotFoundException"
	NamespaceExist        = "org.apache.hadoop.hbase.NamespaceExistException"
	NoSuchColumnFamily    = "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException"
	UnknownScanner        = "org.apache.hadoop.hbase.UnknownScannerException"
	OutOfOrderScannerNext = "org.apache.hadoop.hbase.exceptions.OutOfOrderScannerNextException"
	RegionTooBusy         = "org.apache.hadoop.hbase.RegionTooBusyException"
	RpcThrottling         = "org.apache.hadoop.hbase.quotas.RpcThrottlingException"
	CallQueueTooBig       = "org.apache.hadoop.hbase.CallQueueTooBigException"
	PleaseHold            = "org.apache.hadoop.hbase.PleaseHoldException"
	ServerNotRunningYet   = "org.apache.hadoop.hbase.ipc.ServerNotRunningYetException"
	// UnknownProtocol is what a coprocessor endpoint lookup fails with.
	UnknownProtocol = "org.apache.hadoop.hbase.exceptions.UnknownProtocolException"
	// UnsupportedOperation is what the Java server answers for a method name
	// its service does not have.
	UnsupportedOperation = "java.lang.UnsupportedOperationException"
	// RequestTooBig answers a request frame over the server's size limit.
	RequestTooBig = "org.apache.hadoop.hbase.exceptions.RequestTooBigException"

	// FatalConnection and its subclasses below are connection-level: the
	// server sends them with call id 0xFFFFFFFF and closes the connection.
	FatalConnection             = "org.apache.hadoop.hbase.ipc.FatalConnectionException"
	BadAuth                     = "org.apache.hadoop.hbase.ipc.BadAuthException"
	WrongVersion                = "org.apache.hadoop.hbase.ipc.WrongVersionException"
	UnknownService              = "org.apache.hadoop.hbase.ipc.UnknownServiceException"
	UnsupportedCellCodec        = "org.apache.hadoop.hbase.ipc.UnsupportedCellCodecException"
	UnsupportedCompressionCodec = "org.apache.hadoop.hbase.ipc.UnsupportedCompressionCodecException"
)

// Error is an exception that crosses the wire: a handler returns one to
// choose the Java class the client sees, and the client returns one for
// every exception the server sends (including FatalConnection ones).
type Error struct {
	Class      string // Java class name, e.g. NotServingRegion
	Message    string // the exception's message (sent as stack_trace)
	DoNotRetry bool   // ExceptionResponse.do_not_retry

	// Set on errors received by the client: where the server said it ran.
	Hostname string
	Port     int32
}

// Errorf builds an *Error of the given class.
func Errorf(class string, doNotRetry bool, format string, args ...any) *Error {
	return &Error{Class: class, Message: fmt.Sprintf(format, args...), DoNotRetry: doNotRetry}
}

func (e *Error) Error() string {
	if e.Message == "" {
		return "hbaserpc: " + e.Class
	}
	return "hbaserpc: " + e.Class + ": " + e.Message
}

// IsFatal reports whether the exception is connection-level: the server
// closes the connection after sending it.
func (e *Error) IsFatal() bool {
	switch e.Class {
	case FatalConnection, BadAuth, WrongVersion, UnknownService, UnsupportedCellCodec, UnsupportedCompressionCodec:
		return true
	}
	return false
}

// IsClass reports whether err is (or wraps) an *Error of the given class.
func IsClass(err error, class string) bool {
	var e *Error
	return errors.As(err, &e) && e.Class == class
}

// doNotRetryError marks a plain error as not worth retrying.
type doNotRetryError struct{ err error }

func (e *doNotRetryError) Error() string { return e.err.Error() }
func (e *doNotRetryError) Unwrap() error { return e.err }

// DoNotRetry wraps err so that, returned from a Handler, it reaches the
// client as DoNotRetryIOException with do_not_retry set. nil stays nil.
func DoNotRetry(err error) error {
	if err == nil {
		return nil
	}
	return &doNotRetryError{err}
}

// toError maps a handler's error to the exception sent to the client:
// an *Error anywhere in the chain is sent as is; a DoNotRetry-wrapped error
// becomes DoNotRetryIOException; anything else is a retryable IOException.
func toError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var dnr *doNotRetryError
	if errors.As(err, &dnr) {
		return &Error{Class: DoNotRetryIOException, Message: err.Error(), DoNotRetry: true}
	}
	return &Error{Class: IOException, Message: err.Error()}
}
