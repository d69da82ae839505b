package shell

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Command is one parsed command: its name and arguments. A trailing hash
// written without braces is the last element of Args, with Bare set.
type Command struct {
	Name string
	Args []Value
	// Pos is the 1-based column of the command name.
	Pos int
}

// String renders the command back in shell syntax.
func (c Command) String() string {
	var b strings.Builder
	b.WriteString(c.Name)
	for i, a := range c.Args {
		if i == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteString(", ")
		}
		b.WriteString(a.Inspect())
	}
	return b.String()
}

// SyntaxError is a parse error. Col is the 1-based column (in characters)
// it is about. Incomplete is true when the input ended too early (an open
// string, bracket, or a trailing comma), so that more input could complete
// it: an interactive shell may then read a continuation line.
type SyntaxError struct {
	Col        int
	Msg        string
	Incomplete bool
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("column %d: %s", e.Col, e.Msg) }

// maxDepth bounds the nesting of arrays and hashes.
const maxDepth = 100

// Parse parses a line of shell input into its commands, separated by ';' or
// newlines. Blank input and comments yield no commands.
func Parse(line string) (cmds []Command, err error) {
	p := &parser{lx: newLexer(line)}
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(*SyntaxError)
			if !ok {
				panic(r)
			}
			cmds, err = nil, se
		}
	}()
	p.advance()
	for {
		for p.tok.kind == tNL || p.tok.kind == tSemi {
			p.advance()
		}
		if p.tok.kind == tEOF {
			return cmds, nil
		}
		cmds = append(cmds, p.command())
		switch p.tok.kind {
		case tNL, tSemi, tEOF:
		default:
			p.errorf(p.tok.off, "unexpected %s after the arguments of %s", p.tok.describe(), cmds[len(cmds)-1].Name)
		}
	}
}

// ---- lexer ----

type tokKind int

const (
	tEOF tokKind = iota
	tNL
	tSemi
	tComma
	tLParen
	tRParen
	tLBrack
	tRBrack
	tLBrace
	tRBrace
	tArrow
	tIdent
	tConst
	tLabel
	tSymbol
	tString
	tInt
	tFloat
)

type token struct {
	kind tokKind
	off  int    // byte offset of the first character
	text string // identifier, constant, label or symbol name; source text otherwise
	str  []byte
	i    int64
	f    float64
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tNL:
		return "end of line"
	case tIdent:
		return "identifier '" + t.text + "'"
	case tConst:
		return "constant " + t.text
	case tLabel:
		return "label " + t.text + ":"
	case tSymbol:
		return "symbol :" + t.text
	case tString:
		return "string " + quoteBytes(t.str)
	case tInt, tFloat:
		return "number " + t.text
	}
	return "'" + t.text + "'"
}

type lexer struct {
	src  string
	pos  int
	cols []int32 // cols[off] = 1-based rune column of byte offset off
}

func newLexer(src string) *lexer {
	cols := make([]int32, len(src)+1)
	c := int32(1)
	for i := 0; i < len(src); {
		_, n := utf8.DecodeRuneInString(src[i:])
		for j := 0; j < n; j++ {
			cols[i+j] = c
		}
		i += n
		c++
	}
	cols[len(src)] = c
	return &lexer{src: src, cols: cols}
}

func (l *lexer) col(off int) int { return int(l.cols[off]) }

func (l *lexer) errorf(off int, format string, args ...any) {
	panic(&SyntaxError{Col: l.col(off), Msg: fmt.Sprintf(format, args...)})
}

func (l *lexer) incompletef(off int, format string, args ...any) {
	panic(&SyntaxError{Col: l.col(off), Msg: fmt.Sprintf(format, args...), Incomplete: true})
}

func isIdentStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isIdent(c byte) bool      { return isIdentStart(c) || isDigit(c) }
func isDigit(c byte) bool      { return '0' <= c && c <= '9' }

func (l *lexer) next() token {
	src := l.src
	for l.pos < len(src) {
		c := src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			l.pos++
		case c == '\\' && l.pos+1 < len(src) && src[l.pos+1] == '\n':
			l.pos += 2 // line continuation
		case c == '#':
			for l.pos < len(src) && src[l.pos] != '\n' {
				l.pos++
			}
		default:
			goto tok
		}
	}
