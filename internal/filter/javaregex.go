package filter

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Java line terminators, as character class bodies: Java's '.', '$' and \Z
// treat all of them as line ends unless UNIX_LINES is set.
const (
	javaLineTerms = `\n\r\x{85}\x{2028}\x{2029}`
	// javaSpace is Java's \s: [ \t\n\x0B\f\r] (Go's \s lacks \x0B).
	javaSpace = `\t\n\x0B\f\r `
	// javaHSpace is Java's \h.
	javaHSpace = ` \t\x{A0}\x{1680}\x{180E}\x{2000}-\x{200A}\x{202F}\x{205F}\x{3000}`
	// javaVSpace is Java's \v (Go's \v is only VT).
	javaVSpace = `\n\x0B\f\r\x{85}\x{2028}\x{2029}`
	// whiteSpace is Unicode's White_Space property, which Go's regexp
	// does not name.
	whiteSpace = `\x{9}-\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}`
)

// posixClasses maps Java's POSIX \p{Name} classes (US-ASCII) to Go's
// [:name:] classes, which have the same members.
var posixClasses = map[string]string{
	"Lower": "lower", "Upper": "upper", "ASCII": "ascii", "Alpha": "alpha",
	"Digit": "digit", "Alnum": "alnum", "Punct": "punct", "Graph": "graph",
	"Print": "print", "Blank": "blank", "Cntrl": "cntrl", "XDigit": "xdigit",
	"Space": "space",
}

// javaBinaryProps maps the Java binary properties and java.lang.Character
// classes that have a Go equivalent to a general category.
var javaBinaryProps = map[string]string{
	"alphabetic": "L", "letter": "L", "digit": "Nd", "punctuation": "P",
	"control": "Cc", "titlecase": "Lt", "uppercase": "Lu", "lowercase": "Ll",
	"javalowercase": "Ll", "javauppercase": "Lu", "javadigit": "Nd",
	"javaletter": "L", "javatitlecase": "Lt",
}

// unsupportedRegex reports a Java construct RE2 cannot express.
func unsupportedRegex(what, pattern string) error {
	return invalidf("regex %q uses %s, which Go's RE2 engine cannot express", pattern, what)
}

// TranslateJavaRegex rewrites a java.util.regex pattern with Pattern flag
// bits into an equivalent Go regexp, for use with unanchored matching
// (Matcher.find). See RegexStringComparator for what is rejected.
func TranslateJavaRegex(pattern string, flags int) (string, error) {
	const known = 0x1FF
	if flags&^known != 0 {
		return "", invalidf("regex flags %#x has unknown bits", flags)
	}
	if flags&JavaCanonEq != 0 {
		return "", unsupportedRegex("the CANON_EQ flag", pattern)
	}
	if flags&JavaUnicodeCharacterClass != 0 {
		return "", unsupportedRegex("the UNICODE_CHARACTER_CLASS flag", pattern)
	}
	if !utf8.ValidString(pattern) {
		return "", invalidf("regex %q is not valid UTF-8", pattern)
	}
	prefix := ""
	if flags&JavaCaseInsensitive != 0 {
		prefix = "(?i)"
	}
	if flags&JavaLiteral != 0 {
		return prefix + regexp.QuoteMeta(pattern), nil
	}
	t := &javaTranslator{src: []rune(pattern), pattern: pattern, flags: flags}
	t.out.WriteString(prefix)
	if err := t.run(); err != nil {
		return "", err
	}
	return t.out.String(), nil
}

type javaTranslator struct {
	src     []rune
	pattern string
	pos     int
	flags   int   // Java flags in effect
	stack   []int // flags to restore when each open group closes
	out     strings.Builder
}

func (t *javaTranslator) errorf(format string, args ...any) error {
	return invalidf("regex %q at offset %d: %s", t.pattern, t.pos, fmt.Sprintf(format, args...))
}

func (t *javaTranslator) unsupported(what string) error { return unsupportedRegex(what, t.pattern) }

func (t *javaTranslator) more() bool { return t.pos < len(t.src) }

