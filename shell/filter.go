package shell

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// FilterExpr is a parsed HBase filter string (the language of
// org.apache.hadoop.hbase.filter.ParseFilter): *FilterCall, *FilterBinary
// or *FilterUnary.
type FilterExpr interface {
	// Pos is the 1-based column in the filter string.
	Pos() int
	// String renders the expression back in filter syntax, with binary
	// operations parenthesized.
	String() string
	filterExpr()
}

// FilterCall is one filter: Name(arg, ...).
type FilterCall struct {
	Name string
	Args []FilterArg
	Col  int
}

// FilterBinary is Left AND Right or Left OR Right. AND binds tighter than
// OR; both are left-associative.
type FilterBinary struct {
	Op          string // "AND" or "OR"
	Left, Right FilterExpr
	Col         int // column of the operator
}

// FilterUnary is SKIP X or WHILE X, binding tighter than AND.
type FilterUnary struct {
	Op  string // "SKIP" or "WHILE"
	X   FilterExpr
	Col int
}

func (f *FilterCall) Pos() int   { return f.Col }
func (f *FilterBinary) Pos() int { return f.Col }
func (f *FilterUnary) Pos() int  { return f.Col }

func (*FilterCall) filterExpr()   {}
func (*FilterBinary) filterExpr() {}
func (*FilterUnary) filterExpr()  {}

func (f *FilterCall) String() string {
	var b strings.Builder
	b.WriteString(f.Name)
	b.WriteByte('(')
	for i, a := range f.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.String())
	}
	b.WriteByte(')')
	return b.String()
}

func (f *FilterBinary) String() string {
	return "(" + f.Left.String() + " " + f.Op + " " + f.Right.String() + ")"
}

func (f *FilterUnary) String() string { return f.Op + " " + f.X.String() }

// FilterArgKind says what a FilterArg holds.
type FilterArgKind int

const (
	// FilterString is a quoted string: Bytes.
	FilterString FilterArgKind = iota
	// FilterComparator is a quoted string of the form 'type:value' where type
	// is binary, binaryprefix, regexstring or substring: CompType and
	// CompValue. Bytes holds the whole string, for filters that take a plain
	// string argument.
	FilterComparator
	// FilterInt is an integer: Int.
	FilterInt
	// FilterBool is true or false (any case): Bool.
	FilterBool
	// FilterOp is a compare operator = != < <= > >=: Op.
	FilterOp
)

// FilterArg is one argument of a FilterCall.
type FilterArg struct {
	Kind      FilterArgKind
	Bytes     []byte
	CompType  string
	CompValue []byte
	Int       int64
	Bool      bool
	Op        string
	Col       int
}

// String renders the argument in filter syntax: strings single-quoted with
// quotes doubled.
func (a FilterArg) String() string {
	switch a.Kind {
	case FilterInt:
		return strconv.FormatInt(a.Int, 10)
	case FilterBool:
		return strconv.FormatBool(a.Bool)
	case FilterOp:
		return a.Op
	}
	return "'" + strings.ReplaceAll(string(a.Bytes), "'", "''") + "'"
}

// comparatorTypes are the comparator prefixes of the filter language.
var comparatorTypes = []string{"binary", "binaryprefix", "regexstring", "substring"}

// ParseFilterString parses an HBase filter string such as
// "PrefixFilter('r') AND ValueFilter(=, 'binary:x')". Errors are
// *SyntaxError with the column in s.
func ParseFilterString(s string) (expr FilterExpr, err error) {
	p := &filterParser{lx: newLexer(s)}
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(*SyntaxError)
			if !ok {
				panic(r)
			}
			expr, err = nil, se
		}
	}()
	p.next()
	if p.tok.kind == ftEOF {
		p.errorf(p.tok.off, "empty filter string")
	}
	e := p.or()
	if p.tok.kind != ftEOF {
		if p.tok.kind == ftRParen {
			p.errorf(p.tok.off, "unbalanced ')'")
		}
		p.errorf(p.tok.off, "unexpected %s, expected AND, OR or end of filter", p.tok.describe())
	}
	return e, nil
}

type ftKind int

