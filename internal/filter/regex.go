package filter

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// RegexEngine names the engine of a RegexStringComparator, as HBase's
// protobuf carries it.
type RegexEngine string

// Engines. Only the Java engine is supported: its patterns are translated
// to Go's RE2 syntax. Joni (Ruby syntax) is rejected.
const (
	EngineJava RegexEngine = "JAVA"
	EngineJoni RegexEngine = "JONI"
)

// java.util.regex.Pattern flag bits, as HBase sends them.
const (
	JavaUnixLines             = 0x01
	JavaCaseInsensitive       = 0x02
	JavaComments              = 0x04
	JavaMultiline             = 0x08
	JavaLiteral               = 0x10
	JavaDotAll                = 0x20
	JavaUnicodeCase           = 0x40
	JavaCanonEq               = 0x80
	JavaUnicodeCharacterClass = 0x100
)

// DefaultRegexFlags are the flags of HBase's one-argument constructor,
// RegexStringComparator(expr): DOTALL.
const DefaultRegexFlags = JavaDotAll

// RegexStringComparator reports 0 when its Java regular expression is found
// anywhere in the value (Matcher.find, not matches), and 1 otherwise. Only
// Equal and NotEqual make sense with it.
//
// The pattern is translated from Java syntax to Go's RE2 syntax; constructs
// RE2 cannot express (lookaround, backreferences, possessive quantifiers,
// atomic groups, class intersection, \G, Unicode blocks) are rejected with
// an error wrapping ErrInvalid rather than approximated. Differences that
// remain: CASE_INSENSITIVE folds Unicode case even without UNICODE_CASE, and
// a multiline ^ or $ only treats \n as a line terminator.
type RegexStringComparator struct {
	Pattern string
	// Flags are java.util.regex.Pattern flag bits (Java* constants).
	Flags int32
	// Charset decodes values: "" or "UTF-8" (default), or "ISO-8859-1".
	Charset string
	// Engine is "" or EngineJava.
	Engine RegexEngine

	once   sync.Once
	re     *regexp.Regexp
	latin1 bool
	err    error
}

// NewRegexStringComparator compiles pattern with Java flags (use
// DefaultRegexFlags for HBase's default) for UTF-8 values.
func NewRegexStringComparator(pattern string, flags int32) (*RegexStringComparator, error) {
	c := &RegexStringComparator{Pattern: pattern, Flags: flags}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// Validate translates and compiles the pattern (once).
func (c *RegexStringComparator) Validate() error {
	c.once.Do(c.compile)
	return c.err
}

func (c *RegexStringComparator) compile() {
	switch c.Engine {
	case "", EngineJava:
	default:
		c.err = invalidf("regex engine %q is not supported (only JAVA)", string(c.Engine))
		return
	}
	switch strings.ToUpper(c.Charset) {
	case "", "UTF-8", "UTF8":
	case "ISO-8859-1", "ISO8859_1", "LATIN1":
		c.latin1 = true
	default:
		c.err = invalidf("regex charset %q is not supported", c.Charset)
		return
	}
	expr, err := TranslateJavaRegex(c.Pattern, int(c.Flags))
	if err != nil {
		c.err = err
		return
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		c.err = fmt.Errorf("%w: regex %q: %w", ErrInvalid, c.Pattern, err)
		return
	}
	c.re = re
}

// Compare implements Comparator. A comparator whose pattern does not
// compile matches nothing; Validate reports why.
func (c *RegexStringComparator) Compare(value []byte) int {
	if c.Validate() != nil {
		return 1
	}
	if c.latin1 {
		var b strings.Builder
		b.Grow(len(value))
		for _, v := range value {
			b.WriteRune(rune(v))
		}
		if c.re.MatchString(b.String()) {
			return 0
		}
		return 1
	}
	// Go's regexp reads invalid UTF-8 bytes as U+FFFD, as Java's decoder
	// does, so the raw bytes need no decoding.
	if c.re.Match(value) {
		return 0
	}
	return 1
}

// Operand implements OperandComparator: HBase's operand is the pattern.
func (c *RegexStringComparator) Operand() []byte { return []byte(c.Pattern) }