tok:
	start := l.pos
	if start >= len(src) {
		return token{kind: tEOF, off: start}
	}
	c := src[start]
	punct := func(k tokKind, n int) token {
		l.pos += n
		return token{kind: k, off: start, text: src[start:l.pos]}
	}
	switch c {
	case '\n':
		return punct(tNL, 1)
	case ';':
		return punct(tSemi, 1)
	case ',':
		return punct(tComma, 1)
	case '(':
		return punct(tLParen, 1)
	case ')':
		return punct(tRParen, 1)
	case '[':
		return punct(tLBrack, 1)
	case ']':
		return punct(tRBrack, 1)
	case '{':
		return punct(tLBrace, 1)
	case '}':
		return punct(tRBrace, 1)
	case '=':
		if start+1 < len(src) && src[start+1] == '>' {
			return punct(tArrow, 2)
		}
		l.errorf(start, "unexpected '=' (use => between a key and its value)")
	case '\'':
		return l.singleQuoted()
	case '"':
		return l.doubleQuoted()
	case ':':
		if start+1 < len(src) && isIdentStart(src[start+1]) {
			l.pos++
			name := l.ident()
			return token{kind: tSymbol, off: start, text: name}
		}
		if start+1 < len(src) && (src[start+1] == '"' || src[start+1] == '\'') {
			l.errorf(start, "quoted symbols are not supported")
		}
		l.errorf(start, "unexpected ':'")
	case '-', '+':
		if start+1 < len(src) && isDigit(src[start+1]) {
			return l.number()
		}
		l.errorf(start, "unexpected '%c' (expressions are not supported)", c)
	}
	if isDigit(c) {
		return l.number()
	}
	if isIdentStart(c) {
		name := l.ident()
		if l.pos < len(src) && src[l.pos] == ':' && (l.pos+1 >= len(src) || src[l.pos+1] != ':') {
			l.pos++
			return token{kind: tLabel, off: start, text: name}
		}
		if l.pos < len(src) && (src[l.pos] == '.' || src[l.pos] == ':') {
			l.errorf(l.pos, "method calls and scoped constants are not supported")
		}
		if c >= 'A' && c <= 'Z' {
			return token{kind: tConst, off: start, text: name}
		}
		return token{kind: tIdent, off: start, text: name}
	}
	r, _ := utf8.DecodeRuneInString(src[start:])
	if r == utf8.RuneError {
		l.errorf(start, "unexpected byte 0x%02x", c)
	}
	l.errorf(start, "unexpected character %q", r)
	panic("unreachable")
}

func (l *lexer) ident() string {
	start := l.pos
	for l.pos < len(l.src) && isIdent(l.src[l.pos]) {
		l.pos++
	}
	// Ruby method names may end in ? or !.
	if l.pos < len(l.src) && (l.src[l.pos] == '?' || l.src[l.pos] == '!') && l.pos > start && !(l.src[start] >= 'A' && l.src[start] <= 'Z') {
		l.pos++
	}
	return l.src[start:l.pos]
}

