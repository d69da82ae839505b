package quota

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// asciiSwapCase swaps the case of s's ASCII letters only: the parsers are
// case-insensitive, so it must not change what they make of s.
func asciiSwapCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			b[i] = c ^ 0x20
		}
	}
	return string(b)
}

// checkNamedError checks that err says what it is about (prefix) and
// quotes the input it refuses.
func checkNamedError(t *testing.T, fn, s string, err error, prefix string) {
	t.Helper()
	if msg := err.Error(); !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, fmt.Sprintf("%q", s)) {
		t.Fatalf("%s(%q): error %q does not start with %q and quote the input", fn, s, msg, prefix)
	}
}

// FuzzParseLimit: an accepted LIMIT is a usable rate in one of the grammar's
// time units that its String form parses back to; case does not matter,
// even under Unicode case mapping; a refused one gets an error quoting it.
func FuzzParseLimit(f *testing.F) {
	for _, s := range []string{"10req/sec", "10REQ/SEC", "5K/min", "1024k/hour", "3cu/day", "7b/sec", "2p/sec", " 100ms/sec ",
		"8191P/sec", "8192P/sec", "10reqs/sec", "-5req/sec", "0req/sec", "10X/sec", "1.5req/sec", "+5req/sec",
		"10req/fortnight", "10req", "", "/sec", "req/sec", "99999999999999999999req/sec", "10/sec",
		// Found while writing this target: the Kelvin sign lower-cases to
		// k, and was taken for a unit of one byte, unchecked for overflow.
		"1\u212A/sec", "9223372036854775807\u212A/sec"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLimit(s)
		if err != nil {
			checkNamedError(t, "ParseLimit", s, err, "quota: LIMIT ")
			if _, err := ParseLimit(asciiSwapCase(s)); err == nil {
				t.Fatalf("ParseLimit(%q) fails but accepts %q", s, asciiSwapCase(s))
			}
			return
		}
		if err := l.validate(); err != nil {
			t.Fatalf("ParseLimit(%q) = %+v, not a usable rate: %v", s, l, err)
		}
		switch l.Per {
		case time.Second, time.Minute, time.Hour, 24 * time.Hour:
		default:
			t.Fatalf("ParseLimit(%q) = %+v, per %v is no time unit of the grammar", s, l, l.Per)
		}
		if back, err := ParseLimit(l.String()); err != nil || back != l {
			t.Fatalf("ParseLimit(%q) = %+v; its String %q parses as %+v, %v", s, l, l.String(), back, err)
		}
		for _, c := range []string{asciiSwapCase(s), strings.ToLower(s), strings.ToUpper(s)} {
			// Unicode case mapping may make a refused input of an accepted
			// one (U+017F, long s, upper-cases to S), not another limit.
			if other, err := ParseLimit(c); (err != nil && c == asciiSwapCase(s)) || (err == nil && other != l) {
				t.Fatalf("ParseLimit(%q) = %+v, but ParseLimit(%q) = %+v, %v", s, l, c, other, err)
			}
		}
	})
}

// FuzzLimitString: every usable limit in a time unit of the grammar reads
// back from its String form.
func FuzzLimitString(f *testing.F) {
	f.Add(int64(10), uint8(0), uint8(0))
	f.Add(int64(1536), uint8(1), uint8(1))
	f.Add(int64(math.MaxInt64), uint8(1), uint8(3))
	f.Add(int64(3<<50), uint8(1), uint8(2))
	f.Add(int64(7), uint8(2), uint8(3))
	f.Add(int64(250), uint8(3), uint8(0))
	f.Fuzz(func(t *testing.T, amount int64, unit, per uint8) {
		if amount <= 0 {
			t.Skip("not a usable amount")
		}
		l := Limit{Amount: amount, Unit: Unit(unit%4) + UnitRequests, Per: timeUnits[int(per)%len(timeUnits)].d}
		if back, err := ParseLimit(l.String()); err != nil || back != l {
			t.Fatalf("%+v formats as %q, which parses as %+v, %v", l, l.String(), back, err)
		}
	})
}

// FuzzParseThrottledMessage: an accepted message names a valid type and a
// non-negative wait in whole milliseconds, and the message Error builds
// from them parses back to the same.
func FuzzParseThrottledMessage(f *testing.F) {
	for _, s := range []string{
		"number of requests exceeded - wait 1sec, 200ms",
		"org.apache.hadoop.hbase.quotas.RpcThrottlingException: request handler usage time exceeded - wait 2hrs, 3mins, 4sec, 5ms",
		"write size limit exceeded - wait 1hr, 1min, 0ms",
		"read size limit exceeded - wait 0ms",
		// A wait beyond the longest Duration wrapped (to 0 here) instead of
		// saturating.
		"atomic write size exceeded - wait 9999999999hrs",
		"number of requests exceeded - wait 1sec, 200ms\n\tat x",
		"number of requests exceeded - wait ",
		"number of requests exceeded - wait 5weeks",
		"number of requests exceeded",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		e, ok := ParseThrottledMessage(msg)
		if !ok {
			if e != nil {
				t.Fatalf("ParseThrottledMessage(%q) = %+v but not ok", msg, e)
			}
			return
		}
		if !e.Type.Valid() || e.Wait < 0 || e.Wait%time.Millisecond != 0 && e.Wait != math.MaxInt64 {
			t.Fatalf("ParseThrottledMessage(%q) = %+v: bad type or wait", msg, e)
		}
		if !strings.Contains(msg, throttleMessages[e.Type]) {
			t.Fatalf("ParseThrottledMessage(%q) = %+v, a type the message does not name", msg, e)
		}
		if back, ok := ParseThrottledMessage(e.Error()); !ok || *back != *e {
			t.Fatalf("ParseThrottledMessage(%q) = %+v; its message %q parses as %+v, %v", msg, e, e.Error(), back, ok)
		}
	})
}

