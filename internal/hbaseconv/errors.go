package hbaseconv

import (
	"fmt"

	"github.com/weirdb/weir/internal/filterpb"
)

// ErrInvalid is returned (wrapped) for a message that is malformed or
// asks for something impossible. The RPC layer answers it with
// DoNotRetryIOException. It is filterpb's sentinel, so filter errors match
// it too.
var ErrInvalid = filterpb.ErrInvalid

// UnsupportedError reports a filter or comparator class (a Java class
// name) that Weir does not implement.
type UnsupportedError = filterpb.UnsupportedError

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// nonNil turns a nil slice into an empty one: proto2 "bytes" fields that
// must be present need a non-nil value to be written.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
