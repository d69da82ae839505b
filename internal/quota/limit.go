package quota

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Unit is what a Limit counts.
type Unit int8

const (
	// UnitRequests counts requests ("req").
	UnitRequests Unit = iota + 1
	// UnitBytes counts bytes ("B", "K", "M", "G", "T", "P"; binary multiples).
	UnitBytes
	// UnitCapacityUnits counts capacity units ("CU"; Config.ReadCapacityUnit
	// and WriteCapacityUnit bytes each, 1024 by default).
	UnitCapacityUnits
	// UnitMillis counts handler milliseconds ("ms"; REQUEST_HANDLER_USAGE_MS
	// only). HBase's shell cannot express it (only the Java API can); Weir
	// accepts "Nms/sec" as an extension.
	UnitMillis
)

func (u Unit) String() string {
	switch u {
	case UnitRequests:
		return "req"
	case UnitBytes:
		return "bytes"
	case UnitCapacityUnits:
		return "CU"
	case UnitMillis:
		return "ms"
	}
	return fmt.Sprintf("Unit(%d)", int8(u))
}

// Limit is a rate: Amount of Unit per Per. For UnitBytes, Amount is in bytes
// (the multiplier is applied). A valid Limit has Amount > 0 and Per > 0.
type Limit struct {
	Amount int64
	Unit   Unit
	Per    time.Duration
}

// The time units of the LIMIT grammar.
var timeUnits = []struct {
	name string
	d    time.Duration
}{{"sec", time.Second}, {"min", time.Minute}, {"hour", time.Hour}, {"day", 24 * time.Hour}}

// Binary size multipliers, largest first (for String).
var sizeUnits = []struct {
	letter byte
	shift  uint
}{{'P', 50}, {'T', 40}, {'G', 30}, {'M', 20}, {'K', 10}, {'B', 0}}

// ParseLimit parses a set_quota LIMIT: `N(req|CU|B|K|M|G|T|P)/(sec|min|hour|day)`,
// case-insensitive, as HBase's quotas.rb (_parse_limit) does, with N a
// positive decimal integer and size letters binary (K = 2^10 ... P = 2^50).
// Weir also accepts the unit "ms" for REQUEST_HANDLER_USAGE_MS. "NONE" is not
// a Limit; callers handle it (see Change). Errors name the bad part.
func ParseLimit(s string) (Limit, error) {
	orig := s
	s = strings.TrimSpace(s)
	bad := func(format string, args ...any) (Limit, error) {
		return Limit{}, fmt.Errorf("quota: LIMIT %q: %s", orig, fmt.Sprintf(format, args...))
	}
	if s == "" {
		return bad("empty limit")
	}
	slash := strings.LastIndexByte(s, '/')
	if slash < 0 {
		return bad("missing \"/<time unit>\" (want e.g. 10req/sec)")
	}
	head, tu := s[:slash], strings.ToLower(s[slash+1:])
	var l Limit
	for _, t := range timeUnits {
		if tu == t.name {
			l.Per = t.d
		}
	}
	if l.Per == 0 {
		return bad("unknown time unit %q (want sec, min, hour or day)", s[slash+1:])
	}
	// Split the head into the number and the unit: the number is the longest
	// prefix of characters that can appear in a number, so that "-5", "1.5"
	// and "1e3" are reported as bad numbers rather than bad units.
	i := 0
	for i < len(head) && strings.IndexByte("0123456789+-.", head[i]) >= 0 {
		i++
	}
	num, unit := head[:i], head[i:]
	if num == "" {
		return bad("missing amount before %q", unit)
	}
	amount, err := strconv.ParseInt(num, 10, 64)
	if err != nil || num[0] == '+' {
		if errors.Is(err, strconv.ErrRange) {
			return bad("amount %q is too large", num)
		}
		return bad("amount %q is not a positive whole number", num)
	}
	if amount <= 0 {
		return bad("amount %q must be greater than 0", num)
	}
	l.Amount = amount
	switch u := strings.ToLower(unit); {
	case u == "req":
		l.Unit = UnitRequests
	case u == "cu":
		l.Unit = UnitCapacityUnits
	case u == "ms":
		l.Unit = UnitMillis
	case len(u) == 1 && strings.IndexByte("bkmgtp", u[0]) >= 0:
		l.Unit = UnitBytes
		for _, su := range sizeUnits {
			// u, not unit: "K" (U+212A, Kelvin) lower-cases to the
			// letter k, but its first byte is no letter.
			if su.letter == u[0]&^0x20 { // upper-case the letter
				if amount > math.MaxInt64>>su.shift {
					return bad("amount %q overflows 64 bits", num+unit)
				}
				l.Amount = amount << su.shift
			}
		}
	case u == "":
		return bad("missing unit after %q (want req, CU or one of B, K, M, G, T, P)", num)
	default:
		return bad("unknown unit %q (want req, CU or one of B, K, M, G, T, P)", unit)
	}
	return l, nil
}

// String formats l in the LIMIT grammar so that ParseLimit(l.String()) == l:
// "10req/sec", "10CU/min", and sizes with the largest binary letter that
// divides them exactly ("10M/sec", "1536B/sec" for 1.5 KiB). HBase's
// list_quotas prints sizes as "%.2fM"; that form does not parse back, so
// Weir prints exact letters instead.
func (l Limit) String() string {
	var b strings.Builder
	switch l.Unit {
	case UnitBytes:
		for _, su := range sizeUnits {
			if l.Amount%(1<<su.shift) == 0 {
				b.WriteString(strconv.FormatInt(l.Amount>>su.shift, 10))
				b.WriteByte(su.letter)
				break
			}
		}
	default:
		b.WriteString(strconv.FormatInt(l.Amount, 10))
		b.WriteString(l.Unit.String())
	}
	b.WriteByte('/')
	name := ""
	for _, t := range timeUnits {
		if l.Per == t.d {
			name = t.name
		}
	}
	if name == "" {
		name = l.Per.String()
	}
	b.WriteString(name)
	return b.String()
}

// validate reports whether l is a usable rate.
func (l Limit) validate() error {
	if l.Amount <= 0 {
		return fmt.Errorf("limit amount %d must be greater than 0", l.Amount)
	}
	if l.Per <= 0 {
		return fmt.Errorf("limit time unit %v must be positive", l.Per)
	}
	if l.Unit < UnitRequests || l.Unit > UnitMillis {
		return fmt.Errorf("limit has no unit")
	}
	return nil
}
