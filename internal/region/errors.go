package region

import (
	"errors"
	"fmt"
)

// Sentinel errors. Callers test them with errors.Is; the RPC layer maps
// them onto HBase's exception classes.
var (
	// ErrInvalidArgument: the request itself is malformed (empty row, bad
	// timestamp, oversize cell...). Retrying cannot help.
	ErrInvalidArgument = errors.New("region: invalid argument")
	// ErrNoSuchFamily: a column family that the table does not have.
	ErrNoSuchFamily = errors.New("region: no such column family")
	// ErrWrongRegion: a row outside the region's key range.
	ErrWrongRegion = errors.New("region: row outside region")
	// ErrClosed: the region is closed (or closing); the caller should look
	// the region up again.
	ErrClosed = errors.New("region: closed")
	// ErrRowLockTimeout: a row lock could not be taken in time.
	ErrRowLockTimeout = errors.New("region: timed out waiting for row lock")
	// ErrNotACounter: Increment on a cell whose value is not an 8-byte long.
	ErrNotACounter = errors.New("region: value is not a 64-bit counter")
	// ErrScannerClosed: Next on a closed scanner.
	ErrScannerClosed = errors.New("region: scanner closed")
)

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
}
