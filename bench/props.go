package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Props is a set of workload properties: the contents of YCSB-style
// property files (-P) with -p overrides applied on top, in order.
type Props map[string]string

// knownProps lists every property the driver understands. Anything else in
// a file or a -p override is an error: a typo would otherwise silently
// fall back to a default and measure the wrong thing.
var knownProps = map[string]bool{
	// Client.
	"workload": true, "db": true, "threadcount": true, "target": true,
	"operationcount": true, "recordcount": true, "maxexecutiontime": true,
	"insertstart": true, "insertcount": true, "status.interval": true,
	"measurementtype": true, "measurement.interval": true,
	"hdrhistogram.percentiles": true, "exporter": true, "exportfile": true,
	// CoreWorkload.
	"table": true, "fieldcount": true, "fieldlength": true, "minfieldlength": true,
	"fieldlengthdistribution": true, "fieldnameprefix": true,
	"readallfields": true, "writeallfields": true, "dataintegrity": true,
	"readallfieldsbyname": true, "fieldlengthhistogram": true,
	"exponential.percentile": true, "exponential.frac": true,
	"readproportion": true, "updateproportion": true, "insertproportion": true,
	"scanproportion": true, "readmodifywriteproportion": true,
	"requestdistribution": true, "zeropadding": true, "insertorder": true,
	"minscanlength": true, "maxscanlength": true, "scanlengthdistribution": true,
	"hotspotdatafraction": true, "hotspotopnfraction": true,
	"core_workload_insertion_retry_limit": true, "core_workload_insertion_retry_interval": true,
	// The names the retry properties had in Weir before it followed
	// YCSB's; still read.
	"insertionretrylimit": true, "insertionretryinterval": true,
	// HBase binding.
	"columnfamily": true, "clientbuffering": true, "writebuffersize": true,
	"durability": true, "hbase.usepagefilter": true, "debug": true,
	"hbase.client.retries.number": true,
	// Weir.
	"splits": true,
}

// coreWorkloadClasses are the accepted values of "workload".
var coreWorkloadClasses = map[string]bool{
	"site.ycsb.workloads.CoreWorkload":      true,
	"com.yahoo.ycsb.workloads.CoreWorkload": true,
	"core":                                  true,
}

