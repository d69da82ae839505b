package filterpb

import (
	"errors"
	"fmt"
)

// ErrInvalid is returned (wrapped) for a message that is malformed or
// asks for something impossible. The RPC layer answers it with
// DoNotRetryIOException; hbaseconv shares this sentinel.
var ErrInvalid = errors.New("hbase wire: invalid message")

// UnsupportedError reports a filter or comparator class (a Java class
// name) that Weir does not implement. The RPC layer answers it with a
// DoNotRetryIOException naming Class.
type UnsupportedError struct {
	Class string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("hbase wire: %s is not supported", e.Class)
}

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}
