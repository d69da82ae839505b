package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/user"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/weirdb/weir/client"
	"github.com/weirdb/weir/internal/cell"
	"github.com/weirdb/weir/internal/filter"
)

// shellError is a failed command's one-line message (printed after
// "ERROR: ").
type shellError struct{ msg string }

func (e *shellError) Error() string { return e.msg }

func errorf(format string, args ...any) error { return &shellError{fmt.Sprintf(format, args...)} }

// unsupported is the error of a command or option the server lacks.
func unsupported(what string) error {
	return errorf("%s is not supported by this Weir server yet", what)
}

// errExit asks the shell to stop.
var errExit = errors.New("exit")

type handler func(s *session, ctx context.Context, c Command) error

var handlers map[string]handler

// unsupportedGroups are the command groups whose server side Weir lacks.
var unsupportedGroups = map[string]bool{}

// unsupportedCommands are the other commands whose server side Weir lacks.
var unsupportedCommands = map[string]bool{}

// localCommands run without a connection.
var localCommands = map[string]bool{"help": true, "version": true, "exit": true, "whoami": true}

func init() {
	handlers = map[string]handler{
		"status": (*session).status, "version": (*session).version, "whoami": (*session).whoami,
		"help": (*session).help, "exit": func(*session, context.Context, Command) error { return errExit },
		"create": (*session).create, "alter": (*session).alter, "describe": (*session).describe,
		"exists": (*session).exists, "disable": (*session).disable, "enable": (*session).enable,
		"is_enabled": (*session).isEnabled, "drop": (*session).drop, "truncate": (*session).truncate,
		"list":             (*session).list,
		"create_namespace": (*session).createNamespace, "drop_namespace": (*session).dropNamespace,
		"describe_namespace": (*session).describeNamespace, "list_namespace": (*session).listNamespace,
		"list_namespace_tables": (*session).listNamespaceTables,
		"put":                   (*session).put, "get": (*session).get, "delete": (*session).delete,
		"deleteall": (*session).deleteall, "incr": (*session).incr, "get_counter": (*session).getCounter,
		"append": (*session).append, "scan": (*session).scan, "count": (*session).count,
		"flush": (*session).flush, "compact": (*session).compact, "major_compact": (*session).compact,
		"compaction_state": (*session).compactionState,
		"list_regions":     (*session).listRegions, "locate_region": (*session).locateRegion,
	}
}

// supported reports whether the shell can run command name against a Weir
// server.
func supported(name string) bool {
	_, ok := handlers[name]
	return ok
}

// execute runs one checked command and prints its output.
func (s *session) execute(ctx context.Context, c Command) error {
	spec := Lookup(c.Name)
	if spec != nil && (unsupportedGroups[spec.Group] || unsupportedCommands[c.Name]) {
		return unsupported(c.Name)
	}
	h := handlers[c.Name]
	if h == nil {
		return unsupported(c.Name)
	}
	start := s.cfg.Now()
	if err := h(s, ctx, c); err != nil {
		return err
	}
	if c.Name != "help" && c.Name != "exit" {
		fmt.Fprintln(s.out, took(s.cfg.Now().Sub(start)))
	}
	return nil
}

// ---- argument helpers

func strArg(c Command, i int) string {
	if i < len(c.Args) {
		if v, ok := c.Args[i].(*String); ok {
			return string(v.Val)
		}
	}
	return ""
}

func bytesOf(v Value) []byte {
	switch v := v.(type) {
	case *String:
		return v.Val
	case *Int:
		return []byte(strconv.FormatInt(v.Val, 10))
	case *Float:
		return []byte(v.Inspect())
	case *Const:
		return []byte(v.Name)
	case *Symbol:
		return []byte(v.Name)
	case *Bool:
		return []byte(strconv.FormatBool(v.Val))
	}
	return nil
}

func intOf(key string, v Value) (int64, error) {
	switch v := v.(type) {
	case *Int:
		return v.Val, nil
	case *String:
		n, err := strconv.ParseInt(strings.TrimSpace(string(v.Val)), 10, 64)
		if err == nil {
			return n, nil
		}
	}
	return 0, errorf("%s must be an integer, got %s", key, v.Inspect())
}