// FuzzThrottledMessageRoundTrip: the message of every throttled error, bare
// or behind the exception's class name, parses back to its type and its
// wait rounded up to the millisecond (at most the longest Duration).
func FuzzThrottledMessageRoundTrip(f *testing.F) {
	f.Add(uint8(0), int64(1200*time.Millisecond), false)
	f.Add(uint8(12), int64(time.Nanosecond), true)
	f.Add(uint8(5), int64(0), false)
	f.Add(uint8(7), int64(-time.Second), false)
	f.Add(uint8(3), int64(2*time.Hour+3*time.Minute+4*time.Second+5*time.Millisecond), true)
	// waitFor's "never": rounding it up to milliseconds overflowed, and
	// the message said "-2562047hr, ...".
	f.Add(uint8(1), int64(math.MaxInt64), false)
	f.Fuzz(func(t *testing.T, typ uint8, wait int64, wrapped bool) {
		e := &ThrottledError{Type: ThrottleType(typ%numThrottleTypes) + RequestNumber, Wait: time.Duration(wait)}
		var ms int64 // the wait rounded up, computed without overflow
		if wait > 0 {
			ms = wait / int64(time.Millisecond)
			if wait%int64(time.Millisecond) != 0 {
				ms++
			}
		}
		if got := e.WaitMillis(); got != ms {
			t.Fatalf("WaitMillis of %v = %d, want %d", e.Wait, got, ms)
		}
		want := time.Duration(math.MaxInt64)
		if ms <= math.MaxInt64/int64(time.Millisecond) {
			want = time.Duration(ms) * time.Millisecond
		}
		msg := e.Error()
		if wrapped {
			msg = "org.apache.hadoop.hbase.quotas.RpcThrottlingException: " + msg
		}
		got, ok := ParseThrottledMessage(msg)
		if !ok || got.Type != e.Type || got.Wait != want {
			t.Fatalf("%+v: %q parses as %+v, %v; want wait %v", e, msg, got, ok, want)
		}
	})
}

// checkEnumParse checks a case-insensitive enum parser: an accepted input is
// the value's name, up to case and surrounding space, and the name parses
// back; any input parses the same with its ASCII letters' case swapped.
// It returns what parse returned for s.
func checkEnumParse[T comparable](t *testing.T, fn string, parse func(string) (T, error), s string, name func(T) string) (T, error) {
	t.Helper()
	v, err := parse(s)
	sv, serr := parse(asciiSwapCase(s))
	if (err == nil) != (serr == nil) || err == nil && sv != v {
		t.Fatalf("%s(%q) = %v, %v but %s(%q) = %v, %v", fn, s, v, err, fn, asciiSwapCase(s), sv, serr)
	}
	if err != nil {
		return v, err
	}
	if !strings.EqualFold(strings.TrimSpace(s), name(v)) {
		t.Fatalf("%s(%q) = %v, whose name is %q", fn, s, v, name(v))
	}
	if back, err := parse(name(v)); err != nil || back != v {
		t.Fatalf("%s(%q) = %v; its name %q parses as %v, %v", fn, s, v, name(v), back, err)
	}
	return v, nil
}

// FuzzParseThrottleType: accepted inputs name one of the 13 types.
func FuzzParseThrottleType(f *testing.F) {
	for _, t := range AllThrottleTypes() {
		f.Add(t.String())
	}
	for _, s := range []string{"read_size", " Request_Number ", "", "REQUEST", "READ_SIZES", "ThrottleType(0)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		typ, err := checkEnumParse(t, "ParseThrottleType", ParseThrottleType, s, ThrottleType.String)
		if err != nil {
			checkNamedError(t, "ParseThrottleType", s, err, "quota: unknown THROTTLE_TYPE ")
			return
		}
		if !typ.Valid() || typ.Unit() == 0 {
			t.Fatalf("ParseThrottleType(%q) = %d, not one of the 13 types", s, typ)
		}
	})
}

// FuzzParseSpacePolicy: accepted inputs name one of the four policies.
func FuzzParseSpacePolicy(f *testing.F) {
	for p := SpaceDisable; p <= SpaceNoInserts; p++ {
		f.Add(p.String())
	}
	for _, s := range []string{"no_inserts", " Disable ", "", "NO_WRITES_COMPACTION", "SpacePolicy(0)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := checkEnumParse(t, "ParseSpacePolicy", ParseSpacePolicy, s, SpacePolicy.String)
		if err != nil {
			checkNamedError(t, "ParseSpacePolicy", s, err, "quota: unknown POLICY ")
			return
		}
		if !p.Valid() {
			t.Fatalf("ParseSpacePolicy(%q) = %d, not one of the four policies", s, p)
		}
	})
}

// FuzzParseMode: accepted inputs are queue (also the empty default) or
// reject.
func FuzzParseMode(f *testing.F) {
	for _, s := range []string{"queue", "reject", "REJECT", " Queue ", "", "  ", "drop", "rejected"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMode(s)
		if err != nil {
			checkNamedError(t, "ParseMode", s, err, "quota: weir.quota.throttle.mode ")
		}
		if strings.TrimSpace(s) == "" {
			// Unset means the default.
			if err != nil || m != ModeQueue {
				t.Fatalf("ParseMode(%q) = %v, %v; want the default, queue", s, m, err)
			}
			return
		}
		if m, err := checkEnumParse(t, "ParseMode", ParseMode, s, Mode.String); err == nil && m != ModeQueue && m != ModeReject {
			t.Fatalf("ParseMode(%q) = %d, neither queue nor reject", s, m)
		}
	})
}