// singleQuoted scans '...': only \\ and \' are escapes.
func (l *lexer) singleQuoted() token {
	start := l.pos
	src := l.src
	var b []byte
	i := start + 1
	for {
		if i >= len(src) {
			l.incompletef(start, "unterminated string: no closing '")
		}
		c := src[i]
		switch {
		case c == '\'':
			l.pos = i + 1
			return token{kind: tString, off: start, text: src[start:l.pos], str: nonNil(b)}
		case c == '\\' && i+1 < len(src) && (src[i+1] == '\\' || src[i+1] == '\''):
			b = append(b, src[i+1])
			i += 2
		default:
			b = append(b, c)
			i++
		}
	}
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func hexVal(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// doubleQuoted scans "..." with Ruby's escapes; the result may be binary.
func (l *lexer) doubleQuoted() token {
	start := l.pos
	src := l.src
	var b []byte
	i := start + 1
	for {
		if i >= len(src) {
			l.incompletef(start, "unterminated string: no closing \"")
		}
		c := src[i]
		if c == '"' {
			l.pos = i + 1
			return token{kind: tString, off: start, text: src[start:l.pos], str: nonNil(b)}
		}
		if c == '#' && i+1 < len(src) && src[i+1] == '{' {
			l.errorf(i, "string interpolation #{...} is not supported (escape it as \\#{)")
		}
		if c != '\\' {
			b = append(b, c)
			i++
			continue
		}
		esc := i
		i++
		if i >= len(src) {
			l.incompletef(start, "unterminated string: no closing \"")
		}
		c = src[i]
		i++
		switch c {
		case 'n':
			b = append(b, '\n')
		case 't':
			b = append(b, '\t')
		case 'r':
			b = append(b, '\r')
		case 's':
			b = append(b, ' ')
		case 'a':
			b = append(b, 7)
		case 'b':
			b = append(b, 8)
		case 'e':
			b = append(b, 27)
		case 'f':
			b = append(b, 12)
		case 'v':
			b = append(b, 11)
		case '\n':
			// escaped newline: nothing
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := int(c - '0')
			for n := 1; n < 3 && i < len(src) && src[i] >= '0' && src[i] <= '7'; n++ {
				v = v*8 + int(src[i]-'0')
				i++
			}
			b = append(b, byte(v))
		case 'x':
			v, n := 0, 0
			for ; n < 2 && i < len(src) && hexVal(src[i]) >= 0; n++ {
				v = v*16 + hexVal(src[i])
				i++
			}
			if n == 0 {
				l.errorf(esc, "invalid hex escape: \\x needs a hex digit")
			}
			b = append(b, byte(v))
		case 'u':
			if i < len(src) && src[i] == '{' {
				i++
				any := false
				for {
					for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
						i++
					}
					if i < len(src) && src[i] == '}' {
						i++
						break
					}
					v, n := 0, 0
					for ; i < len(src) && hexVal(src[i]) >= 0; n++ {
						if n < 7 {
							v = v*16 + hexVal(src[i])
						}
						i++
					}
					if n == 0 || n > 6 {
						l.errorf(esc, "invalid Unicode escape: \\u{...} needs 1 to 6 hex digits per code point and a closing }")
					}
					b = l.appendRune(b, esc, v)
					any = true
				}
				if !any {
					l.errorf(esc, "invalid Unicode escape: empty \\u{}")
				}
				break
			}
			v := 0
			for n := 0; n < 4; n++ {
				if i >= len(src) || hexVal(src[i]) < 0 {
					l.errorf(esc, "invalid Unicode escape: \\u needs 4 hex digits")
				}
				v = v*16 + hexVal(src[i])
				i++
			}
			b = l.appendRune(b, esc, v)
		case 'c', 'C', 'M':
			l.errorf(esc, "control and meta escapes (\\%c) are not supported; use \\xHH", c)
		default:
			// Any other escaped character stands for itself (\" \\ \# \').
			_, n := utf8.DecodeRuneInString(src[i-1:])
			b = append(b, src[i-1:i-1+n]...)
			i += n - 1
		}
	}
}

func (l *lexer) appendRune(b []byte, off, v int) []byte {
	if v > utf8.MaxRune || (v >= 0xD800 && v <= 0xDFFF) {
		l.errorf(off, "invalid Unicode code point U+%X", v)
	}
	return utf8.AppendRune(b, rune(v))
}

// digits scans digits valid for base with single underscores between them
// and returns them without the underscores.
func (l *lexer) digits(base int) string {
	src := l.src
	start := l.pos
	var b strings.Builder
	for l.pos < len(src) {
		c := src[l.pos]
		if c == '_' {
			if l.pos == start || l.pos+1 >= len(src) || hexVal(src[l.pos+1]) < 0 || hexVal(src[l.pos+1]) >= base {
				l.errorf(l.pos, "'_' in a number must stand between two digits")
			}
			l.pos++
			continue
		}
		v := hexVal(c)
		if v < 0 || v >= base {
			if base <= 10 && isDigit(c) {
				l.errorf(l.pos, "invalid digit '%c' in a base %d number", c, base)
			}
			break
		}
		b.WriteByte(c)
		l.pos++
	}
	return b.String()
}

func (l *lexer) number() token {
	src := l.src
	start := l.pos
	neg := false
	if src[l.pos] == '-' || src[l.pos] == '+' {
		neg = src[l.pos] == '-'
		l.pos++
	}
	base, prefixed := 10, false
	if src[l.pos] == '0' && l.pos+1 < len(src) {
		switch src[l.pos+1] {
		case 'x', 'X':
			base, prefixed = 16, true
		case 'b', 'B':
			base, prefixed = 2, true
		case 'o', 'O':
			base, prefixed = 8, true
		case 'd', 'D':
			base, prefixed = 10, true
		case '_', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			base = 8 // Ruby: a leading 0 means octal
			l.pos++
			if src[l.pos] == '_' {
				l.pos++
			}
		}
		if prefixed {
			l.pos += 2
		}
	}
	ds := l.digits(base)
	if ds == "" {
		l.errorf(start, "number %s has no digits", src[start:l.pos])
	}
	isFloat := false
	text := ds
	if base == 10 && !prefixed {
		if l.pos+1 < len(src) && src[l.pos] == '.' && isDigit(src[l.pos+1]) {
			l.pos++
			text += "." + l.digits(10)
			isFloat = true
		}
		if l.pos < len(src) && (src[l.pos] == 'e' || src[l.pos] == 'E') {
			j := l.pos + 1
			if j < len(src) && (src[j] == '+' || src[j] == '-') {
				j++
			}
			if j < len(src) && isDigit(src[j]) {
				sign := src[l.pos+1 : j]
				l.pos = j
				text += "e" + sign + l.digits(10)
				isFloat = true
			}
		}
	}
	if l.pos < len(src) && (isIdent(src[l.pos]) || src[l.pos] == '.') {
		l.errorf(start, "invalid number %s", src[start:l.pos+1])
	}
	if neg {
		text = "-" + text
	}
	tok := token{off: start, text: src[start:l.pos]}
	if isFloat {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			l.errorf(start, "float %s out of range", tok.text)
		}
		tok.kind, tok.f = tFloat, f
		return tok
	}
	i, err := strconv.ParseInt(text, base, 64)
	if err != nil {
		l.errorf(start, "integer %s out of range (must fit a signed 64-bit long)", tok.text)
	}
	tok.kind, tok.i = tInt, i
	return tok
}