const (
	ftEOF ftKind = iota
	ftLParen
	ftRParen
	ftComma
	ftIdent
	ftString
	ftInt
	ftOp
)

type ftoken struct {
	kind ftKind
	off  int
	text string
	str  []byte
	i    int64
}

func (t ftoken) describe() string {
	switch t.kind {
	case ftEOF:
		return "end of filter"
	case ftString:
		return "string " + quoteBytes(t.str)
	case ftIdent:
		return "'" + t.text + "'"
	case ftInt:
		return "number " + t.text
	case ftOp:
		return "operator " + t.text
	}
	return "'" + t.text + "'"
}

type filterParser struct {
	lx    *lexer
	tok   ftoken
	depth int
}

func (p *filterParser) errorf(off int, format string, args ...any) {
	p.lx.errorf(off, format, args...)
}

func (p *filterParser) next() {
	l := p.lx
	src := l.src
	for l.pos < len(src) && (src[l.pos] == ' ' || src[l.pos] == '\t' || src[l.pos] == '\n' || src[l.pos] == '\r') {
		l.pos++
	}
	start := l.pos
	if start >= len(src) {
		p.tok = ftoken{kind: ftEOF, off: start}
		return
	}
	c := src[start]
	tok := func(k ftKind, n int) {
		l.pos += n
		p.tok = ftoken{kind: k, off: start, text: src[start:l.pos]}
	}
	switch c {
	case '(':
		tok(ftLParen, 1)
		return
	case ')':
		tok(ftRParen, 1)
		return
	case ',':
		tok(ftComma, 1)
		return
	case '=':
		tok(ftOp, 1)
		return
	case '!':
		if start+1 < len(src) && src[start+1] == '=' {
			tok(ftOp, 2)
			return
		}
		p.errorf(start, "unexpected '!' (did you mean !=?)")
	case '<', '>':
		if start+1 < len(src) && src[start+1] == '=' {
			tok(ftOp, 2)
		} else {
			tok(ftOp, 1)
		}
		return
	case '\'':
		// 'text' with '' standing for one quote.
		var b []byte
		i := start + 1
		for {
			if i >= len(src) {
				l.incompletef(start, "unterminated string: no closing '")
			}
			if src[i] == '\'' {
				if i+1 < len(src) && src[i+1] == '\'' {
					b = append(b, '\'')
					i += 2
					continue
				}
				l.pos = i + 1
				p.tok = ftoken{kind: ftString, off: start, text: src[start:l.pos], str: nonNil(b)}
				return
			}
			b = append(b, src[i])
			i++
		}
	case '"':
		p.errorf(start, "filter strings quote with single quotes ('...'), not \"")
	}
	if isDigit(c) || c == '-' && start+1 < len(src) && isDigit(src[start+1]) {
		i := start + 1
		for i < len(src) && isDigit(src[i]) {
			i++
		}
		if i < len(src) && (isIdent(src[i]) || src[i] == '.') {
			p.errorf(start, "invalid number %s (integers only)", src[start:i+1])
		}
		n, err := strconv.ParseInt(src[start:i], 10, 64)
		if err != nil {
			p.errorf(start, "integer %s out of range", src[start:i])
		}
		l.pos = i
		p.tok = ftoken{kind: ftInt, off: start, text: src[start:i], i: n}
		return
	}
	if isIdentStart(c) {
		i := start
		for i < len(src) && (isIdent(src[i]) || src[i] == '.' || src[i] == '$') {
			i++
		}
		l.pos = i
		p.tok = ftoken{kind: ftIdent, off: start, text: src[start:i]}
		return
	}
	r, _ := utf8.DecodeRuneInString(src[start:])
	if r == utf8.RuneError {
		p.errorf(start, "unexpected byte 0x%02x", c)
	}
	p.errorf(start, "unexpected character %q", r)
}

func (p *filterParser) isKeyword(kw string) bool {
	return p.tok.kind == ftIdent && p.tok.text == kw
}

func (p *filterParser) or() FilterExpr {
	e := p.and()
	for p.isKeyword("OR") {
		col := p.lx.col(p.tok.off)
		p.next()
		e = &FilterBinary{Op: "OR", Left: e, Right: p.and(), Col: col}
	}
	return e
}