// ParseProps reads Java-properties text: "key=value", "key: value" or
// "key value"; '#' and '!' start comment lines; a line ending in an odd
// number of backslashes continues on the next one (leading blanks of the
// continuation dropped); keys and values take Java's backslash escapes
// (setLine). name is used in error messages.
func ParseProps(r io.Reader, name string, into Props) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	lineNo, startLine := 0, 0
	var logical strings.Builder
	cont := false
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if cont {
			line = strings.TrimLeft(line, " \t\f")
		} else {
			line = strings.TrimLeft(line, " \t\f")
			if line == "" || line[0] == '#' || line[0] == '!' {
				continue
			}
			startLine = lineNo
			logical.Reset()
		}
		// A trailing odd run of backslashes continues the line.
		n := 0
		for n < len(line) && line[len(line)-1-n] == '\\' {
			n++
		}
		if n%2 == 1 {
			logical.WriteString(line[:len(line)-1])
			cont = true
			continue
		}
		logical.WriteString(line)
		cont = false
		if err := into.setLine(logical.String()); err != nil {
			return fmt.Errorf("%s:%d: %w", name, startLine, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if cont {
		if err := into.setLine(logical.String()); err != nil {
			return fmt.Errorf("%s:%d: %w", name, startLine, err)
		}
	}
	return nil
}

// setLine sets the property of one logical line, as java.util.Properties
// reads it: the key runs to the first separator ('=', ':' or a blank) not
// escaped by a backslash, and key and value take Java's escapes (\t, \n,
// \r, \f, \uXXXX, and a backslash before any other character stands
// for that character). Unlike Java, blanks at the end of the value are
// dropped: "recordcount=10 " would otherwise not be a number.
func (p Props) setLine(line string) error {
	i := 0
	for i < len(line) && !strings.ContainsRune("=: \t\f", rune(line[i])) {
		if line[i] == '\\' {
			i++
		}
		i++
	}
	i = min(i, len(line))
	k, rest := line[:i], strings.TrimLeft(line[i:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	key, err := unescapeProp(k)
	if err != nil {
		return err
	}
	v, err := unescapeProp(trimBlanksRight(rest))
	if err != nil {
		return fmt.Errorf("property %q: %w", key, err)
	}
	return p.Set(key, v)
}

// trimBlanksRight drops the blanks that end s, but not an escaped one.
func trimBlanksRight(s string) string {
	for len(s) > 0 && strings.IndexByte(" \t\f\r", s[len(s)-1]) >= 0 {
		n := 0
		for n < len(s)-1 && s[len(s)-2-n] == '\\' {
			n++
		}
		if n%2 == 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s
}

// unescapeProp resolves java.util.Properties' escapes in s.
func unescapeProp(s string) (string, error) {
	if !strings.Contains(s, "\\") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c) // a lone backslash at the end stays, as in Java
			continue
		}
		i++
		switch c = s[i]; c {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf("malformed \\uXXXX escape %q", s[i-1:])
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf("malformed \\uXXXX escape %q", s[i-1:i+5])
			}
			b.WriteRune(rune(r))
			i += 4
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// Set sets one property, rejecting unknown keys.
func (p Props) Set(k, v string) error {
	if !knownProps[k] {
		return fmt.Errorf("unknown workload property %q%s", k, suggest(k))
	}
	p[k] = v
	return nil
}

// SetOverride applies a "-p key=value" argument.
func (p Props) SetOverride(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || k == "" {
		return fmt.Errorf("-p %q: want key=value", kv)
	}
	return p.Set(strings.TrimSpace(k), strings.TrimSpace(v))
}

// LoadFile reads a property file into p.
func (p Props) LoadFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("workload file: %w", err)
	}
	defer f.Close()
	return ParseProps(f, path, p)
}

func suggest(k string) string {
	lk := strings.ToLower(k)
	var best []string
	for name := range knownProps {
		if name == lk || strings.HasPrefix(name, lk) || strings.HasPrefix(lk, name) {
			best = append(best, name)
		}
	}
	if len(best) == 0 {
		return ""
	}
	sort.Strings(best)
	return fmt.Sprintf(" (did you mean %q?)", best[0])
}

// propReader reads typed values, remembering the first error.
type propReader struct {
	p   Props
	err error
}

func (r *propReader) fail(k, v, want string) {
	if r.err == nil {
		r.err = fmt.Errorf("property %s=%q: want %s", k, v, want)
	}
}

func (r *propReader) str(k, def string) string {
	if v, ok := r.p[k]; ok {
		return v
	}
	return def
}

func (r *propReader) int(k string, def int64) int64 {
	v, ok := r.p[k]
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		r.fail(k, v, "an integer")
	}
	return n
}

func (r *propReader) nonNeg(k string, def int64) int64 {
	n := r.int(k, def)
	if n < 0 {
		r.fail(k, r.p[k], "a non-negative integer")
	}
	return n
}

func (r *propReader) float(k string, def float64) float64 {
	v, ok := r.p[k]
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		r.fail(k, v, "a number")
	}
	return f
}

func (r *propReader) fraction(k string, def float64) float64 {
	f := r.float(k, def)
	if f < 0 || f > 1 {
		r.fail(k, r.p[k], "a number between 0 and 1")
	}
	return f
}

func (r *propReader) bool(k string, def bool) bool {
	v, ok := r.p[k]
	if !ok {
		return def
	}
	switch strings.ToLower(v) {
	case "true":
		return true
	case "false":
		return false
	}
	r.fail(k, v, "true or false")
	return def
}

func (r *propReader) oneOf(k, def string, allowed ...string) string {
	v := r.str(k, def)
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	r.fail(k, v, "one of "+strings.Join(allowed, ", "))
	return def
}
