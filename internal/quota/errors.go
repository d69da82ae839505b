package quota

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/weirdb/weir/internal/quotawire"
)

// ErrThrottled matches every *ThrottledError with errors.Is. RPC layers map
// it to HBase's RpcThrottlingException (retriable, with a wait hint).
var ErrThrottled = errors.New("quota: throttled")

// ThrottledError says which throttle was exceeded and how long until the
// request's tokens are due.
type ThrottledError struct {
	Type ThrottleType
	Wait time.Duration
	// lim is the limiter that refused (nil when not from a Checker): usage
	// accounting blames it for the wait or the rejection.
	lim *subjectLimiter
}

// throttleMessages are the type texts of HBase's RpcThrottlingException
// (MSG_TYPE, in the order of its Type enum, which differs from the
// ThrottleType order), indexed here by ThrottleType. The Java client finds
// the type by searching the message for these texts, so they must match
// byte for byte. Note HBase's text for the handler type is "request handler
// usage time exceeded".
var throttleMessages = [numThrottleTypes + 1]string{
	RequestNumber:         "number of requests exceeded",
	RequestSize:           "request size limit exceeded",
	ReadNumber:            "number of read requests exceeded",
	WriteNumber:           "number of write requests exceeded",
	WriteSize:             "write size limit exceeded",
	ReadSize:              "read size limit exceeded",
	RequestCapacityUnit:   "request capacity unit exceeded",
	ReadCapacityUnit:      "read capacity unit exceeded",
	WriteCapacityUnit:     "write capacity unit exceeded",
	AtomicRequestNumber:   "atomic request number exceeded",
	AtomicReadSize:        "atomic read size exceeded",
	AtomicWriteSize:       "atomic write size exceeded",
	RequestHandlerUsageMs: "request handler usage time exceeded",
}

const msgWait = " - wait "

// Error is RpcThrottlingException's message: "<type text> - wait <duration>",
// e.g. "number of requests exceeded - wait 1sec, 200ms".
func (e *ThrottledError) Error() string {
	return throttleMessages[e.Type] + msgWait + FormatWait(e.Wait)
}

// Is makes errors.Is(err, ErrThrottled) true.
func (e *ThrottledError) Is(target error) bool { return target == ErrThrottled }

// WaitMillis is the wait hint in whole milliseconds, rounded up so that a
// client retrying after it finds its tokens due.
func (e *ThrottledError) WaitMillis() int64 { return ceilMillis(e.Wait) }

func ceilMillis(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	// Not (d + 999999ns) / 1ms: that overflows for waits near the longest
	// Duration, such as waitFor's math.MaxInt64 ("never").
	ms := int64(d / time.Millisecond)
	if d%time.Millisecond != 0 {
		ms++
	}
	return ms
}

// FormatWait formats d as HBase's RpcThrottlingException.stringFromMillis
// does, after rounding up to whole milliseconds: "1hr, 2mins, 3sec, 4ms";
// zero parts are left out except the milliseconds; hours and minutes are
// singular when 1 ("1hr", "1min"), seconds never ("1sec").
func FormatWait(d time.Duration) string {
	ms := ceilMillis(d)
	var b strings.Builder
	hours, rem := ms/3_600_000, ms%3_600_000
	mins, rem := rem/60_000, rem%60_000
	secs, ms := rem/1000, rem%1000
	if hours != 0 {
		b.WriteString(strconv.FormatInt(hours, 10))
		if hours > 1 {
			b.WriteString("hrs, ")
		} else {
			b.WriteString("hr, ")
		}
	}
	if mins != 0 {
		b.WriteString(strconv.FormatInt(mins, 10))
		if mins > 1 {
			b.WriteString("mins, ")
		} else {
			b.WriteString("min, ")
		}
	}
	if secs != 0 {
		b.WriteString(strconv.FormatInt(secs, 10))
		b.WriteString("sec, ")
	}
	b.WriteString(strconv.FormatInt(ms, 10))
	b.WriteString("ms")
	return b.String()
}

// ParseThrottledMessage recovers the type and wait from a message built by
// Error (what HBase's client does after unwrapping a RemoteException). A
// wait longer than the longest Duration reads as math.MaxInt64.
func ParseThrottledMessage(msg string) (*ThrottledError, bool) {
	for t := RequestNumber; t <= RequestHandlerUsageMs; t++ {
		i := strings.Index(msg, throttleMessages[t]+msgWait)
		if i < 0 {
			continue
		}
		rest := msg[i+len(throttleMessages[t])+len(msgWait):]
		wait, n, ok := quotawire.ParseWait(rest)
		if !ok || n != len(rest) {
			return nil, false
		}
		return &ThrottledError{Type: t, Wait: wait}, true
	}
	return nil, false
}