func (t *javaTranslator) peekIs(r rune) bool { return t.more() && t.src[t.pos] == r }

func (t *javaTranslator) has(f int) bool { return t.flags&f != 0 }

// skipComments skips whitespace and #-comments in COMMENTS mode.
func (t *javaTranslator) skipComments() {
	for t.has(JavaComments) && t.more() {
		switch r := t.src[t.pos]; {
		case isJavaWhitespace(r):
			t.pos++
		case r == '#':
			for t.more() && !isLineTerm(t.src[t.pos]) {
				t.pos++
			}
		default:
			return
		}
	}
}

func isJavaWhitespace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\x0B' || r == '\f' || r == '\r'
}

func isLineTerm(r rune) bool {
	return r == '\n' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029
}

func (t *javaTranslator) run() error {
	for {
		t.skipComments()
		if !t.more() {
			break
		}
		r := t.src[t.pos]
		t.pos++
		var err error
		switch r {
		case '\\':
			err = t.escape()
		case '[':
			err = t.class()
		case '(':
			err = t.group()
		case ')':
			if len(t.stack) == 0 {
				return t.errorf("unmatched ')'")
			}
			t.flags = t.stack[len(t.stack)-1]
			t.stack = t.stack[:len(t.stack)-1]
			t.out.WriteByte(')')
		case '.':
			switch {
			case t.has(JavaDotAll):
				t.out.WriteString(`(?s:.)`)
			case t.has(JavaUnixLines):
				t.out.WriteString(`[^\n]`)
			default:
				t.out.WriteString(`[^` + javaLineTerms + `]`)
			}
		case '^':
			if t.has(JavaMultiline) {
				t.out.WriteString(`(?m:^)`)
			} else {
				t.out.WriteString(`\A`)
			}
		case '$':
			if t.has(JavaMultiline) {
				t.out.WriteString(`(?m:$)`)
			} else {
				t.endOfInput()
			}
		case '*', '+', '?':
			t.out.WriteRune(r)
			err = t.quantifierMode()
		case '{':
			err = t.repeat()
		case '|':
			t.out.WriteByte('|')
		default:
			t.literal(r)
		}
		if err != nil {
			return err
		}
	}
	if len(t.stack) != 0 {
		return t.errorf("missing ')'")
	}
	return nil
}

// endOfInput writes Java's non-multiline $ (and \Z): the end of input or
// just before a final line terminator. It consumes that terminator, which
// does not change whether find() succeeds unless the pattern goes on to
// match the terminator itself.
func (t *javaTranslator) endOfInput() {
	if t.has(JavaUnixLines) {
		t.out.WriteString(`(?:\n?\z)`)
		return
	}
	t.out.WriteString(`(?:(?:\r\n|[` + javaLineTerms + `])?\z)`)
}

// literal writes r as a literal outside a class.
func (t *javaTranslator) literal(r rune) {
	if r < 0x20 || r == 0x7F {
		fmt.Fprintf(&t.out, `\x{%X}`, r)
		return
	}
	t.out.WriteString(regexp.QuoteMeta(string(r)))
}

// quantifierMode handles what may follow a quantifier: ? (reluctant) is
// kept, + (possessive) is rejected.
func (t *javaTranslator) quantifierMode() error {
	t.skipComments()
	switch {
	case t.peekIs('?'):
		t.pos++
		t.out.WriteByte('?')
	case t.peekIs('+'):
		return t.unsupported("a possessive quantifier")
	}
	return nil
}

// repeat handles {n}, {n,} and {n,m}; Java rejects any other '{'.
func (t *javaTranslator) repeat() error {
	start := t.pos
	digits := func() bool {
		s := t.pos
		for t.more() && t.src[t.pos] >= '0' && t.src[t.pos] <= '9' {
			t.pos++
		}
		return t.pos > s
	}
	if !digits() {
		return t.errorf("illegal repetition")
	}
	if t.peekIs(',') {
		t.pos++
		digits()
	}
	if !t.peekIs('}') {
		return t.errorf("illegal repetition")
	}
	t.pos++
	t.out.WriteByte('{')
	t.out.WriteString(string(t.src[start:t.pos]))
	return t.quantifierMode()
}

