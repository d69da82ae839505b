package client

import (
	"math"
	"regexp"
	"strconv"
	"time"
)

// throttleWaitRE is HBase 2.6's RpcThrottlingException pattern for the
// wait in "<type> - wait 1hrs, 2mins, 3sec, 4ms" (each part optional).
var throttleWaitRE = regexp.MustCompile(`wait (?:(\d+)hrs?, )?(?:(\d+)mins?, )?(?:(\d+)sec[, ]{0,2})?(?:(\d+)ms)?`)

// parseThrottleWait returns the wait an RpcThrottlingException message
// asks for; ok is false when the message has none. A wait longer than the
// longest Duration reads as math.MaxInt64.
func parseThrottleWait(msg string) (d time.Duration, ok bool) {
	m := throttleWaitRE.FindStringSubmatch(msg)
	if m == nil {
		return 0, false
	}
	units := []time.Duration{time.Hour, time.Minute, time.Second, time.Millisecond}
	for i, u := range units {
		if m[i+1] == "" {
			continue
		}
		n, err := strconv.ParseInt(m[i+1], 10, 64)
		if err != nil {
			return 0, false
		}
		// A wait beyond the longest Duration saturates: wrapped, it
		// came out negative and the client retried at once.
		if n > int64((math.MaxInt64-d)/u) {
			d = math.MaxInt64
		} else {
			d += time.Duration(n) * u
		}
		ok = true
	}
	return d, ok
}
