package client

import (
	"strings"
	"time"

	"github.com/weirdb/weir/internal/quotawire"
)

// parseThrottleWait returns the wait an RpcThrottlingException message
// asks for, after its first "wait " as HBase 2.6's client finds it ("<type>
// - wait 1hrs, 2mins, 3sec, 4ms", each part optional); ok is false when the
// message has none. A wait longer than the longest Duration reads as
// math.MaxInt64.
func parseThrottleWait(msg string) (time.Duration, bool) {
	i := strings.Index(msg, "wait ")
	if i < 0 {
		return 0, false
	}
	d, _, ok := quotawire.ParseWait(msg[i+len("wait "):])
	return d, ok
}
