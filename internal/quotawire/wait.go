package quotawire

import (
	"math"
	"strings"
	"time"
)

// waitParts are the parts of a throttled request's wait, in the order
// HBase's RpcThrottlingException writes them ("1hr, 2mins, 3sec, 4ms"),
// with the units each may be spelled with (longest first) and the
// separators that may follow it.
var waitParts = [...]struct {
	unit  time.Duration
	names []string
	// sep must follow the part (hours and minutes); else up to two of
	// sepChars may (seconds: HBase's reader takes "3sec 4ms" too).
	sep      string
	sepChars string
}{
	{time.Hour, []string{"hrs", "hr"}, ", ", ""},
	{time.Minute, []string{"mins", "min"}, ", ", ""},
	{time.Second, []string{"sec"}, "", ", "},
	{time.Millisecond, []string{"ms"}, "", ""},
}

// ParseWait reads the wait at the start of s as HBase's client reads it
// out of an RpcThrottlingException's message: "1hr, 2mins, 3sec, 4ms",
// each part optional, in that order. It returns the wait, how many bytes
// of s it took, and whether s began with any part at all. A wait beyond
// the longest Duration saturates at math.MaxInt64: wrapped, it would be
// negative, and a client would retry at once.
//
// Both the server's own reader of the message (internal/quota) and the
// public client's retry use it, so that the two cannot read one message
// differently.
func ParseWait(s string) (d time.Duration, n int, ok bool) {
	for _, p := range waitParts {
		v, m, matched := parseWaitPart(s[n:], p.names, p.sep, p.sepChars)
		if !matched {
			continue
		}
		if v > int64((math.MaxInt64-d)/p.unit) {
			d = math.MaxInt64
		} else {
			d += time.Duration(v) * p.unit
		}
		n += m
		ok = true
	}
	return d, n, ok
}

// parseWaitPart reads "<digits><name><sep>" at the start of s, for the
// first of names that follows the digits, and then up to two of sepChars.
// A count too large for an int64 saturates.
func parseWaitPart(s string, names []string, sep, sepChars string) (v int64, n int, ok bool) {
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		if d := int64(s[n] - '0'); v > (math.MaxInt64-d)/10 {
			v = math.MaxInt64
		} else {
			v = v*10 + d
		}
		n++
	}
	if n == 0 {
		return 0, 0, false
	}
	name := ""
	for _, c := range names {
		if strings.HasPrefix(s[n:], c) {
			name = c
			break
		}
	}
	if name == "" || !strings.HasPrefix(s[n+len(name):], sep) {
		return 0, 0, false
	}
	n += len(name) + len(sep)
	for i := 0; i < 2 && n < len(s) && strings.IndexByte(sepChars, s[n]) >= 0; i++ {
		n++
	}
	return v, n, true
}