// ---- parser ----

type parser struct {
	lx    *lexer
	tok   token
	depth int
}

func (p *parser) advance() { p.tok = p.lx.next() }

func (p *parser) skipNL() {
	for p.tok.kind == tNL {
		p.advance()
	}
}

func (p *parser) errorf(off int, format string, args ...any) {
	p.lx.errorf(off, format, args...)
}

// unexpected reports the current token; at the end of input the error is
// Incomplete.
func (p *parser) unexpected(what string) {
	if p.tok.kind == tEOF {
		p.lx.incompletef(p.tok.off, "unexpected end of input, expected %s", what)
	}
	p.errorf(p.tok.off, "unexpected %s, expected %s", p.tok.describe(), what)
}

func (p *parser) command() Command {
	t := p.tok
	switch t.kind {
	case tIdent:
		if t.text == "true" || t.text == "false" || t.text == "nil" {
			p.errorf(t.off, "expected a command name, found %s", t.text)
		}
	case tConst:
		p.errorf(t.off, "expected a command name, found constant %s (commands are lower case)", t.text)
	default:
		p.errorf(t.off, "expected a command name, found %s", t.describe())
	}
	cmd := Command{Name: t.text, Pos: p.lx.col(t.off)}
	p.advance()
	switch p.tok.kind {
	case tNL, tSemi, tEOF:
		return cmd
	case tLParen:
		open := p.tok.off
		p.advance()
		p.skipNL()
		if p.tok.kind != tRParen {
			cmd.Args = p.args(true, open)
			p.skipNL()
		}
		if p.tok.kind != tRParen {
			if p.tok.kind == tEOF {
				p.lx.incompletef(open, "unclosed '('")
			}
			p.unexpected("',' or ')'")
		}
		p.advance()
		return cmd
	}
	cmd.Args = p.args(false, 0)
	return cmd
}

// args parses a comma-separated argument list; positional values may be
// followed by KEY => value pairs, which become one bare Hash.
func (p *parser) args(paren bool, open int) []Value {
	var args []Value
	for {
		if p.tok.kind == tLabel {
			return append(args, p.bareHash(nil, paren, open))
		}
		v := p.value()
		if p.tok.kind == tArrow {
			return append(args, p.bareHash(v, paren, open))
		}
		args = append(args, v)
		if paren {
			p.skipNL()
		}
		if p.tok.kind != tComma {
			return args
		}
		p.advance()
		p.skipNL()
		if paren && p.tok.kind == tRParen {
			return args
		}
		if p.tok.kind == tEOF {
			if paren {
				p.lx.incompletef(open, "unclosed '('")
			}
			p.lx.incompletef(p.tok.off, "unexpected end of input after ',', expected an argument")
		}
	}
}