func (p *filterParser) and() FilterExpr {
	e := p.unary()
	for p.isKeyword("AND") {
		col := p.lx.col(p.tok.off)
		p.next()
		e = &FilterBinary{Op: "AND", Left: e, Right: p.unary(), Col: col}
	}
	return e
}

func (p *filterParser) unary() FilterExpr {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		p.errorf(p.tok.off, "nesting deeper than %d levels", maxDepth)
	}
	t := p.tok
	switch {
	case p.isKeyword("SKIP") || p.isKeyword("WHILE"):
		p.next()
		return &FilterUnary{Op: t.text, X: p.unary(), Col: p.lx.col(t.off)}
	case t.kind == ftLParen:
		p.next()
		e := p.or()
		if p.tok.kind != ftRParen {
			if p.tok.kind == ftEOF {
				p.errorf(t.off, "unbalanced '(': no closing ')'")
			}
			p.errorf(p.tok.off, "unexpected %s, expected AND, OR or ')'", p.tok.describe())
		}
		p.next()
		return e
	case t.kind == ftIdent:
		switch t.text {
		case "AND", "OR":
			p.errorf(t.off, "unexpected %s, expected a filter (%s joins two filters)", t.text, t.text)
		}
		return p.call()
	case t.kind == ftEOF:
		p.errorf(t.off, "unexpected end of filter, expected a filter")
	}
	p.errorf(t.off, "unexpected %s, expected a filter such as PrefixFilter('row')", t.describe())
	panic("unreachable")
}

func (p *filterParser) call() FilterExpr {
	t := p.tok
	f := &FilterCall{Name: t.text, Col: p.lx.col(t.off), Args: []FilterArg{}}
	p.next()
	if p.tok.kind != ftLParen {
		p.errorf(p.tok.off, "expected '(' after filter name %s", t.text)
	}
	open := p.tok.off
	p.next()
	if p.tok.kind == ftRParen {
		p.next()
		return f
	}
	for {
		f.Args = append(f.Args, p.arg())
		switch p.tok.kind {
		case ftComma:
			p.next()
			continue
		case ftRParen:
			p.next()
			return f
		case ftEOF:
			p.errorf(open, "unbalanced '(' of %s: no closing ')'", t.text)
		}
		p.errorf(p.tok.off, "unexpected %s in the arguments of %s, expected ',' or ')'", p.tok.describe(), t.text)
	}
}

func (p *filterParser) arg() FilterArg {
	t := p.tok
	a := FilterArg{Col: p.lx.col(t.off)}
	switch t.kind {
	case ftString:
		a.Kind, a.Bytes = FilterString, t.str
		if i := strings.IndexByte(string(t.str), ':'); i > 0 {
			typ := string(t.str[:i])
			for _, ct := range comparatorTypes {
				if typ == ct {
					a.Kind, a.CompType, a.CompValue = FilterComparator, ct, t.str[i+1:]
				}
			}
		}
	case ftInt:
		a.Kind, a.Int = FilterInt, t.i
	case ftOp:
		a.Kind, a.Op = FilterOp, t.text
	case ftIdent:
		switch strings.ToLower(t.text) {
		case "true", "false":
			a.Kind, a.Bool = FilterBool, strings.EqualFold(t.text, "true")
		default:
			p.errorf(t.off, "unexpected '%s' as a filter argument: quote strings ('%s')", t.text, t.text)
		}
	case ftEOF:
		p.errorf(t.off, "unexpected end of filter, expected an argument")
	default:
		p.errorf(t.off, "unexpected %s, expected an argument (a 'string', number, true/false or compare operator)", t.describe())
	}
	p.next()
	return a
}

// Describe renders the argument with its kind, for tests and debugging.
func (a FilterArg) Describe() string {
	switch a.Kind {
	case FilterComparator:
		return fmt.Sprintf("comparator %s:%s", a.CompType, quoteBytes(a.CompValue))
	case FilterInt:
		return fmt.Sprintf("int %d", a.Int)
	case FilterBool:
		return fmt.Sprintf("bool %t", a.Bool)
	case FilterOp:
		return "op " + a.Op
	}
	return "string " + quoteBytes(a.Bytes)
}