// group handles '(' and its Java group kinds.
func (t *javaTranslator) group() error {
	if !t.peekIs('?') {
		t.stack = append(t.stack, t.flags)
		t.out.WriteByte('(')
		return nil
	}
	t.pos++
	if !t.more() {
		return t.errorf("unknown group type")
	}
	switch r := t.src[t.pos]; r {
	case ':':
		t.pos++
		t.stack = append(t.stack, t.flags)
		t.out.WriteString("(?:")
		return nil
	case '=', '!':
		return t.unsupported("lookahead")
	case '>':
		return t.unsupported("an atomic group")
	case '<':
		t.pos++
		if t.peekIs('=') || t.peekIs('!') {
			return t.unsupported("lookbehind")
		}
		start := t.pos
		for t.more() && t.src[t.pos] != '>' {
			c := t.src[t.pos]
			ok := c < utf8.RuneSelf && (unicode.IsLetter(c) || (t.pos > start && unicode.IsDigit(c)))
			if !ok {
				return t.errorf("bad named group name")
			}
			t.pos++
		}
		if !t.more() || t.pos == start {
			return t.errorf("bad named group name")
		}
		name := string(t.src[start:t.pos])
		t.pos++
		t.stack = append(t.stack, t.flags)
		t.out.WriteString("(?P<" + name + ">")
		return nil
	}
	return t.inlineFlags()
}

// inlineFlags handles (?idmsux-idmsux) and (?idmsux-idmsux:X). Only i is
// passed to Go (its scoping matches Java's); s, d, m and x are applied by
// the translation itself.
func (t *javaTranslator) inlineFlags() error {
	flags := t.flags
	on := true
	for {
		if !t.more() {
			return t.errorf("unclosed inline flags")
		}
		r := t.src[t.pos]
		t.pos++
		var bit int
		switch r {
		case ')', ':':
			iWas, iNow := t.flags&JavaCaseInsensitive != 0, flags&JavaCaseInsensitive != 0
			goFlag := ""
			switch {
			case iNow && !iWas:
				goFlag = "i"
			case !iNow && iWas:
				goFlag = "-i"
			}
			if r == ':' {
				t.stack = append(t.stack, t.flags)
				t.out.WriteString("(?" + goFlag + ":")
			} else if goFlag != "" {
				t.out.WriteString("(?" + goFlag + ")")
			}
			t.flags = flags
			return nil
		case '-':
			if !on {
				return t.errorf("bad inline flags")
			}
			on = false
			continue
		case 'i':
			bit = JavaCaseInsensitive
		case 'd':
			bit = JavaUnixLines
		case 'm':
			bit = JavaMultiline
		case 's':
			bit = JavaDotAll
		case 'u':
			bit = JavaUnicodeCase
		case 'x':
			bit = JavaComments
		case 'U':
			return t.unsupported("the UNICODE_CHARACTER_CLASS flag (?U)")
		default:
			return t.errorf("unknown inline flag %q", r)
		}
		if on {
			flags |= bit
		} else {
			flags &^= bit
		}
	}
}

