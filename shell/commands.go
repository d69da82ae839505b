package shell

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Kind is a set of value types an argument or hash value may have.
type Kind uint16

const (
	KString Kind = 1 << iota
	KInt
	KFloat
	KBool
	KNil
	KConst
	KSymbol
	KArray
	KHash

	KNumber = KInt | KFloat
	KAny    = KString | KInt | KFloat | KBool | KNil | KConst | KSymbol | KArray | KHash
)

var kindNames = []string{"string", "integer", "float", "boolean", "nil", "constant", "symbol", "array", "hash"}

// String lists the types in k: "string or hash".
func (k Kind) String() string {
	var names []string
	for i, n := range kindNames {
		if k&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	switch len(names) {
	case 0:
		return "nothing"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// KindOf is the Kind of v.
func KindOf(v Value) Kind {
	switch v.(type) {
	case *String:
		return KString
	case *Int:
		return KInt
	case *Float:
		return KFloat
	case *Bool:
		return KBool
	case *Nil:
		return KNil
	case *Const:
		return KConst
	case *Symbol:
		return KSymbol
	case *Array:
		return KArray
	case *Hash:
		return KHash
	}
	return 0
}

// ArgSpec describes one positional argument.
type ArgSpec struct {
	Name  string
	Kinds Kind
}

// Spec describes a command: its group, usage, and argument shape.
type Spec struct {
	Name  string
	Group string
	Usage string
	// Args are the positional arguments, of which the first MinArgs are
	// required. A hash (braced or bare) counts as one argument.
	Args    []ArgSpec
	MinArgs int
	// MaxArgs is len(Args), or -1 when further arguments like Rest may
	// follow.
	MaxArgs int
	Rest    *ArgSpec
	// Keys are the keys allowed in hash arguments and the kinds of their
	// values (0: any). Nested hashes (ATTRIBUTES, METADATA...) are not
	// checked.
	Keys map[string]Kind
	// AnyKeys allows any key (create_namespace properties).
	AnyKeys bool
	// Enums restricts the values (constants or strings) of some keys.
	Enums map[string][]string
}

// CheckError is an argument error found by Check before anything is sent
// to a server.
type CheckError struct {
	Col int
	Msg string
}

func (e *CheckError) Error() string { return fmt.Sprintf("column %d: %s", e.Col, e.Msg) }

var (
	specs      = map[string]*Spec{}
	specOrder  []*Spec
	groupOrder = []string{"general", "ddl", "namespace", "dml", "tools", "quotas", "snapshots"}
)

// Lookup returns the spec of a command, or nil.
func Lookup(name string) *Spec { return specs[name] }

// Commands returns all command specs, grouped, in table order.
func Commands() []*Spec { return slices.Clone(specOrder) }

// Groups returns the command group names in order.
func Groups() []string { return slices.Clone(groupOrder) }

func cmd(s *Spec) {
	if s.MaxArgs == 0 {
		s.MaxArgs = len(s.Args)
	}
	if s.Rest != nil {
		s.MaxArgs = -1
	}
	s.Usage = strings.TrimSpace(s.Usage)
	if _, dup := specs[s.Name]; dup {
		panic("shell: duplicate command " + s.Name)
	}
	specs[s.Name] = s
	specOrder = append(specOrder, s)
}

func keys(kinds map[string]Kind, more ...map[string]Kind) map[string]Kind {
	m := map[string]Kind{}
	for _, src := range append([]map[string]Kind{kinds}, more...) {
		for k, v := range src {
			m[k] = v
		}
	}
	return m
}

const kStrInt = KString | KInt
const kBoolStr = KBool | KString

var familyKeys = map[string]Kind{
	"NAME": KString, "VERSIONS": kStrInt, "MIN_VERSIONS": kStrInt, "TTL": kStrInt,
	"BLOCKCACHE": kBoolStr, "BLOCKSIZE": kStrInt, "BLOOMFILTER": KString | KConst,
	"COMPRESSION": KString | KConst, "COMPRESSION_COMPACT": KString | KConst,
	"DATA_BLOCK_ENCODING": KString | KConst, "IN_MEMORY": kBoolStr,
	"KEEP_DELETED_CELLS": kBoolStr | KConst, "REPLICATION_SCOPE": kStrInt,
	"CACHE_DATA_ON_WRITE": kBoolStr, "CACHE_INDEX_ON_WRITE": kBoolStr,
	"CACHE_BLOOMS_ON_WRITE": kBoolStr, "EVICT_BLOCKS_ON_CLOSE": kBoolStr,
	"PREFETCH_BLOCKS_ON_OPEN": kBoolStr, "NEW_VERSION_BEHAVIOR": kBoolStr,
	"IS_MOB": kBoolStr, "MOB_THRESHOLD": kStrInt, "STORAGE_POLICY": KString,
	"DFS_REPLICATION": kStrInt, "CONFIGURATION": KHash, "METADATA": KHash,
}

var tableKeys = map[string]Kind{
	"SPLITS": KArray, "SPLITS_FILE": KString, "NUMREGIONS": kStrInt, "SPLITALGO": KString,
	"OWNER": KString, "MAX_FILESIZE": kStrInt, "READONLY": kBoolStr,
	"MEMSTORE_FLUSHSIZE": kStrInt, "DURABILITY": KString | KConst,
	"REGION_REPLICATION": kStrInt, "NORMALIZATION_ENABLED": kBoolStr,
	"COMPACTION_ENABLED": kBoolStr, "SPLIT_ENABLED": kBoolStr, "MERGE_ENABLED": kBoolStr,
	"PRIORITY": kStrInt, "FLUSH_POLICY": KString, "REGION_MEMSTORE_REPLICATION": kBoolStr,
	"CONFIGURATION": KHash, "METADATA": KHash,
}

var alterKeys = map[string]Kind{"METHOD": KString}

var readKeys = map[string]Kind{
	"COLUMN": KString | KArray, "COLUMNS": KString | KArray, "TIMESTAMP": KInt,
	"TIMERANGE": KArray, "VERSIONS": KInt, "FILTER": KString, "ATTRIBUTES": KHash,
	"AUTHORIZATIONS": KArray, "CONSISTENCY": KString | KConst, "REGION_REPLICA_ID": KInt,
	"FORMATTER": KString, "FORMATTER_CLASS": KString,
}

var scanKeys = map[string]Kind{
	"STARTROW": KString, "STOPROW": KString, "ROWPREFIXFILTER": KString,
	"MAXLENGTH": KInt, "CACHE": KInt, "CACHE_BLOCKS": KBool, "RAW": KBool,
	"LIMIT": KInt, "REVERSED": KBool, "ALL_METRICS": KBool, "METRICS": KArray,
	"ISOLATION_LEVEL": KString | KConst, "BATCH": KInt, "MAX_RESULT_SIZE": KInt,
}

var quotaTargetKeys = map[string]Kind{
	"USER": KString, "TABLE": KString, "NAMESPACE": KString, "REGIONSERVER": KString,
}

var (
	table   = ArgSpec{"table", KString}
	row     = ArgSpec{"row", KString}
	column  = ArgSpec{"column", KString}
	options = ArgSpec{"options", KHash}
)

func init() {
	// general
	cmd(&Spec{Name: "status", Group: "general", Args: []ArgSpec{{"format", KString}}, Usage: `
Show cluster status. Can be 'summary', 'simple', or 'detailed'. The default is 'summary'.
Examples:

  hbase> status
  hbase> status 'simple'
  hbase> status 'summary'
  hbase> status 'detailed'`})
	cmd(&Spec{Name: "version", Group: "general", Usage: `
Output this HBase (Weir) version.`})
	cmd(&Spec{Name: "whoami", Group: "general", Usage: `
Show the current user and the groups it belongs to.`})
	cmd(&Spec{Name: "help", Group: "general", Args: []ArgSpec{{"command or group", KString}}, Usage: `
Show help: with no argument, the command groups and their commands; with a
command name, its usage; with a group name, the usage of all its commands.
Examples:

  hbase> help
  hbase> help 'scan'
  hbase> help 'ddl'`})
	cmd(&Spec{Name: "exit", Group: "general", Usage: `
Leave the shell.`})

	// ddl
	cmd(&Spec{Name: "create", Group: "ddl", MinArgs: 2,
		Args: []ArgSpec{table}, Rest: &ArgSpec{"family", KString | KHash},
		Keys: keys(familyKeys, tableKeys), Usage: `
Creates a table. Pass a table name, and a set of column family
specifications (at least one), and, optionally, table configuration.
Column specification can be a simple string (name), or a dictionary
(dictionaries are described below in main help output), necessarily
including NAME attribute.
Examples:

  hbase> create 'ns1:t1', {NAME => 'f1', VERSIONS => 5}
  hbase> create 't1', {NAME => 'f1'}, {NAME => 'f2'}, {NAME => 'f3'}
  hbase> create 't1', 'f1', 'f2', 'f3'
  hbase> create 't1', {NAME => 'f1', VERSIONS => 1, TTL => 2592000, BLOCKCACHE => true}
  hbase> create 't1', 'f1', SPLITS => ['10', '20', '30', '40']
  hbase> create 't1', 'f1', {NUMREGIONS => 15, SPLITALGO => 'HexStringSplit'}`})
	cmd(&Spec{Name: "alter", Group: "ddl", MinArgs: 2,
		Args: []ArgSpec{table}, Rest: &ArgSpec{"family or attributes", KString | KHash},
		Keys: keys(familyKeys, tableKeys, alterKeys), Usage: `
Alter a table. Add or modify a column family by passing its specification;
delete one with METHOD => 'delete'; change table attributes directly.
Examples:

  hbase> alter 't1', NAME => 'f1', VERSIONS => 5
  hbase> alter 't1', 'f1', {NAME => 'f2', IN_MEMORY => true}, {NAME => 'f3', VERSIONS => 5}
  hbase> alter 'ns1:t1', NAME => 'f1', METHOD => 'delete'
  hbase> alter 't1', MAX_FILESIZE => '134217728'`})
	for _, c := range []struct{ name, usage string }{
		{"describe", "Describe the named table.\n\n  hbase> describe 't1'\n  hbase> describe 'ns1:t1'"},
		{"exists", "Does the named table exist?\n\n  hbase> exists 't1'\n  hbase> exists 'ns1:t1'"},
		{"disable", "Start disable of named table:\n\n  hbase> disable 't1'\n  hbase> disable 'ns1:t1'"},
		{"enable", "Start enable of named table:\n\n  hbase> enable 't1'\n  hbase> enable 'ns1:t1'"},
		{"is_enabled", "Is named table enabled? For example:\n\n  hbase> is_enabled 't1'\n  hbase> is_enabled 'ns1:t1'"},
		{"drop", "Drop the named table. Table must first be disabled:\n\n  hbase> drop 't1'\n  hbase> drop 'ns1:t1'"},
		{"truncate", "Disables, drops and recreates the specified table.\n\n  hbase> truncate 't1'"},
	} {
		cmd(&Spec{Name: c.name, Group: "ddl", MinArgs: 1, Args: []ArgSpec{table}, Usage: c.usage})
	}
	cmd(&Spec{Name: "list", Group: "ddl", Args: []ArgSpec{{"regex", KString}}, Usage: `
List all user tables in hbase. Optional regular expression parameter could
be used to filter the output. Examples:

  hbase> list
  hbase> list 'abc.*'
  hbase> list 'ns:abc.*'
  hbase> list 'ns:.*'`})

	// namespace
	cmd(&Spec{Name: "create_namespace", Group: "namespace", MinArgs: 1,
		Args: []ArgSpec{{"namespace", KString}, {"properties", KHash}}, AnyKeys: true, Usage: `
Create namespace; pass namespace name,
and optionally a dictionary of namespace configuration.
Examples:

  hbase> create_namespace 'ns1'
  hbase> create_namespace 'ns1', {'PROPERTY_NAME'=>'PROPERTY_VALUE'}`})
	cmd(&Spec{Name: "drop_namespace", Group: "namespace", MinArgs: 1, Args: []ArgSpec{{"namespace", KString}}, Usage: `
Drop the named namespace. The namespace must be empty.

  hbase> drop_namespace 'ns1'`})
	cmd(&Spec{Name: "describe_namespace", Group: "namespace", MinArgs: 1, Args: []ArgSpec{{"namespace", KString}}, Usage: `
Describe the named namespace. For example:

  hbase> describe_namespace 'ns1'`})
	cmd(&Spec{Name: "list_namespace", Group: "namespace", Args: []ArgSpec{{"regex", KString}}, Usage: `
List all namespaces in hbase. Optional regular expression parameter could
be used to filter the output. Examples:

  hbase> list_namespace
  hbase> list_namespace 'abc.*'`})
	cmd(&Spec{Name: "list_namespace_tables", Group: "namespace", MinArgs: 1, Args: []ArgSpec{{"namespace", KString}}, Usage: `
List all tables that are members of the namespace.
Examples:

  hbase> list_namespace_tables 'ns1'`})

	// dml
	cmd(&Spec{Name: "put", Group: "dml", MinArgs: 4,
		Args: []ArgSpec{table, row, column, {"value", KString | KNumber}, {"timestamp", KInt | KHash}, options},
		Keys: map[string]Kind{"ATTRIBUTES": KHash, "VISIBILITY": KString, "TTL": KInt}, Usage: `
Put a cell 'value' at specified table/row/column and optionally
timestamp coordinates.  To put a cell value into table 'ns1:t1' or 't1'
at row 'r1' under column 'c1' marked with the time 'ts1', do:

  hbase> put 'ns1:t1', 'r1', 'c1', 'value'
  hbase> put 't1', 'r1', 'c1', 'value'
  hbase> put 't1', 'r1', 'c1', 'value', ts1
  hbase> put 't1', 'r1', 'c1', 'value', {ATTRIBUTES=>{'mykey'=>'myvalue'}}
  hbase> put 't1', 'r1', 'c1', 'value', ts1, {VISIBILITY=>'PRIVATE|SECRET'}`})
	cmd(&Spec{Name: "get", Group: "dml", MinArgs: 2,
		Args: []ArgSpec{table, row}, Rest: &ArgSpec{"columns or options", KString | KArray | KHash},
		Keys: readKeys, Usage: `
Get row or cell contents; pass table name, row, and optionally
a dictionary of column(s), timestamp, timerange and versions. Examples:

  hbase> get 'ns1:t1', 'r1'
  hbase> get 't1', 'r1'
  hbase> get 't1', 'r1', {TIMERANGE => [ts1, ts2]}
  hbase> get 't1', 'r1', {COLUMN => 'c1'}
  hbase> get 't1', 'r1', {COLUMN => ['c1', 'c2', 'c3']}
  hbase> get 't1', 'r1', {COLUMN => 'c1', TIMESTAMP => ts1}
  hbase> get 't1', 'r1', {COLUMN => 'c1', TIMERANGE => [ts1, ts2], VERSIONS => 4}
  hbase> get 't1', 'r1', {FILTER => "ValueFilter(=, 'binary:abc')"}
  hbase> get 't1', 'r1', 'c1'
  hbase> get 't1', 'r1', 'c1', 'c2'
  hbase> get 't1', 'r1', ['c1', 'c2']`})
	cmd(&Spec{Name: "delete", Group: "dml", MinArgs: 3,
		Args: []ArgSpec{table, row, column, {"timestamp", KInt | KHash}, options},
		Keys: map[string]Kind{"VISIBILITY": KString}, Usage: `
Put a delete cell value at specified table/row/column and optionally
timestamp coordinates.  Deletes must match the deleted cell's
coordinates exactly.  When scanning, a delete cell suppresses older
versions. To delete a cell from  't1' at row 'r1' under column 'c1'
marked with the time 'ts1', do:

  hbase> delete 'ns1:t1', 'r1', 'c1', ts1
  hbase> delete 't1', 'r1', 'c1', ts1
  hbase> delete 't1', 'r1', 'c1', ts1, {VISIBILITY=>'PRIVATE|SECRET'}`})
	cmd(&Spec{Name: "deleteall", Group: "dml", MinArgs: 2,
		Args: []ArgSpec{table, {"row", KString | KHash}, {"column", KString | KHash}, {"timestamp", KInt | KHash}, options},
		Keys: map[string]Kind{"VISIBILITY": KString, "ROWPREFIXFILTER": KString, "CACHE": KInt}, Usage: `
Delete all cells in a given row; pass a table name, row, and optionally
a column and timestamp. Deleteall also support deleting a row range using a
row key prefix. Examples:

  hbase> deleteall 'ns1:t1', 'r1'
  hbase> deleteall 't1', 'r1'
  hbase> deleteall 't1', 'r1', 'c1'
  hbase> deleteall 't1', 'r1', 'c1', ts1
  hbase> deleteall 't1', {ROWPREFIXFILTER => 'prefix'}`})
	cmd(&Spec{Name: "incr", Group: "dml", MinArgs: 3,
		Args: []ArgSpec{table, row, column, {"increment", KInt | KHash}, options},
		Keys: map[string]Kind{"ATTRIBUTES": KHash, "VISIBILITY": KString, "TTL": KInt}, Usage: `
Increments a cell 'value' at specified table/row/column coordinates.
To increment a cell value in table 'ns1:t1' or 't1' at row 'r1' under column
'c1' by 1 (can be omitted) or 10 do:

  hbase> incr 'ns1:t1', 'r1', 'c1'
  hbase> incr 't1', 'r1', 'c1'
  hbase> incr 't1', 'r1', 'c1', 1
  hbase> incr 't1', 'r1', 'c1', 10
  hbase> incr 't1', 'r1', 'c1', 10, {ATTRIBUTES=>{'mykey'=>'myvalue'}}`})
	cmd(&Spec{Name: "get_counter", Group: "dml", MinArgs: 3, Args: []ArgSpec{table, row, column}, Usage: `
Return a counter cell value at specified table/row/column coordinates.
A counter cell should be managed with atomic increment functions on HBase
and the data should be binary encoded (as long value). Example:

  hbase> get_counter 'ns1:t1', 'r1', 'c1'
  hbase> get_counter 't1', 'r1', 'c1'`})
	cmd(&Spec{Name: "append", Group: "dml", MinArgs: 4,
		Args: []ArgSpec{table, row, column, {"value", KString | KNumber}, options},
		Keys: map[string]Kind{"ATTRIBUTES": KHash, "VISIBILITY": KString}, Usage: `
Appends a cell 'value' at specified table/row/column coordinates.

  hbase> append 't1', 'r1', 'c1', 'value', ATTRIBUTES=>{'mykey'=>'myvalue'}
  hbase> append 't1', 'r1', 'c1', 'value', {VISIBILITY=>'PRIVATE|SECRET'}`})
	cmd(&Spec{Name: "scan", Group: "dml", MinArgs: 1, Args: []ArgSpec{table, options},
		Keys: keys(readKeys, scanKeys), Usage: `
Scan a table; pass table name and optionally a dictionary of scanner
specifications.  Scanner specifications may include one or more of:
TIMERANGE, FILTER, LIMIT, STARTROW, STOPROW, ROWPREFIXFILTER, TIMESTAMP,
MAXLENGTH, COLUMNS, CACHE, RAW, VERSIONS, REVERSED, BATCH or MAX_RESULT_SIZE.
Some examples:

  hbase> scan 'hbase:meta'
  hbase> scan 'hbase:meta', {COLUMNS => 'info:regioninfo'}
  hbase> scan 'ns1:t1', {COLUMNS => ['c1', 'c2'], LIMIT => 10, STARTROW => 'xyz'}
  hbase> scan 't1', {COLUMNS => ['c1', 'c2'], LIMIT => 10, STARTROW => 'xyz'}
  hbase> scan 't1', {COLUMNS => 'c1', TIMERANGE => [1303668804000, 1303668904000]}
  hbase> scan 't1', {REVERSED => true}
  hbase> scan 't1', {ROWPREFIXFILTER => 'row2', FILTER => "
    (QualifierFilter (>=, 'binary:xyz')) AND (TimestampsFilter ( 123, 456))"}
  hbase> scan 't1', {FILTER => "PrefixFilter('r') AND ValueFilter(=, 'binary:x')"}`})
	cmd(&Spec{Name: "count", Group: "dml", MinArgs: 1, Args: []ArgSpec{table, options},
		Keys: map[string]Kind{"INTERVAL": KInt, "CACHE": KInt, "FILTER": KString, "COLUMNS": KString | KArray, "CACHE_BLOCKS": KBool, "STARTROW": KString, "STOPROW": KString, "ROWPREFIXFILTER": KString}, Usage: `
Count the number of rows in a table.  Return value is the number of rows.
Current count is shown every 1000 rows by default. Count interval may be
optionally specified. Examples:

  hbase> count 'ns1:t1'
  hbase> count 't1'
  hbase> count 't1', INTERVAL => 100000
  hbase> count 't1', CACHE => 1000
  hbase> count 't1', INTERVAL => 10, CACHE => 1000
  hbase> count 't1', FILTER => "(QualifierFilter (>=, 'binary:xyz')) AND (TimestampsFilter ( 123, 456))"`})

	// tools
	cmd(&Spec{Name: "flush", Group: "tools", MinArgs: 1, Args: []ArgSpec{{"table or region", KString}, {"family", KString}}, Usage: `
Flush all regions in passed table or pass a region row to
flush an individual region or a column family. For example:

  hbase> flush 'TABLENAME'
  hbase> flush 'TABLENAME','FAMILYNAME'
  hbase> flush 'REGIONNAME'`})
	for _, name := range []string{"compact", "major_compact"} {
		what := "Compact"
		if name == "major_compact" {
			what = "Run major compaction on"
		}
		cmd(&Spec{Name: name, Group: "tools", MinArgs: 1,
			Args: []ArgSpec{{"table or region", KString}, {"family", KString | KNil}, {"type", KString}}, Usage: what + ` all regions in a table, a region, or one column family:

  hbase> ` + name + ` 't1'
  hbase> ` + name + ` 'ns1:t1'
  hbase> ` + name + ` 'r1'
  hbase> ` + name + ` 't1', 'c1'
  hbase> ` + name + ` 't1', nil, 'MOB'`})
	}
	cmd(&Spec{Name: "compaction_state", Group: "tools", MinArgs: 1, Args: []ArgSpec{{"table", KString}}, Usage: `
Gets compaction status (MAJOR, MAJOR_AND_MINOR, MINOR, NONE) for a table.
compact and major_compact return once the compaction is queued; this says
when it is done. For example:

  hbase> compaction_state 'ns1:t1'
  hbase> compaction_state 't1'`})
	cmd(&Spec{Name: "split", Group: "tools", MinArgs: 1, Args: []ArgSpec{{"table or region", KString}, {"split key", KString}}, Usage: `
Split entire table or pass a region to split individual region.  With the
second parameter, you can specify an explicit split key for the region.
Examples:

  split 'TABLENAME'
  split 'REGIONNAME'
  split 'ENCODED_REGIONNAME'
  split 'TABLENAME', 'splitKey'`})
	cmd(&Spec{Name: "move", Group: "tools", MinArgs: 1, Args: []ArgSpec{{"encoded region name", KString}, {"server name", KString}}, Usage: `
Move a region.  Optionally specify target regionserver else we choose one
at random.  NOTE: You pass the encoded region name, not the region name.
Examples:

  hbase> move 'ENCODED_REGIONNAME'
  hbase> move 'ENCODED_REGIONNAME', 'SERVER_NAME'`})
	cmd(&Spec{Name: "balancer", Group: "tools", Rest: &ArgSpec{"option", KString}, Usage: `
Trigger the cluster balancer. Returns true if balancer ran, otherwise false
(it does not run while regions are in transition, or while it is switched
off unless dry_run).

Parameter can be "force" (or "ignore_rit") or "dry_run":
 - "dry_run" plans without moving anything and prints the plan: each move
   with its region, table, source and target server and host, and the
   plan's cost before and after.
 - "force" / "ignore_rit" runs even with regions in transition; those
   regions stay where they are.

Examples:

  hbase> balancer
  hbase> balancer 'force'
  hbase> balancer 'dry_run'
  hbase> balancer 'dry_run', 'ignore_rit'`})
	cmd(&Spec{Name: "balance_switch", Group: "tools", MinArgs: 1, Args: []ArgSpec{{"enabled", KBool}}, Usage: `
Enable/Disable balancer. Returns previous balancer state.
Examples:

  hbase> balance_switch true
  hbase> balance_switch false`})
	cmd(&Spec{Name: "balancer_enabled", Group: "tools", Usage: `
Query the balancer's state.
Examples:

  hbase> balancer_enabled`})
	cmd(&Spec{Name: "snapshot_cleanup_switch", Group: "tools", MinArgs: 1, Args: []ArgSpec{{"enabled", KBool}}, Usage: `
Enable/Disable the master's deletion of snapshots whose TTL has expired.
Returns the previous state.
Examples:

  hbase> snapshot_cleanup_switch true
  hbase> snapshot_cleanup_switch false`})
	cmd(&Spec{Name: "snapshot_cleanup_enabled", Group: "tools", Usage: `
Query the state of the snapshot cleanup (deletion of expired snapshots).
Examples:

  hbase> snapshot_cleanup_enabled`})
	cmd(&Spec{Name: "list_regions", Group: "tools", MinArgs: 1,
		Args: []ArgSpec{table, {"server or options", KString | KHash}, {"columns", KArray}},
		Keys: map[string]Kind{"SERVER_NAME": KString, "LOCALITY_THRESHOLD": KNumber}, Usage: `
List all regions for a particular table as an array and also filter them by server name (optional) as prefix
and maximum locality (optional). By default, it will return all the regions for the table with any locality.
Examples:

  hbase> list_regions 'table_name'
  hbase> list_regions 'table_name', 'server_name'
  hbase> list_regions 'table_name', {SERVER_NAME => 'server_name', LOCALITY_THRESHOLD => 0.8}
  hbase> list_regions 'table_name', {}, ['SERVER_NAME', 'start_key']`})
	cmd(&Spec{Name: "locate_region", Group: "tools", MinArgs: 2, Args: []ArgSpec{table, {"row", KString}}, Usage: `
Locate the region given a table name and a row-key

  hbase> locate_region 'tableName', 'key0'`})

	// quotas
	cmd(&Spec{Name: "set_quota", Group: "quotas", MinArgs: 1, Args: []ArgSpec{{"quota", KHash}},
		Keys: keys(quotaTargetKeys, map[string]Kind{
			"TYPE": KConst | KString, "THROTTLE_TYPE": KConst | KString,
			"LIMIT": KString | KConst | KInt, "POLICY": KConst | KString, "GLOBAL_BYPASS": KBool,
			"SCOPE": KConst | KString, "PRIORITY": KConst | KString, "WEIGHT": KInt, "REMOVE": KBool,
		}),
		Enums: map[string][]string{
			"TYPE": {"THROTTLE", "SPACE"},
			"THROTTLE_TYPE": {"READ", "WRITE", "REQUEST", "REQUEST_NUMBER", "REQUEST_SIZE", "WRITE_NUMBER",
				"WRITE_SIZE", "READ_NUMBER", "READ_SIZE", "REQUEST_CAPACITY_UNIT", "WRITE_CAPACITY_UNIT",
				"READ_CAPACITY_UNIT", "ATOMIC_READ_SIZE", "ATOMIC_REQUEST_NUMBER", "ATOMIC_WRITE_SIZE",
				"REQUEST_HANDLER_USAGE_MS"},
			"SCOPE":    {"MACHINE", "CLUSTER"},
			"PRIORITY": {"HIGH", "MEDIUM", "LOW"},
			"POLICY":   {"DISABLE", "NO_WRITES", "NO_WRITES_COMPACTIONS", "NO_INSERTS"},
		}, Usage: `
Set a quota for a user, table, namespace or region server.
Syntax : set_quota TYPE => <type>, <args>

TYPE => THROTTLE
User can either set quota on read, write or on both the requests together
(i.e., read+write). The read, write, or read+write (default throttle type)
request limit can be expressed using the form 100req/sec, 100req/min; the
read, write, read+write (default throttle type) limit can be expressed using
the form 100k/sec, 100M/min with (B, K, M, G, T, P) as valid size unit; and
(sec, min, hour, day) as valid time unit.

  hbase> set_quota TYPE => THROTTLE, USER => 'u1', LIMIT => '10req/sec'
  hbase> set_quota TYPE => THROTTLE, THROTTLE_TYPE => READ, USER => 'u1', LIMIT => '10req/sec'
  hbase> set_quota TYPE => THROTTLE, USER => 'u1', LIMIT => '10M/sec'
  hbase> set_quota TYPE => THROTTLE, USER => 'u1', TABLE => 't2', LIMIT => '5K/min'
  hbase> set_quota TYPE => THROTTLE, NAMESPACE => 'ns1', LIMIT => '10req/sec'
  hbase> set_quota TYPE => THROTTLE, TABLE => 't1', LIMIT => '10M/sec'
  hbase> set_quota TYPE => THROTTLE, THROTTLE_TYPE => READ, TABLE => 't', LIMIT => NONE
  hbase> set_quota TYPE => THROTTLE, REGIONSERVER => 'all', LIMIT => '30000req/sec'
  hbase> set_quota USER => 'u1', GLOBAL_BYPASS => true

Weir: PRIORITY (HIGH, MEDIUM, LOW; default MEDIUM) and WEIGHT (1..65536;
default 1) of a USER decide who runs first when a region server is
saturated: every queued HIGH call before any MEDIUM one, then shares in
proportion to WEIGHT. An idle server makes nobody wait.
  hbase> set_quota TYPE => THROTTLE, USER => 'etl', PRIORITY => LOW
  hbase> set_quota TYPE => THROTTLE, USER => 'web', PRIORITY => HIGH, WEIGHT => 4

TYPE => SPACE
Users can either set a quota on a table or on a namespace. The quota is a limit
on the target's size on the file system; LIMIT is a number of bytes or a size
with a unit (B, K, M, G, T, P). POLICY is what happens once the limit is passed:
NO_INSERTS (no Puts, Appends or Increments; Deletes allowed), NO_WRITES (no
mutations), NO_WRITES_COMPACTIONS (no mutations and no compactions) or DISABLE
(the table is disabled). Remove a space quota with LIMIT => NONE or
REMOVE => true.

  hbase> set_quota TYPE => SPACE, TABLE => 't1', LIMIT => '1G', POLICY => NO_INSERTS
  hbase> set_quota TYPE => SPACE, TABLE => 't1', LIMIT => '1G', POLICY => NO_WRITES
  hbase> set_quota TYPE => SPACE, NAMESPACE => 'ns1', LIMIT => '50T', POLICY => DISABLE
  hbase> set_quota TYPE => SPACE, TABLE => 't1', LIMIT => NONE
  hbase> set_quota TYPE => SPACE, NAMESPACE => 'ns1', REMOVE => true`})
	cmd(&Spec{Name: "list_quotas", Group: "quotas", Args: []ArgSpec{{"filter", KHash}}, Keys: quotaTargetKeys, Usage: `
List the quota settings added to the system.
You can filter the result based on USER, TABLE, NAMESPACE or REGIONSERVER
(regular expressions).
For example:

  hbase> list_quotas
  hbase> list_quotas USER => 'bob.*'
  hbase> list_quotas USER => 'bob.*', TABLE => 't1'
  hbase> list_quotas USER => 'bob.*', NAMESPACE => 'ns.*'
  hbase> list_quotas TABLE => 'myTable'
  hbase> list_quotas NAMESPACE => 'ns.*'
  hbase> list_quotas REGIONSERVER => 'all'`})
	for _, c := range []struct{ name, usage string }{
		{"enable_rpc_throttle", "Enable quota rpc throttle. Returns previous rpc throttle enabled value.\n\n  hbase> enable_rpc_throttle"},
		{"disable_rpc_throttle", "Disable quota rpc throttle. Returns previous rpc throttle enabled value.\n\n  hbase> disable_rpc_throttle"},
		{"rpc_throttle_enabled", "Show whether quota rpc throttle is enabled.\n\n  hbase> rpc_throttle_enabled"},
		{"enable_exceed_throttle_quota", "Enable exceed throttle quota: a user may exceed its throttle when the region server has capacity left.\nReturns previous exceed throttle quota enabled value.\n\n  hbase> enable_exceed_throttle_quota"},
		{"disable_exceed_throttle_quota", "Disable exceed throttle quota. Returns previous exceed throttle quota enabled value.\n\n  hbase> disable_exceed_throttle_quota"},
	} {
		cmd(&Spec{Name: c.name, Group: "quotas", Usage: c.usage})
	}
	cmd(&Spec{Name: "list_quota_usage", Group: "quotas", Args: []ArgSpec{{"filter", KHash}}, Keys: quotaTargetKeys, Usage: `
List the live usage of each throttle, cluster-wide (a Weir command; the
region servers report to the master every 200 ms): per owner and throttle
type, the recent rate per second (in requests, bytes, capacity units or ms
by type), the limit as set and the sum of the servers' own limits (a
CLUSTER limit is shared by demand; a MACHINE limit applies per host), the
requests queued now, the requests admitted and rejected, and the total time
requests waited. Filter like list_quotas.

  hbase> list_quota_usage
  hbase> list_quota_usage TABLE => 't1'
  hbase> list_quota_usage USER => 'bob.*'`})

	cmd(&Spec{Name: "list_quota_snapshots", Group: "quotas", Args: []ArgSpec{{"filter", KHash}}, Keys: quotaTargetKeys, Usage: `
Lists the current space quota snapshots with optional selection criteria.
Snapshots encapsulate relevant information to space quotas such as space
use, configured limits, and quota violation details. This command is
useful for understanding the current state of a cluster with space quotas.

By default, this command will read all snapshots stored in the system from
the hbase:quota table. A table name or namespace can be provided to filter
the snapshots returned. RegionServers maintain a copy of snapshots, refreshed
at a regular interval; by providing a RegionServer option, snapshots will
be retreived from that RegionServer instead of the quota table.

For example:

    hbase> list_quota_snapshots
    hbase> list_quota_snapshots({TABLE => 'table1'})
    hbase> list_quota_snapshots({NAMESPACE => 'org1'})
    hbase> list_quota_snapshots({REGIONSERVER => 'server1.domain,16020,1483482894742'})
    hbase> list_quota_snapshots({NAMESPACE => 'org1', REGIONSERVER => 'server1.domain,16020,1483482894742'})`})
	cmd(&Spec{Name: "list_quota_table_sizes", Group: "quotas", Usage: `
Lists the computed size of each table in the cluster as computed by
all RegionServers. This is the raw information that the Master uses to
make decisions about space quotas. Most times, using ` + "`list_quota_snapshots`" + `
provides a higher-level of insight than this command.

For example:

    hbase> list_quota_table_sizes`})

	// snapshots
	cmd(&Spec{Name: "snapshot", Group: "snapshots", MinArgs: 2, Args: []ArgSpec{table, {"snapshot", KString}, options},
		Keys: map[string]Kind{"SKIP_FLUSH": KBool, "TTL": KInt, "MAX_FILESIZE": KInt}, Usage: `
Take a snapshot of specified table. Examples:

  hbase> snapshot 'sourceTable', 'snapshotName'
  hbase> snapshot 'namespace:sourceTable', 'snapshotName', {SKIP_FLUSH => true}
  hbase> snapshot 'sourceTable', 'snapshotName', {TTL => 86400}`})
	cmd(&Spec{Name: "clone_snapshot", Group: "snapshots", MinArgs: 2, Args: []ArgSpec{{"snapshot", KString}, table, options},
		Keys: map[string]Kind{"RESTORE_ACL": KBool, "CLONE_SFT": KString}, Usage: `
Create a new table by cloning the snapshot content.
There're no copies of data involved.
And writing on the newly created table will not influence the snapshot data.

Examples:
  hbase> clone_snapshot 'snapshotName', 'tableName'
  hbase> clone_snapshot 'snapshotName', 'namespace:tableName'
  hbase> clone_snapshot 'snapshotName', 'tableName', {RESTORE_ACL=>true}`})
	cmd(&Spec{Name: "restore_snapshot", Group: "snapshots", MinArgs: 1, Args: []ArgSpec{{"snapshot", KString}, options},
		Keys: map[string]Kind{"RESTORE_ACL": KBool}, Usage: `
Restore a specified snapshot.
The restore will replace the content of the original table,
bringing back the content to the snapshot state.
The table must be disabled.

Examples:
  hbase> restore_snapshot 'snapshotName'
  hbase> restore_snapshot 'snapshotName', {RESTORE_ACL=>true}`})
	cmd(&Spec{Name: "list_snapshots", Group: "snapshots", Args: []ArgSpec{{"regex", KString}}, Usage: `
List all snapshots taken (by printing the names and relative information).
Optional regular expression parameter could be used to filter the output
by snapshot name.

Examples:
  hbase> list_snapshots
  hbase> list_snapshots 'abc.*'`})
	cmd(&Spec{Name: "delete_snapshot", Group: "snapshots", MinArgs: 1, Args: []ArgSpec{{"snapshot", KString}}, Usage: `
Delete a specified snapshot. Examples:

  hbase> delete_snapshot 'snapshotName'`})
}

// Check validates cmd against the command table: the command exists, has
// the right number of arguments of the right types, and its hashes use
// known keys with values of the right types (a FILTER string must parse).
// Errors are *CheckError.
func Check(cmd Command) error {
	s := specs[cmd.Name]
	if s == nil {
		return &CheckError{Col: cmd.Pos, Msg: fmt.Sprintf("unknown command '%s'; type help", cmd.Name)}
	}
	n := len(cmd.Args)
	if n < s.MinArgs {
		var names []string
		for _, a := range s.Args[:min(s.MinArgs, len(s.Args))] {
			names = append(names, a.Name)
		}
		if s.MinArgs > len(s.Args) {
			names = append(names, s.Rest.Name)
		}
		return &CheckError{Col: cmd.Pos, Msg: fmt.Sprintf("%s needs at least %d argument%s (%s), got %d; type help '%s'",
			cmd.Name, s.MinArgs, plural(s.MinArgs), strings.Join(names, ", "), n, cmd.Name)}
	}
	if s.MaxArgs >= 0 && n > s.MaxArgs {
		return &CheckError{Col: cmd.Args[s.MaxArgs].Pos(), Msg: fmt.Sprintf("%s takes at most %d argument%s, got %d; type help '%s'",
			cmd.Name, s.MaxArgs, plural(s.MaxArgs), n, cmd.Name)}
	}
	for i, a := range cmd.Args {
		as := s.Rest
		if i < len(s.Args) {
			as = &s.Args[i]
		}
		k := KindOf(a)
		if as.Kinds&k == 0 {
			return &CheckError{Col: a.Pos(), Msg: fmt.Sprintf("argument %d (%s) of %s must be %s, got %s %s",
				i+1, as.Name, cmd.Name, article(as.Kinds), a.TypeName(), a.Inspect())}
		}
		if h, ok := a.(*Hash); ok {
			if err := s.checkHash(h); err != nil {
				return err
			}
		}
	}
	return nil
}

// article prefixes the kinds with "a" or "an".
func article(k Kind) string {
	s := k.String()
	if strings.IndexByte("aeiou", s[0]) >= 0 {
		return "an " + s
	}
	return "a " + s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func (s *Spec) checkHash(h *Hash) error {
	seen := map[string]bool{}
	for _, p := range h.Pairs {
		name, ok := KeyName(p.Key)
		if !ok {
			return &CheckError{Col: p.Key.Pos(), Msg: fmt.Sprintf("hash key must be a string or constant, got %s %s", p.Key.TypeName(), p.Key.Inspect())}
		}
		if seen[name] {
			return &CheckError{Col: p.Key.Pos(), Msg: fmt.Sprintf("duplicate key %s", name)}
		}
		seen[name] = true
		if s.AnyKeys {
			continue
		}
		want, ok := s.Keys[name]
		if !ok {
			return &CheckError{Col: p.Key.Pos(), Msg: fmt.Sprintf("unknown key %s for %s; valid keys: %s", name, s.Name, strings.Join(s.KeyNames(), ", "))}
		}
		if want != 0 && want&KindOf(p.Val) == 0 {
			return &CheckError{Col: p.Val.Pos(), Msg: fmt.Sprintf("%s must be %s, got %s %s", name, article(want), p.Val.TypeName(), p.Val.Inspect())}
		}
		if enum := s.Enums[name]; enum != nil {
			if v, ok := KeyName(p.Val); ok && !slices.Contains(enum, v) {
				return &CheckError{Col: p.Val.Pos(), Msg: fmt.Sprintf("%s must be one of %s, got %s", name, strings.Join(enum, ", "), p.Val.Inspect())}
			}
		}
		if name == "FILTER" {
			if str, ok := p.Val.(*String); ok {
				if _, err := ParseFilterString(string(str.Val)); err != nil {
					se := err.(*SyntaxError)
					return &CheckError{Col: p.Val.Pos(), Msg: fmt.Sprintf("FILTER: column %d of the filter string: %s", se.Col, se.Msg)}
				}
			}
		}
	}
	return nil
}

// KeyNames returns the allowed hash keys, sorted.
func (s *Spec) KeyNames() []string {
	ks := make([]string, 0, len(s.Keys))
	for k := range s.Keys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