func boolOf(key string, v Value) (bool, error) {
	switch v := v.(type) {
	case *Bool:
		return v.Val, nil
	case *String, *Const:
		switch strings.ToLower(string(bytesOf(v))) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, errorf("%s must be true or false, got %s", key, v.Inspect())
}

// hashArgs returns the hash arguments of c from index i on.
func hashArgs(c Command, from int) []*Hash {
	var hs []*Hash
	for _, a := range c.Args[min(from, len(c.Args)):] {
		if h, ok := a.(*Hash); ok {
			hs = append(hs, h)
		}
	}
	return hs
}

// splitColumn splits "family:qualifier"; hasQual is false for "family".
func splitColumn(col []byte) (fam, qual []byte, hasQual bool) {
	if i := bytes.IndexByte(col, ':'); i >= 0 {
		return col[:i], col[i+1:], true
	}
	return col, nil, false
}

// rejectKeys fails when h holds one of keys, which the server lacks.
func rejectKeys(cmd string, h *Hash, keys ...string) error {
	for _, k := range keys {
		if h != nil && h.Get(k) != nil {
			return unsupported(cmd + " option " + k)
		}
	}
	return nil
}

// ---- errors from the server

// serverErr turns a client error into the shell's one-line message.
func (s *session) serverErr(ctx context.Context, table string, err error) error {
	var se *shellError
	switch {
	case errors.As(err, &se):
		return err
	case errors.Is(err, client.ErrTableNotFound):
		return errorf("Unknown table %s!", table)
	case errors.Is(err, client.ErrNamespaceNotFound):
		return errorf("Unknown namespace %s!", table)
	case errors.Is(err, client.ErrTableExists):
		return errorf("Table already exists: %s!", table)
	case errors.Is(err, client.ErrNamespaceExists):
		return errorf("Namespace already exists: %s!", table)
	case errors.Is(err, client.ErrTableDisabled):
		return errorf("Table %s is disabled!", table)
	case errors.Is(err, client.ErrTableNotDisabled):
		return errorf("Table %s is enabled. Disable it first.", table)
	case errors.Is(err, client.ErrNoSuchColumnFamily):
		if d, derr := s.conn.Admin().DescribeTable(ctx, table); derr == nil {
			var names []string
			for _, f := range d.Families {
				names = append(names, f.Name+":*")
			}
			return errorf("Unknown column family! Valid column names: %s", strings.Join(names, ", "))
		}
		return errorf("Unknown column family in table %s", table)
	case errors.Is(err, context.Canceled):
		return errorf("interrupted")
	}
	msg := err.Error()
	var re *client.RemoteError
	if errors.As(err, &re) {
		// The message of a Java exception carries its stack trace.
		m, _, _ := strings.Cut(re.Message, "\n")
		msg = m
		if !strings.HasPrefix(m, re.Class+": ") { // HBase's stringified form names it already
			msg = re.Class + ": " + m
		}
	}
	return errorf("%s", msg)
}

// mustExist fails with "Unknown table t!" when table does not exist.
func (s *session) mustExist(ctx context.Context, table string) error {
	ok, err := s.conn.Admin().TableExists(ctx, table)
	if err != nil {
		return s.serverErr(ctx, table, err)
	}
	if !ok {
		return errorf("Unknown table %s!", table)
	}
	return nil
}

// ---- general

func (s *session) status(ctx context.Context, c Command) error {
	format := strArg(c, 0)
	if format == "" {
		format = "summary"
	}
	if format != "summary" && format != "simple" && format != "detailed" {
		return errorf("status format must be 'summary', 'simple' or 'detailed', got '%s'", format)
	}
	st, err := s.conn.Admin().ClusterStatus(ctx)
	if err != nil {
		return s.serverErr(ctx, "", err)
	}
	fmt.Fprintf(s.out, "1 active master, 0 backup masters, %d servers, %d dead\n", len(st.Servers), len(st.DeadServers))
	if format == "summary" {
		return nil
	}
	if format == "detailed" {
		fmt.Fprintf(s.out, "version %s\ncluster id %s\n", st.Version, st.ClusterID)
	}
	fmt.Fprintf(s.out, "active master:\n    %s\n", st.Master)
	fmt.Fprintf(s.out, "%d live servers\n", len(st.Servers))
	for _, srv := range st.Servers {
		fmt.Fprintf(s.out, "    %s\n", srv)
	}
	fmt.Fprintf(s.out, "%d dead servers\n", len(st.DeadServers))
	for _, srv := range st.DeadServers {
		fmt.Fprintf(s.out, "    %s\n", srv)
	}
	return nil
}

func (s *session) version(context.Context, Command) error {
	fmt.Fprintf(s.out, "Weir %s, HBase 2.6 compatible shell\n", s.cfg.Version)
	return nil
}

func (s *session) whoami(context.Context, Command) error {
	fmt.Fprintf(s.out, "%s (auth:SIMPLE)\n", s.cfg.User)
	groups := []string{}
	if u, err := user.Lookup(s.cfg.User); err == nil {
		if ids, err := u.GroupIds(); err == nil {
			for _, id := range ids {
				if g, err := user.LookupGroupId(id); err == nil {
					groups = append(groups, g.Name)
				}
			}
		}
	}
	fmt.Fprintf(s.out, "    groups: %s\n", strings.Join(groups, ", "))
	return nil
}

func (s *session) help(_ context.Context, c Command) error {
	text, err := Help(strArg(c, 0))
	if err != nil {
		return errorf("%s", err.Error())
	}
	fmt.Fprint(s.out, text)
	return nil
}

// ---- ddl

var familyOnlyDefaults = map[string]string{"BLOCKCACHE": "true", "REPLICATION_SCOPE": "0"}

// applyFamily sets the attributes in h (other than NAME and METHOD) on f.
func applyFamily(cmd string, f *client.FamilyDescriptor, h *Hash) error {
	for _, p := range h.Pairs {
		k, _ := KeyName(p.Key)
		v := p.Val
		var err error
		var n int64
		switch k {
		case "NAME", "METHOD":
		case "VERSIONS":
			n, err = intOf(k, v)
			f.MaxVersions = int(n)
		case "MIN_VERSIONS":
			n, err = intOf(k, v)
			f.MinVersions = int(n)
		case "TTL":
			if strings.EqualFold(string(bytesOf(v)), "FOREVER") {
				f.TTL = client.TTLForever
			} else {
				n, err = intOf(k, v)
				f.TTL = int(n)
			}
		case "BLOCKSIZE":
			n, err = intOf(k, v)
			f.BlockSize = int(n)
		case "KEEP_DELETED_CELLS":
			f.KeepDeletedCells = strings.ToUpper(string(bytesOf(v)))
		case "BLOOMFILTER":
			f.BloomFilter = strings.ToUpper(string(bytesOf(v)))
		case "COMPRESSION":
			f.Compression = strings.ToUpper(string(bytesOf(v)))
		case "DATA_BLOCK_ENCODING":
			f.DataBlockEncoding = strings.ToUpper(string(bytesOf(v)))
		case "IN_MEMORY":
			f.InMemory, err = boolOf(k, v)
		default:
			if def, ok := familyOnlyDefaults[k]; ok && strings.EqualFold(string(bytesOf(v)), def) {
				continue
			}
			return unsupported(fmt.Sprintf("%s with column family attribute %s", cmd, k))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// applyTable sets the table attributes in h on d and returns the split
// keys it asks for.
func applyTable(cmd string, d *client.TableDescriptor, h *Hash) (splits [][]byte, err error) {
	var numRegions int64
	algo := ""
	for _, p := range h.Pairs {
		k, _ := KeyName(p.Key)
		switch k {
		case "METHOD":
			if m := string(bytesOf(p.Val)); m != "table_att" {
				return nil, errorf("%s: METHOD must be 'delete' with NAME, or 'table_att', got '%s'", cmd, m)
			}
		case "SPLITS":
			for _, e := range p.Val.(*Array).Elems {
				splits = append(splits, bytesOf(e))
			}
		case "NUMREGIONS":
			if numRegions, err = intOf(k, p.Val); err != nil {
				return nil, err
			}
		case "SPLITALGO":
			algo = string(bytesOf(p.Val))
		case "MAX_FILESIZE":
			if d.MaxFileSize, err = intOf(k, p.Val); err != nil {
				return nil, err
			}
		case "DURABILITY":
			v := strings.ToUpper(string(bytesOf(p.Val)))
			i := slices.Index([]string{"USE_DEFAULT", "SKIP_WAL", "ASYNC_WAL", "SYNC_WAL", "FSYNC_WAL"}, v)
			if i < 0 {
				return nil, errorf("DURABILITY must be USE_DEFAULT, SKIP_WAL, ASYNC_WAL, SYNC_WAL or FSYNC_WAL, got %s", p.Val.Inspect())
			}
			d.Durability = client.Durability(i)
		default:
			return nil, unsupported(fmt.Sprintf("%s with table attribute %s", cmd, k))
		}
	}
	if numRegions > 0 || algo != "" {
		if splits != nil {
			return nil, errorf("%s: give SPLITS or NUMREGIONS, not both", cmd)
		}
		if algo != "HexStringSplit" && algo != "org.apache.hadoop.hbase.util.RegionSplitter.HexStringSplit" {
			if algo == "" {
				return nil, errorf("%s: NUMREGIONS needs SPLITALGO", cmd)
			}
			return nil, unsupported(cmd + " with SPLITALGO " + algo)
		}
		if numRegions < 2 {
			return nil, errorf("%s: NUMREGIONS must be at least 2", cmd)
		}
		for i := int64(1); i < numRegions; i++ {
			splits = append(splits, []byte(fmt.Sprintf("%08x", uint64(0xFFFFFFFF)*uint64(i)/uint64(numRegions))))
		}
	}
	return splits, nil
}

func (s *session) create(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	d := client.TableDescriptor{Name: name}
	var splits [][]byte
	for _, a := range c.Args[1:] {
		switch a := a.(type) {
		case *String:
			d.Families = append(d.Families, client.FamilyDescriptor{Name: string(a.Val)})
		case *Hash:
			if fam := a.Get("NAME"); fam != nil {
				f := client.FamilyDescriptor{Name: string(bytesOf(fam))}
				if err := applyFamily("create", &f, a); err != nil {
					return err
				}
				d.Families = append(d.Families, f)
				continue
			}
			sp, err := applyTable("create", &d, a)
			if err != nil {
				return err
			}
			splits = append(splits, sp...)
		}
	}
	if len(d.Families) == 0 {
		return errorf("Table must have at least one column family")
	}
	if err := s.conn.Admin().CreateTable(ctx, d, splits); err != nil {
		return s.serverErr(ctx, name, err)
	}
	fmt.Fprintf(s.out, "Created table %s\n", name)
	return nil
}

func (s *session) alter(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	d, err := s.conn.Admin().DescribeTable(ctx, name)
	if err != nil {
		return s.serverErr(ctx, name, err)
	}
	family := func(n string) *client.FamilyDescriptor {
		for i := range d.Families {
			if d.Families[i].Name == n {
				return &d.Families[i]
			}
		}
		d.Families = append(d.Families, client.FamilyDescriptor{Name: n})
		return &d.Families[len(d.Families)-1]
	}
	for _, a := range c.Args[1:] {
		switch a := a.(type) {
		case *String:
			family(string(a.Val))
		case *Hash:
			fam := a.Get("NAME")
			if fam == nil {
				if _, err := applyTable("alter", &d, a); err != nil {
					return err
				}
				continue
			}
			fname := string(bytesOf(fam))
			if m := a.Get("METHOD"); m != nil {
				if string(bytesOf(m)) != "delete" {
					return errorf("alter: METHOD with NAME must be 'delete', got %s", m.Inspect())
				}
				i := slices.IndexFunc(d.Families, func(f client.FamilyDescriptor) bool { return f.Name == fname })
				if i < 0 {
					return errorf("Unknown column family %s in table %s", fname, name)
				}
				d.Families = slices.Delete(d.Families, i, i+1)
				continue
			}
			if err := applyFamily("alter", family(fname), a); err != nil {
				return err
			}
		}
	}
	if len(d.Families) == 0 {
		return errorf("alter: table %s must keep at least one column family", name)
	}
	fmt.Fprintln(s.out, "Updating all regions with the new schema...")
	if err := s.conn.Admin().ModifyTable(ctx, d); err != nil {
		return s.serverErr(ctx, name, err)
	}
	fmt.Fprintln(s.out, "Done.")
	return nil
}

var durabilityNames = []string{"USE_DEFAULT", "SKIP_WAL", "ASYNC_WAL", "SYNC_WAL", "FSYNC_WAL"}

// describeFamily renders a family as HBase's describe does.
func describeFamily(f client.FamilyDescriptor) string {
	f.EnsureDefaults()
	ttl := "FOREVER"
	if f.TTL != client.TTLForever {
		ttl = fmt.Sprintf("%d SECONDS", f.TTL)
	}
	attrs := [][2]string{
		{"NAME", f.Name}, {"VERSIONS", strconv.Itoa(f.MaxVersions)},
		{"KEEP_DELETED_CELLS", f.KeepDeletedCells}, {"DATA_BLOCK_ENCODING", f.DataBlockEncoding},
		{"TTL", ttl}, {"MIN_VERSIONS", strconv.Itoa(f.MinVersions)},
		{"BLOOMFILTER", f.BloomFilter}, {"IN_MEMORY", strconv.FormatBool(f.InMemory)},
		{"COMPRESSION", f.Compression}, {"BLOCKSIZE", strconv.Itoa(f.BlockSize)},
	}
	var parts []string
	for _, a := range attrs {
		parts = append(parts, a[0]+" => "+rubyStr(a[1]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (s *session) describe(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	a := s.conn.Admin()
	d, err := a.DescribeTable(ctx, name)
	if err != nil {
		return s.serverErr(ctx, name, err)
	}
	enabled, err := a.IsTableEnabled(ctx, name)
	if err != nil {
		return s.serverErr(ctx, name, err)
	}
	state := "DISABLED"
	if enabled {
		state = "ENABLED"
	}
	fmt.Fprintf(s.out, "Table %s is %s\n", name, state)
	var attrs []string
	if d.MaxFileSize != 0 {
		attrs = append(attrs, "MAX_FILESIZE => "+rubyStr(strconv.FormatInt(d.MaxFileSize, 10)))
	}
	if d.Durability != client.DurabilityDefault && int(d.Durability) < len(durabilityNames) {
		attrs = append(attrs, "DURABILITY => "+rubyStr(durabilityNames[d.Durability]))
	}
	if len(attrs) > 0 {
		fmt.Fprintf(s.out, "%s, {TABLE_ATTRIBUTES => {%s}}\n", name, strings.Join(attrs, ", "))
	} else {
		fmt.Fprintln(s.out, name)
	}
	fmt.Fprintln(s.out, "COLUMN FAMILIES DESCRIPTION")
	for _, f := range d.Families {
		fmt.Fprintln(s.out, describeFamily(f))
	}
	fmt.Fprintln(s.out)
	fmt.Fprintln(s.out, rows(len(d.Families)))
	return nil
}

func (s *session) exists(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	ok, err := s.conn.Admin().TableExists(ctx, name)
	if err != nil {
		return s.serverErr(ctx, name, err)
	}
	if ok {
		fmt.Fprintf(s.out, "Table %s does exist\n", name)
	} else {
		fmt.Fprintf(s.out, "Table %s does not exist\n", name)
	}
	return nil
}

func (s *session) isEnabled(ctx context.Context, c Command) error {
	return tableFact(ctx, s, c, s.conn.Admin().IsTableEnabled)
}

// tableFact prints what query answers of the existing table c names.
func tableFact[T any](ctx context.Context, s *session, c Command, query func(context.Context, string) (T, error)) error {
	name := strArg(c, 0)
	if err := s.mustExist(ctx, name); err != nil {
		return err
	}
	v, err := query(ctx, name)
	if err != nil {
		return s.serverErr(ctx, name, err)
	}
	fmt.Fprintln(s.out, v)
	return nil
}

func (s *session) tableOp(ctx context.Context, c Command, op func(context.Context, string) error) error {
	name := strArg(c, 0)
	if err := s.mustExist(ctx, name); err != nil {
		return err
	}
	if err := op(ctx, name); err != nil {
		return s.serverErr(ctx, name, err)
	}
	return nil
}

func (s *session) disable(ctx context.Context, c Command) error {
	return s.tableOp(ctx, c, s.conn.Admin().DisableTable)
}

func (s *session) enable(ctx context.Context, c Command) error {
	return s.tableOp(ctx, c, s.conn.Admin().EnableTable)
}

func (s *session) drop(ctx context.Context, c Command) error {
	return s.tableOp(ctx, c, s.conn.Admin().DeleteTable)
}

func (s *session) truncate(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	a := s.conn.Admin()
	if err := s.mustExist(ctx, name); err != nil {
		return err
	}
	fmt.Fprintf(s.out, "Truncating '%s' table (it may take a while):\n", name)
	enabled, err := a.IsTableEnabled(ctx, name)
	if err != nil {
		return s.serverErr(ctx, name, err)
	}
	if enabled {
		fmt.Fprintln(s.out, "Disabling table...")
		if err := a.DisableTable(ctx, name); err != nil {
			return s.serverErr(ctx, name, err)
		}
	}
	fmt.Fprintln(s.out, "Truncating table...")
	if err := a.TruncateTable(ctx, name, false); err != nil {
		return s.serverErr(ctx, name, err)
	}
	return nil
}

func (s *session) list(ctx context.Context, c Command) error {
	names, err := s.conn.Admin().ListTables(ctx, strArg(c, 0))
	if err != nil {
		return s.serverErr(ctx, "", err)
	}
	slices.Sort(names)
	fmt.Fprintln(s.out, "TABLE")
	for _, n := range names {
		fmt.Fprintln(s.out, n)
	}
	fmt.Fprintln(s.out, rows(len(names)))
	return nil
}

// ---- namespaces

func (s *session) createNamespace(ctx context.Context, c Command) error {
	ns := strArg(c, 0)
	if hs := hashArgs(c, 1); len(hs) > 0 && len(hs[0].Pairs) > 0 {
		return unsupported("create_namespace with properties")
	}
	if err := s.conn.Admin().CreateNamespace(ctx, ns); err != nil {
		return s.serverErr(ctx, ns, err)
	}
	return nil
}

func (s *session) dropNamespace(ctx context.Context, c Command) error {
	ns := strArg(c, 0)
	if err := s.conn.Admin().DeleteNamespace(ctx, ns); err != nil {
		return s.serverErr(ctx, ns, err)
	}
	return nil
}

func (s *session) namespaceExists(ctx context.Context, ns string) error {
	all, err := s.conn.Admin().ListNamespaces(ctx)
	if err != nil {
		return s.serverErr(ctx, ns, err)
	}
	if !slices.Contains(all, ns) {
		return errorf("Unknown namespace %s!", ns)
	}
	return nil
}

func (s *session) describeNamespace(ctx context.Context, c Command) error {
	ns := strArg(c, 0)
	if err := s.namespaceExists(ctx, ns); err != nil {
		return err
	}
	fmt.Fprintf(s.out, "DESCRIPTION\n{NAME => '%s'}\n", ns)
	return nil
}

func (s *session) listNamespace(ctx context.Context, c Command) error {
	all, err := s.conn.Admin().ListNamespaces(ctx)
	if err != nil {
		return s.serverErr(ctx, "", err)
	}
	var re *regexp.Regexp
	if p := strArg(c, 0); p != "" {
		if re, err = regexp.Compile("^(?:" + p + ")$"); err != nil {
			return errorf("bad regular expression %q: %v", p, err)
		}
	}
	slices.Sort(all)
	fmt.Fprintln(s.out, "NAMESPACE")
	n := 0
	for _, ns := range all {
		if re == nil || re.MatchString(ns) {
			fmt.Fprintln(s.out, ns)
			n++
		}
	}
	fmt.Fprintln(s.out, rows(n))
	return nil
}

func (s *session) listNamespaceTables(ctx context.Context, c Command) error {
	ns := strArg(c, 0)
	if err := s.namespaceExists(ctx, ns); err != nil {
		return err
	}
	names, err := s.conn.Admin().ListTables(ctx, "")
	if err != nil {
		return s.serverErr(ctx, ns, err)
	}
	var out []string
	for _, n := range names {
		tns, t, ok := strings.Cut(n, ":")
		if !ok {
			tns, t = "default", n
		}
		if tns == ns {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	fmt.Fprintln(s.out, "TABLE")
	for _, t := range out {
		fmt.Fprintln(s.out, t)
	}
	fmt.Fprintln(s.out, rows(len(out)))
	return nil
}

// ---- dml

func (s *session) put(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	row, col := []byte(strArg(c, 1)), []byte(strArg(c, 2))
	val := bytesOf(c.Args[3])
	ts := int64(client.LatestTimestamp)
	for _, a := range c.Args[4:] {
		switch a := a.(type) {
		case *Int:
			ts = a.Val
		case *Hash:
			if err := rejectKeys("put", a, "ATTRIBUTES", "VISIBILITY", "TTL"); err != nil {
				return err
			}
		}
	}
	fam, qual, _ := splitColumn(col)
	p := client.NewPut(row)
	if ts == client.LatestTimestamp {
		p.AddColumn(fam, qual, val)
	} else {
		p.AddColumnTS(fam, qual, ts, val)
	}
	if err := s.conn.Table(name).Put(ctx, p); err != nil {
		return s.serverErr(ctx, name, err)
	}
	return nil
}

// readOpts are the parsed options of get, scan and count.
type readOpts struct {
	columns   [][]byte
	filter    filter.Filter
	versions  int
	tr        *[2]int64
	maxLength int
}

// readSpec is what get and scan options set on a client.Get or Scan.
type readSpec[T any] interface {
	AddColumn(family, qualifier []byte) T
	AddFamily(family []byte) T
	SetFilter(f filter.Filter) T
	SetMaxVersions(n int) T
	SetTimeRange(minTS, maxTS int64) T
}

// applyRead sets o's columns, filter, versions and time range on r.
func applyRead[T readSpec[T]](r T, o *readOpts) {
	for _, col := range o.columns {
		if fam, qual, ok := splitColumn(col); ok {
			r.AddColumn(fam, qual)
		} else {
			r.AddFamily(fam)
		}
	}
	if o.filter != nil {
		r.SetFilter(o.filter)
	}
	if o.versions > 0 {
		r.SetMaxVersions(o.versions)
	}
	if o.tr != nil {
		r.SetTimeRange(o.tr[0], o.tr[1])
	}
}

func (o *readOpts) addColumns(v Value) {
	switch v := v.(type) {
	case *String:
		o.columns = append(o.columns, v.Val)
	case *Array:
		for _, e := range v.Elems {
			o.columns = append(o.columns, bytesOf(e))
		}
	}
}

// parseRead takes the read options common to get and scan out of h.
func parseRead(cmd string, h *Hash, o *readOpts) error {
	if h == nil {
		return nil
	}
	if err := rejectKeys(cmd, h, "ATTRIBUTES", "AUTHORIZATIONS", "CONSISTENCY", "REGION_REPLICA_ID",
		"FORMATTER", "FORMATTER_CLASS", "ALL_METRICS", "METRICS", "ISOLATION_LEVEL"); err != nil {
		return err
	}
	for _, p := range h.Pairs {
		k, _ := KeyName(p.Key)
		switch k {
		case "COLUMN", "COLUMNS":
			o.addColumns(p.Val)
		case "FILTER":
			f, err := BuildFilter(string(bytesOf(p.Val)))
			if err != nil {
				var se *SyntaxError
				var fe *FilterError
				switch {
				case errors.As(err, &se):
					return errorf("column %d: FILTER: column %d of the filter string: %s", p.Val.Pos(), se.Col, se.Msg)
				case errors.As(err, &fe):
					return errorf("column %d: FILTER: %s", p.Val.Pos(), fe.Error())
				}
				return errorf("FILTER: %v", err)
			}
			o.filter = f
		case "VERSIONS":
			n, err := intOf(k, p.Val)
			if err != nil {
				return err
			}
			o.versions = int(n)
		case "TIMESTAMP":
			n, err := intOf(k, p.Val)
			if err != nil {
				return err
			}
			o.tr = &[2]int64{n, n + 1}
		case "TIMERANGE":
			arr := p.Val.(*Array)
			if len(arr.Elems) != 2 {
				return errorf("TIMERANGE must be [min, max], got %s", arr.Inspect())
			}
			lo, err := intOf(k, arr.Elems[0])
			if err != nil {
				return err
			}
			hi, err := intOf(k, arr.Elems[1])
			if err != nil {
				return err
			}
			o.tr = &[2]int64{lo, hi}
		case "MAXLENGTH":
			n, err := intOf(k, p.Val)
			if err != nil {
				return err
			}
			o.maxLength = int(n)
		}
	}
	return nil
}

var typeNames = map[cell.Type]string{
	cell.TypeDelete: "Delete", cell.TypeDeleteColumn: "DeleteColumn",
	cell.TypeDeleteFamily: "DeleteFamily", cell.TypeDeleteFamilyVersion: "DeleteFamilyVersion",
}

// cellText renders "timestamp=..., value=..." for a cell.
func (s *session) cellText(c cell.Cell, maxLength int) string {
	ts := formatTS(c.Timestamp, s.cfg.Location)
	if c.Type != cell.TypePut {
		return fmt.Sprintf("timestamp=%s, type=%s", ts, typeNames[c.Type])
	}
	v := ToStringBinary(c.Value)
	if maxLength > 0 && len(v) > maxLength {
		v = v[:maxLength] + "..."
	}
	return fmt.Sprintf("timestamp=%s, value=%s", ts, v)
}

func colName(c cell.Cell) string {
	return ToStringBinary(c.Family) + ":" + ToStringBinary(c.Qualifier)
}

func (s *session) get(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	row := []byte(strArg(c, 1))
	var o readOpts
	for _, a := range c.Args[2:] {
		if h, ok := a.(*Hash); ok {
			if err := parseRead("get", h, &o); err != nil {
				return err
			}
		} else {
			o.addColumns(a)
		}
	}
	g := client.NewGet(row)
	applyRead(g, &o)
	res, err := s.conn.Table(name).Get(ctx, g)
	if err != nil {
		return s.serverErr(ctx, name, err)
	}
	t := twoCol{s.out}
	t.header("COLUMN", "CELL")
	for _, cl := range res.Cells {
		t.row(colName(cl), s.cellText(cl, o.maxLength))
	}
	fmt.Fprintln(s.out, rows(len(res.Cells)))
	return nil
}

func (s *session) delete(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	d := client.NewDelete([]byte(strArg(c, 1)))
	ts := int64(client.LatestTimestamp)
	for _, a := range c.Args[3:] {
		switch a := a.(type) {
		case *Int:
			ts = a.Val
		case *Hash:
			if err := rejectKeys("delete", a, "VISIBILITY"); err != nil {
				return err
			}
		}
	}
	fam, qual, ok := splitColumn([]byte(strArg(c, 2)))
	switch {
	case ok:
		d.AddColumnsTS(fam, qual, ts)
	case ts == client.LatestTimestamp:
		d.AddFamily(fam)
	default:
		d.SetTimestamp(ts).AddFamily(fam)
	}
	if err := s.conn.Table(name).Delete(ctx, d); err != nil {
		return s.serverErr(ctx, name, err)
	}
	return nil
}

// prefixEnd is the first row after every row with prefix p (nil: none).
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

func (s *session) deleteall(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	tbl := s.conn.Table(name)
	var col []byte
	ts := int64(client.LatestTimestamp)
	var opts *Hash
	for _, a := range c.Args[2:] {
		switch a := a.(type) {
		case *String:
			col = a.Val
		case *Int:
			ts = a.Val
		case *Hash:
			opts = a
		}
	}
	if err := rejectKeys("deleteall", opts, "VISIBILITY"); err != nil {
		return err
	}
	mk := func(row []byte) *client.Delete {
		d := client.NewDelete(row)
		if col == nil {
			return d.SetTimestamp(ts)
		}
		fam, qual, ok := splitColumn(col)
		if ok {
			return d.AddColumnsTS(fam, qual, ts)
		}
		if ts != client.LatestTimestamp {
			d.SetTimestamp(ts)
		}
		return d.AddFamily(fam)
	}
	if h, ok := c.Args[1].(*Hash); ok {
		prefix := h.Get("ROWPREFIXFILTER")
		if prefix == nil {
			return errorf("deleteall: the row hash needs ROWPREFIXFILTER")
		}
		p := bytesOf(prefix)
		sc := client.NewScan().WithStartRow(p, true).SetFilter(filter.NewFirstKeyOnlyFilter())
		if end := prefixEnd(p); end != nil {
			sc.WithStopRow(end, false)
		}
		scanner := tbl.Scan(ctx, sc)
		defer scanner.Close()
		for {
			r, err := scanner.Next()
			if err == io.EOF || err == nil && r == nil {
				return nil
			}
			if err != nil {
				return s.serverErr(ctx, name, err)
			}
			if err := tbl.Delete(ctx, mk(r.Row)); err != nil {
				return s.serverErr(ctx, name, err)
			}
		}
	}
	if err := tbl.Delete(ctx, mk([]byte(strArg(c, 1)))); err != nil {
		return s.serverErr(ctx, name, err)
	}
	return nil
}

func (s *session) incr(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	row := []byte(strArg(c, 1))
	fam, qual, _ := splitColumn([]byte(strArg(c, 2)))
	delta := int64(1)
	for _, a := range c.Args[3:] {
		switch a := a.(type) {
		case *Int:
			delta = a.Val
		case *Hash:
			if err := rejectKeys("incr", a, "ATTRIBUTES", "VISIBILITY", "TTL"); err != nil {
				return err
			}
		}
	}
	res, err := s.conn.Table(name).Increment(ctx, client.NewIncrement(row).AddColumn(fam, qual, delta))
	if err != nil {
		return s.serverErr(ctx, name, err)
	}
	n, ok := client.Int64(res.Value(fam, qual))
	if !ok {
		return errorf("incr: the server answered no counter value")
	}
	fmt.Fprintf(s.out, "COUNTER VALUE = %d\n", n)
	return nil
}

func (s *session) getCounter(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	row := []byte(strArg(c, 1))
	fam, qual, _ := splitColumn([]byte(strArg(c, 2)))
	res, err := s.conn.Table(name).Get(ctx, client.NewGet(row).AddColumn(fam, qual))
	if err != nil {
		return s.serverErr(ctx, name, err)
	}
	v := res.Value(fam, qual)
	if v == nil {
		fmt.Fprintln(s.out, "No counter found at specified coordinates")
		return nil
	}
	n, ok := client.Int64(v)
	if !ok {
		return errorf("the value at %s/%s/%s is not a counter (%d bytes, not 8)", name, ToStringBinary(row), strArg(c, 2), len(v))
	}
	fmt.Fprintf(s.out, "COUNTER VALUE = %d\n", n)
	return nil
}

func (s *session) append(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	row := []byte(strArg(c, 1))
	fam, qual, _ := splitColumn([]byte(strArg(c, 2)))
	if err := rejectKeys("append", firstHash(c, 4), "ATTRIBUTES", "VISIBILITY"); err != nil {
		return err
	}
	res, err := s.conn.Table(name).Append(ctx, client.NewAppend(row).AddColumn(fam, qual, bytesOf(c.Args[3])))
	if err != nil {
		return s.serverErr(ctx, name, err)
	}
	fmt.Fprintf(s.out, "CURRENT VALUE = %s\n", ToStringBinary(res.Value(fam, qual)))
	return nil
}

func firstHash(c Command, from int) *Hash {
	if hs := hashArgs(c, from); len(hs) > 0 {
		return hs[0]
	}
	return nil
}

// buildScan makes the Scan of scan and count.
func buildScan(cmd string, h *Hash, o *readOpts) (*client.Scan, error) {
	sc := client.NewScan()
	if err := parseRead(cmd, h, o); err != nil {
		return nil, err
	}
	applyRead(sc, o)
	if h == nil {
		return sc, nil
	}
	for _, p := range h.Pairs {
		k, _ := KeyName(p.Key)
		var err error
		var n int64
		var b bool
		switch k {
		case "STARTROW":
			sc.WithStartRow(bytesOf(p.Val), true)
		case "STOPROW":
			sc.WithStopRow(bytesOf(p.Val), false)
		case "ROWPREFIXFILTER":
			pr := bytesOf(p.Val)
			sc.WithStartRow(pr, true)
			if end := prefixEnd(pr); end != nil {
				sc.WithStopRow(end, false)
			}
		case "LIMIT":
			if n, err = intOf(k, p.Val); err == nil {
				sc.SetLimit(int(n))
			}
		case "CACHE":
			if n, err = intOf(k, p.Val); err == nil {
				sc.SetCaching(int(n))
			}
		case "BATCH":
			if n, err = intOf(k, p.Val); err == nil {
				sc.SetBatch(int(n))
			}
		case "MAX_RESULT_SIZE":
			if n, err = intOf(k, p.Val); err == nil {
				sc.SetMaxResultSize(n)
			}
		case "REVERSED":
			if b, err = boolOf(k, p.Val); err == nil {
				sc.SetReversed(b)
			}
		case "RAW":
			if b, err = boolOf(k, p.Val); err == nil {
				sc.SetRaw(b)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return sc, nil
}

func (s *session) scan(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	var o readOpts
	sc, err := buildScan("scan", firstHash(c, 1), &o)
	if err != nil {
		return err
	}
	if err := s.mustExist(ctx, name); err != nil {
		return err
	}
	scanner := s.conn.Table(name).Scan(ctx, sc)
	defer scanner.Close()
	t := twoCol{s.out}
	t.header("ROW", "COLUMN+CELL")
	n := 0
	var last []byte
	for {
		r, err := scanner.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return s.serverErr(ctx, name, err)
		}
		if r == nil {
			break
		}
		if n == 0 || !bytes.Equal(r.Row, last) {
			n++
			last = bytes.Clone(r.Row)
		}
		for _, cl := range r.Cells {
			t.row(ToStringBinary(r.Row), "column="+colName(cl)+", "+s.cellText(cl, o.maxLength))
		}
	}
	fmt.Fprintln(s.out, rows(n))
	return nil
}

func (s *session) count(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	h := firstHash(c, 1)
	interval := int64(1000)
	if h != nil {
		if v := h.Get("INTERVAL"); v != nil {
			interval, _ = intOf("INTERVAL", v)
		}
	}
	var o readOpts
	sc, err := buildScan("count", h, &o)
	if err != nil {
		return err
	}
	if o.filter == nil {
		sc.SetFilter(filter.NewFirstKeyOnlyFilter())
	}
	if err := s.mustExist(ctx, name); err != nil {
		return err
	}
	scanner := s.conn.Table(name).Scan(ctx, sc)
	defer scanner.Close()
	n := int64(0)
	var last []byte
	for {
		r, err := scanner.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return s.serverErr(ctx, name, err)
		}
		if r == nil {
			break
		}
		if n > 0 && bytes.Equal(r.Row, last) {
			continue
		}
		n++
		last = bytes.Clone(r.Row)
		if interval > 0 && n%interval == 0 {
			fmt.Fprintf(s.out, "Current count: %d, row: %s\n", n, ToStringBinary(r.Row))
		}
	}
	fmt.Fprintln(s.out, rows(int(n)))
	return nil
}

// ---- tools

func (s *session) flush(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	if len(c.Args) > 1 {
		return unsupported("flush of one column family")
	}
	if err := s.mustExist(ctx, name); err != nil {
		return err
	}
	if err := s.conn.Admin().Flush(ctx, name); err != nil {
		return s.serverErr(ctx, name, err)
	}
	return nil
}

func (s *session) compact(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	if len(c.Args) > 1 {
		if _, isNil := c.Args[1].(*Nil); !isNil {
			return unsupported(c.Name + " of one column family")
		}
	}
	if len(c.Args) > 2 {
		return unsupported(c.Name + " of type " + strArg(c, 2))
	}
	if err := s.mustExist(ctx, name); err != nil {
		return err
	}
	if err := s.conn.Admin().Compact(ctx, name, c.Name == "major_compact"); err != nil {
		return s.serverErr(ctx, name, err)
	}
	return nil
}

func (s *session) compactionState(ctx context.Context, c Command) error {
	return tableFact(ctx, s, c, s.conn.Admin().CompactionState)
}

// encodedName extracts the encoded name from "<table>,<start>,<id>.<enc>.".
func encodedName(region []byte) string {
	r := strings.TrimSuffix(string(region), ".")
	if i := strings.LastIndexByte(r, '.'); i >= 0 {
		return r[i+1:]
	}
	return r
}

func (s *session) listRegions(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	server := ""
	for _, a := range c.Args[1:] {
		switch a := a.(type) {
		case *String:
			server = string(a.Val)
		case *Hash:
			if err := rejectKeys("list_regions", a, "LOCALITY_THRESHOLD"); err != nil {
				return err
			}
			if v := a.Get("SERVER_NAME"); v != nil {
				server = string(bytesOf(v))
			}
		case *Array:
			for _, e := range a.Elems {
				col := string(bytesOf(e))
				if !slices.Contains([]string{"SERVER_NAME", "REGION_NAME", "START_KEY", "END_KEY"}, col) {
					return unsupported("list_regions column " + col)
				}
			}
		}
	}
	if err := s.mustExist(ctx, name); err != nil {
		return err
	}
	regions, err := s.conn.Admin().Regions(ctx, name)
	if err != nil {
		return s.serverErr(ctx, name, err)
	}
	fmt.Fprintln(s.out, "SERVER_NAME | REGION_NAME | START_KEY | END_KEY")
	n := 0
	for _, r := range regions {
		if server != "" && !strings.HasPrefix(r.Server, server) {
			continue
		}
		n++
		fmt.Fprintf(s.out, " %s | %s | %s | %s\n", r.Server, ToStringBinary(r.Name), ToStringBinary(r.StartKey), ToStringBinary(r.EndKey))
	}
	fmt.Fprintf(s.out, " %d rows\n", n)
	return nil
}

func (s *session) locateRegion(ctx context.Context, c Command) error {
	name := strArg(c, 0)
	row := []byte(strArg(c, 1))
	if err := s.mustExist(ctx, name); err != nil {
		return err
	}
	regions, err := s.conn.Admin().Regions(ctx, name)
	if err != nil {
		return s.serverErr(ctx, name, err)
	}
	t := twoCol{s.out}
	t.header("HOST", "REGION")
	for _, r := range regions {
		if bytes.Compare(row, r.StartKey) >= 0 && (len(r.EndKey) == 0 || bytes.Compare(row, r.EndKey) < 0) {
			t.row(r.Server, fmt.Sprintf("{ENCODED => %s, NAME => '%s', STARTKEY => '%s', ENDKEY => '%s'}",
				encodedName(r.Name), ToStringBinary(r.Name), ToStringBinary(r.StartKey), ToStringBinary(r.EndKey)))
			break
		}
	}
	fmt.Fprintln(s.out, rows(1))
	return nil
}