// escape handles a backslash outside a character class.
func (t *javaTranslator) escape() error {
	if !t.more() {
		return t.errorf("trailing backslash")
	}
	r := t.src[t.pos]
	t.pos++
	switch r {
	case 'd', 'D', 'w', 'W':
		t.out.WriteString(`\` + string(r))
	case 's':
		t.out.WriteString(`[` + javaSpace + `]`)
	case 'S':
		t.out.WriteString(`[^` + javaSpace + `]`)
	case 'h':
		t.out.WriteString(`[` + javaHSpace + `]`)
	case 'H':
		t.out.WriteString(`[^` + javaHSpace + `]`)
	case 'v':
		t.out.WriteString(`[` + javaVSpace + `]`)
	case 'V':
		t.out.WriteString(`[^` + javaVSpace + `]`)
	case 'R':
		t.out.WriteString(`(?:\r\n|[` + javaVSpace + `])`)
	case 'b', 'B':
		if t.peekIs('{') {
			return t.unsupported(`\b{g} grapheme boundaries`)
		}
		t.out.WriteString(`\` + string(r))
	case 'A', 'z':
		t.out.WriteString(`\` + string(r))
	case 'Z':
		t.endOfInput()
	case 'G':
		return t.unsupported(`\G`)
	case 'X':
		return t.unsupported(`\X grapheme clusters`)
	case 'k':
		return t.unsupported("a named backreference")
	case 'p', 'P':
		body, neg, err := t.property(r == 'P')
		if err != nil {
			return err
		}
		if neg {
			t.out.WriteString("[^" + body + "]")
		} else {
			t.out.WriteString("[" + body + "]")
		}
	case 'Q':
		t.out.WriteString(regexp.QuoteMeta(t.quoted()))
	default:
		if r >= '1' && r <= '9' {
			return t.unsupported("a backreference")
		}
		c, err := t.charEscape(r)
		if err != nil {
			return err
		}
		t.literal(c)
	}
	return nil
}

// quoted reads the text of \Q...\E (the \Q already consumed).
func (t *javaTranslator) quoted() string {
	start := t.pos
	for t.more() {
		if t.src[t.pos] == '\\' && t.pos+1 < len(t.src) && t.src[t.pos+1] == 'E' {
			s := string(t.src[start:t.pos])
			t.pos += 2
			return s
		}
		t.pos++
	}
	return string(t.src[start:])
}

// charEscape decodes an escape that stands for one character (r already
// consumed): control, octal, hex and Unicode escapes and escaped
// punctuation. Unknown letter escapes are errors in Java too.
func (t *javaTranslator) charEscape(r rune) (rune, error) {
	switch r {
	case 't':
		return '\t', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 'f':
		return '\f', nil
	case 'a':
		return '\a', nil
	case 'e':
		return 0x1B, nil
	case '0':
		return t.octal()
	case 'x':
		return t.hex()
	case 'u':
		return t.unicodeEscape()
	case 'c':
		if !t.more() {
			return 0, t.errorf(`\c needs a character`)
		}
		c := t.src[t.pos]
		t.pos++
		return c ^ 64, nil
	}
	if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
		return 0, t.errorf(`illegal or unsupported escape \%c`, r)
	}
	return r, nil
}

func (t *javaTranslator) octal() (rune, error) {
	isOct := func(i int) bool { return i < len(t.src) && t.src[i] >= '0' && t.src[i] <= '7' }
	if !isOct(t.pos) {
		return 0, t.errorf(`illegal octal escape`)
	}
	n := 2
	if t.src[t.pos] <= '3' {
		n = 3
	}
	var v rune
	for i := 0; i < n && isOct(t.pos); i++ {
		v = v*8 + t.src[t.pos] - '0'
		t.pos++
	}
	return v, nil
}

func (t *javaTranslator) hexDigits(n int) (rune, bool) {
	if t.pos+n > len(t.src) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(t.src[t.pos:t.pos+n]), 16, 32)
	if err != nil {
		return 0, false
	}
	t.pos += n
	return rune(v), true
}

func (t *javaTranslator) hex() (rune, error) {
	if t.peekIs('{') {
		end := t.pos + 1
		for end < len(t.src) && t.src[end] != '}' {
			end++
		}
		if end >= len(t.src) || end == t.pos+1 || end-t.pos-1 > 8 {
			return 0, t.errorf(`illegal hexadecimal escape`)
		}
		v, err := strconv.ParseUint(string(t.src[t.pos+1:end]), 16, 32)
		if err != nil || v > unicode.MaxRune {
			return 0, t.errorf(`illegal hexadecimal escape`)
		}
		t.pos = end + 1
		return t.validRune(rune(v))
	}
	v, ok := t.hexDigits(2)
	if !ok {
		return 0, t.errorf(`illegal hexadecimal escape`)
	}
	return v, nil
}

func (t *javaTranslator) unicodeEscape() (rune, error) {
	v, ok := t.hexDigits(4)
	if !ok {
		return 0, t.errorf(`illegal Unicode escape`)
	}
	if v >= 0xD800 && v < 0xDC00 && t.pos+6 <= len(t.src) && t.src[t.pos] == '\\' && t.src[t.pos+1] == 'u' {
		save := t.pos
		t.pos += 2
		if lo, ok := t.hexDigits(4); ok && lo >= 0xDC00 && lo < 0xE000 {
			return 0x10000 + (v-0xD800)<<10 + (lo - 0xDC00), nil
		}
		t.pos = save
	}
	return t.validRune(v)
}

func (t *javaTranslator) validRune(v rune) (rune, error) {
	if v >= 0xD800 && v < 0xE000 {
		return 0, t.unsupported("a lone surrogate")
	}
	return v, nil
}

// property decodes \p{Name} / \P{Name} (the p or P consumed) into a class
// body. neg reports a \P; for POSIX classes and categories the body of a
// negated property is returned positive and neg set.
func (t *javaTranslator) property(negated bool) (body string, neg bool, err error) {
	var name string
	switch {
	case t.peekIs('{'):
		end := t.pos + 1
		for end < len(t.src) && t.src[end] != '}' {
			end++
		}
		if end >= len(t.src) {
			return "", false, t.errorf("unclosed character family")
		}
		name = string(t.src[t.pos+1 : end])
		t.pos = end + 1
	case t.more():
		name = string(t.src[t.pos])
		t.pos++
	default:
		return "", false, t.errorf("illegal character family")
	}
	if strings.HasPrefix(name, "^") {
		negated = !negated
		name = name[1:]
	}
	body, err = propertyBody(name)
	if err != nil {
		return "", false, t.unsupportedProperty(name, err)
	}
	return body, negated, nil
}

func (t *javaTranslator) unsupportedProperty(name string, err error) error {
	if errors.Is(err, errBlock) {
		return t.unsupported(fmt.Sprintf("the Unicode block property \\p{%s}", name))
	}
	return t.errorf("unknown character property \\p{%s}", name)
}

// errBlock marks a Unicode block property, which Go's regexp lacks.
var errBlock = errors.New("unicode block")

var errUnknownProperty = errors.New("unknown property")

// propertyBody maps a Java property name to a Go class body.
func propertyBody(name string) (string, error) {
	if p, ok := posixClasses[name]; ok {
		return "[:" + p + ":]", nil
	}
	if k, v, ok := strings.Cut(name, "="); ok {
		switch strings.ToLower(k) {
		case "gc", "general_category":
			name = v
		case "sc", "script":
			name = "Is" + v
		case "blk", "block":
			return "", errBlock
		default:
			return "", errUnknownProperty
		}
	}
	if strings.HasPrefix(name, "In") {
		return "", errBlock
	}
	bare := strings.TrimPrefix(name, "Is")
	if _, ok := unicode.Categories[bare]; ok {
		return `\p{` + bare + `}`, nil
	}
	if strings.EqualFold(bare, "White_Space") || strings.EqualFold(bare, "WhiteSpace") {
		return whiteSpace, nil
	}
	if cat, ok := javaBinaryProps[strings.ToLower(bare)]; ok {
		return `\p{` + cat + `}`, nil
	}
	if strings.HasPrefix(name, "Is") {
		for script := range unicode.Scripts {
			if strings.EqualFold(script, bare) {
				return `\p{` + script + `}`, nil
			}
		}
	}
	return "", errUnknownProperty
}

// class handles a character class (the '[' consumed).
func (t *javaTranslator) class() error {
	t.out.WriteByte('[')
	if t.peekIs('^') {
		t.pos++
		t.out.WriteByte('^')
	}
	return t.classBody()
}

// classBody writes the members of a class up to and including its ']'.
// Nested non-negated classes are unions and are flattened; negated nested
// classes and && intersections have no RE2 form.
func (t *javaTranslator) classBody() error {
	first := true
	for {
		if t.has(JavaComments) {
			for t.more() && isJavaWhitespace(t.src[t.pos]) {
				t.pos++
			}
		}
		if !t.more() {
			return t.errorf("unclosed character class")
		}
		r := t.src[t.pos]
		switch {
		case r == ']' && !first:
			t.pos++
			t.out.WriteByte(']')
			return nil
		case r == '[':
			t.pos++
			if t.peekIs('^') {
				return t.unsupported("a negated nested character class")
			}
			if err := t.nestedClass(); err != nil {
				return err
			}
			first = false
			continue
		case r == '&' && t.pos+1 < len(t.src) && t.src[t.pos+1] == '&':
			return t.unsupported("character class intersection (&&)")
		}
		first = false
		lo, isChar, err := t.classAtom()
		if err != nil {
			return err
		}
		if !isChar {
			continue
		}
		if t.peekIs('-') && t.pos+1 < len(t.src) && t.src[t.pos+1] != ']' {
			t.pos++
			if t.peekIs('[') {
				return t.errorf("illegal character range")
			}
			hi, isChar, err := t.classAtom()
			if err != nil {
				return err
			}
			if !isChar || hi < lo {
				return t.errorf("illegal character range")
			}
			t.out.WriteString(classLit(lo) + "-" + classLit(hi))
			continue
		}
		t.out.WriteString(classLit(lo))
	}
}

// nestedClass writes a nested union class's members without brackets.
func (t *javaTranslator) nestedClass() error {
	if err := t.classBody(); err != nil {
		return err
	}
	// classBody wrote the closing ']' of the nested class; drop it.
	s := t.out.String()
	t.out.Reset()
	t.out.WriteString(s[:len(s)-1])
	return nil
}

// classAtom reads one class member. A single character is returned with
// isChar set (it may start a range); class escapes (\d, \p{..}, \Q..\E)
// are written directly.
func (t *javaTranslator) classAtom() (r rune, isChar bool, err error) {
	r = t.src[t.pos]
	t.pos++
	if r != '\\' {
		return r, true, nil
	}
	if !t.more() {
		return 0, false, t.errorf("trailing backslash")
	}
	e := t.src[t.pos]
	t.pos++
	switch e {
	case 'd', 'D', 'w', 'W', 'S':
		// Go's \S also excludes nothing Java's does not, save \x0B.
		t.out.WriteString(`\` + string(e))
		return 0, false, nil
	case 's':
		t.out.WriteString(javaSpace)
		return 0, false, nil
	case 'h':
		t.out.WriteString(javaHSpace)
		return 0, false, nil
	case 'v':
		t.out.WriteString(javaVSpace)
		return 0, false, nil
	case 'H', 'V':
		return 0, false, t.unsupported(`\H or \V inside a character class`)
	case 'p', 'P':
		body, neg, err := t.property(e == 'P')
		if err != nil {
			return 0, false, err
		}
		if neg {
			switch {
			case strings.HasPrefix(body, "[:"):
				body = "[:^" + body[2:]
			case strings.HasPrefix(body, `\p{`):
				body = `\P` + body[2:]
			default:
				return 0, false, t.unsupported(`a negated \P{White_Space} inside a character class`)
			}
		}
		t.out.WriteString(body)
		return 0, false, nil
	case 'Q':
		for _, c := range t.quoted() {
			t.out.WriteString(classLit(c))
		}
		return 0, false, nil
	case 'b', 'B', 'A', 'z', 'Z', 'G', 'R', 'X', 'k':
		return 0, false, t.errorf(`\%c is not allowed in a character class`, e)
	}
	if e >= '1' && e <= '9' {
		return 0, false, t.errorf(`\%c is not allowed in a character class`, e)
	}
	c, err := t.charEscape(e)
	return c, err == nil, err
}

// classLit writes r for use inside a Go character class.
func classLit(r rune) string {
	if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
		return string(r)
	}
	return fmt.Sprintf(`\x{%X}`, r)
}