func (p *parser) bareHash(key Value, paren bool, open int) *Hash {
	h := &Hash{Bare: true}
	if key != nil {
		h.Col = key.Pos()
		h.Pairs = append(h.Pairs, p.pairAfterKey(key))
	} else {
		h.Col = p.lx.col(p.tok.off)
		h.Pairs = append(h.Pairs, p.pair())
	}
	for {
		if paren {
			p.skipNL()
		}
		if p.tok.kind != tComma {
			return h
		}
		p.advance()
		p.skipNL()
		if paren && p.tok.kind == tRParen {
			return h
		}
		if p.tok.kind == tEOF {
			if paren {
				p.lx.incompletef(open, "unclosed '('")
			}
			p.lx.incompletef(p.tok.off, "unexpected end of input after ',', expected KEY => value")
		}
		if p.tok.kind == tLabel {
			h.Pairs = append(h.Pairs, p.pair())
			continue
		}
		k := p.value()
		if p.tok.kind != tArrow {
			panic(&SyntaxError{Col: k.Pos(), Msg: "positional argument " + k.Inspect() + " after KEY => value pairs (pairs without braces must come last)"})
		}
		h.Pairs = append(h.Pairs, p.pairAfterKey(k))
	}
}

func (p *parser) pair() Pair {
	if p.tok.kind == tLabel {
		k := &Symbol{Name: p.tok.text, Col: p.lx.col(p.tok.off)}
		p.advance()
		p.skipNL()
		return Pair{Key: k, Val: p.value()}
	}
	return p.pairAfterKey(p.value())
}

func (p *parser) pairAfterKey(k Value) Pair {
	if p.tok.kind != tArrow {
		p.unexpected("'=>' after hash key " + k.Inspect())
	}
	p.advance()
	p.skipNL()
	return Pair{Key: k, Val: p.value()}
}

func (p *parser) value() Value {
	t := p.tok
	col := p.lx.col(t.off)
	switch t.kind {
	case tString:
		p.advance()
		return &String{Val: t.str, Col: col}
	case tInt:
		p.advance()
		return &Int{Val: t.i, Col: col}
	case tFloat:
		p.advance()
		return &Float{Val: t.f, Col: col}
	case tConst:
		p.advance()
		return &Const{Name: t.text, Col: col}
	case tSymbol:
		p.advance()
		return &Symbol{Name: t.text, Col: col}
	case tIdent:
		switch t.text {
		case "true", "false":
			p.advance()
			return &Bool{Val: t.text == "true", Col: col}
		case "nil":
			p.advance()
			return &Nil{Col: col}
		}
		p.errorf(t.off, "unexpected identifier '%s': quote strings ('%s'); constants start with an upper case letter", t.text, t.text)
	case tLBrack:
		p.enter(t.off)
		defer p.leave()
		p.advance()
		a := &Array{Col: col, Elems: []Value{}}
		p.elems(t.off, tRBrack, "[", "]", func() { a.Elems = append(a.Elems, p.value()) })
		return a
	case tLBrace:
		p.enter(t.off)
		defer p.leave()
		p.advance()
		h := &Hash{Col: col, Pairs: []Pair{}}
		p.elems(t.off, tRBrace, "{", "}", func() { h.Pairs = append(h.Pairs, p.pair()) })
		return h
	}
	p.unexpected("a value")
	panic("unreachable")
}

// elems parses comma-separated elements (each read by elem), newlines
// allowed between them, up to and including the close token; off is where
// the open bracket stood.
func (p *parser) elems(off int, close tokKind, open, closeText string, elem func()) {
	for {
		p.skipNL()
		if p.tok.kind == close {
			p.advance()
			return
		}
		if p.tok.kind == tEOF {
			p.lx.incompletef(off, "unclosed '%s'", open)
		}
		elem()
		p.skipNL()
		switch p.tok.kind {
		case tComma:
			p.advance()
		case close:
		case tEOF:
			p.lx.incompletef(off, "unclosed '%s'", open)
		default:
			p.unexpected("',' or '" + closeText + "'")
		}
	}
}

func (p *parser) enter(off int) {
	p.depth++
	if p.depth > maxDepth {
		p.errorf(off, "nesting deeper than %d levels", maxDepth)
	}
}

func (p *parser) leave() { p.depth-- }
