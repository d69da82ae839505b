package hbaseconv

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/weirdb/weir/internal/hbasepb"
	"github.com/weirdb/weir/internal/meta"
	"github.com/weirdb/weir/internal/region"
)

// Attribute keys of HBase 2.6's ColumnFamilyDescriptorBuilder and
// TableDescriptorBuilder. The Java client writes every value as the bytes
// of a Java string: numbers in decimal, booleans "true"/"false", enums by
// name ("ROW", "FALSE", "ASYNC_WAL"). A family built by the Java client
// carries all of VERSIONS, MIN_VERSIONS, TTL, KEEP_DELETED_CELLS,
// BLOCKSIZE, BLOOMFILTER, COMPRESSION, IN_MEMORY, DATA_BLOCK_ENCODING,
// BLOCKCACHE and REPLICATION_SCOPE, defaults included.
const (
	AttrVersions          = "VERSIONS"
	AttrMinVersions       = "MIN_VERSIONS"
	AttrTTL               = "TTL"
	AttrKeepDeletedCells  = "KEEP_DELETED_CELLS"
	AttrBlockSize         = "BLOCKSIZE"
	AttrBloomFilter       = "BLOOMFILTER"
	AttrCompression       = "COMPRESSION"
	AttrInMemory          = "IN_MEMORY"
	AttrDataBlockEncoding = "DATA_BLOCK_ENCODING"
	AttrBlockCache        = "BLOCKCACHE"

	AttrDurability  = "DURABILITY"
	AttrMaxFileSize = "MAX_FILESIZE"
	AttrReadOnly    = "READONLY"

	// TTLForeverName is how HBase spells an infinite TTL in text.
	TTLForeverName = "FOREVER"

	// ConfigurationPrefix marks, in FamilyDescriptor.Attributes, the
	// entries that travel in ColumnFamilySchema.configuration (HBase's
	// CONFIGURATION => {...}) rather than in its attributes.
	ConfigurationPrefix = "CONFIGURATION:"
)

var familyKnownAttrs = []string{
	AttrVersions, AttrMinVersions, AttrTTL, AttrKeepDeletedCells, AttrBlockSize,
	AttrBloomFilter, AttrCompression, AttrInMemory, AttrDataBlockEncoding, AttrBlockCache,
}

// TableNameFromPB checks and converts a table name; an empty namespace is
// HBase's default namespace.
func TableNameFromPB(pb *hbasepb.TableName) (meta.TableName, error) {
	if pb == nil {
		return meta.TableName{}, invalidf("missing table name")
	}
	ns := string(pb.GetNamespace())
	if ns == "" {
		ns = meta.DefaultNamespace
	}
	tn, err := meta.ParseTableName(ns + ":" + string(pb.GetQualifier()))
	if err != nil || tn.Namespace != ns {
		return meta.TableName{}, fmt.Errorf("%w: table name %q:%q: %w", ErrInvalid, pb.GetNamespace(), pb.GetQualifier(), err)
	}
	return tn, nil
}

// TableNameToPB converts a table name, spelling out the default
// namespace as HBase's client does.
func TableNameToPB(tn meta.TableName) *hbasepb.TableName {
	ns := tn.Namespace
	if ns == "" {
		ns = meta.DefaultNamespace
	}
	return &hbasepb.TableName{Namespace: []byte(ns), Qualifier: []byte(tn.Qualifier)}
}

// TableDescriptorFromPB converts a TableSchema. Family attributes Weir
// does not model are kept in FamilyDescriptor.Attributes (configuration
// entries under ConfigurationPrefix) so that they round-trip. Table
// attributes other than DURABILITY, MAX_FILESIZE and READONLY, and table
// configuration, have no place in region.TableDescriptor and are dropped.
// Missing family attributes take HBase's defaults.
func TableDescriptorFromPB(pb *hbasepb.TableSchema) (meta.TableName, region.TableDescriptor, error) {
	if pb == nil {
		return meta.TableName{}, region.TableDescriptor{}, invalidf("missing table schema")
	}
	tn, err := TableNameFromPB(pb.GetTableName())
	if err != nil {
		return meta.TableName{}, region.TableDescriptor{}, err
	}
	d := region.TableDescriptor{Name: tn.String()}
	bad := func(format string, args ...any) error {
		return invalidf("table %s: %s", tn, fmt.Sprintf(format, args...))
	}
	for _, a := range pb.GetAttributes() {
		k, v := string(a.GetFirst()), string(a.GetSecond())
		switch k {
		case AttrDurability:
			if d.Durability, err = durabilityByName(v); err != nil {
				return tn, d, bad("%v", err)
			}
		case AttrMaxFileSize:
			if d.MaxFileSize, err = strconv.ParseInt(v, 10, 64); err != nil || d.MaxFileSize < 0 {
				return tn, d, bad("%s %q is not a non-negative long", k, v)
			}
		case AttrReadOnly:
			d.ReadOnly = javaParseBool(v)
		}
	}
	for i, cf := range pb.GetColumnFamilies() {
		f, err := FamilyFromPB(cf)
		if err != nil {
			return tn, d, fmt.Errorf("table %s, family %d: %w", tn, i, err)
		}
		d.Families = append(d.Families, f)
	}
	return tn, d, nil
}

func durabilityByName(v string) (region.Durability, error) {
	for d := region.UseDefault; d <= region.FsyncWAL; d++ {
		if strings.EqualFold(v, d.String()) {
			return d, nil
		}
	}
	return 0, fmt.Errorf("unknown %s %q", AttrDurability, v)
}

// javaParseBool is Boolean.parseBoolean: "true" in any case, else false.
func javaParseBool(v string) bool { return strings.EqualFold(v, "true") }

func parseInt32(k, v string) (int, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%s %q is not an int", k, v)
	}
	return int(n), nil
}

// FamilyFromPB converts one ColumnFamilySchema (see TableDescriptorFromPB).
func FamilyFromPB(cf *hbasepb.ColumnFamilySchema) (region.FamilyDescriptor, error) {
	if cf == nil {
		return region.FamilyDescriptor{}, invalidf("missing column family")
	}
	if len(cf.GetName()) == 0 {
		return region.FamilyDescriptor{}, invalidf("column family has an empty name")
	}
	f := region.FamilyDescriptor{Name: cf.GetName(), BlockCache: true}
	bad := func(err error) error { return fmt.Errorf("%w: family %q: %w", ErrInvalid, f.Name, err) }
	for _, a := range cf.GetAttributes() {
		k, v := string(a.GetFirst()), string(a.GetSecond())
		var err error
		switch k {
		case AttrVersions:
			f.MaxVersions, err = parseInt32(k, v)
		case AttrMinVersions:
			f.MinVersions, err = parseInt32(k, v)
		case AttrTTL:
			if strings.EqualFold(strings.TrimSpace(v), TTLForeverName) {
				f.TTL = region.TTLForever
				break
			}
			var ttl int
			ttl, err = parseInt32(k, v)
			f.TTL = int32(ttl)
		case AttrKeepDeletedCells:
			switch strings.ToUpper(v) {
			case "FALSE":
				f.KeepDeletedCells = region.KeepDeletedFalse
			case "TRUE":
				f.KeepDeletedCells = region.KeepDeletedTrue
			case "TTL":
				f.KeepDeletedCells = region.KeepDeletedTTL
			default:
				err = fmt.Errorf("unknown %s %q", k, v)
			}
		case AttrBlockSize:
			f.BlockSize, err = parseInt32(k, v)
		case AttrBloomFilter:
			f.BloomFilter = strings.ToUpper(v)
		case AttrCompression:
			f.Compression = strings.ToUpper(v)
		case AttrInMemory:
			f.InMemory = javaParseBool(v)
		case AttrDataBlockEncoding:
			f.DataBlockEncoding = strings.ToUpper(v)
		case AttrBlockCache:
			f.BlockCache = javaParseBool(v)
		default:
			if f.Attributes == nil {
				f.Attributes = map[string]string{}
			}
			f.Attributes[k] = v
		}
		if err != nil {
			return region.FamilyDescriptor{}, bad(err)
		}
	}
	for _, c := range cf.GetConfiguration() {
		if f.Attributes == nil {
			f.Attributes = map[string]string{}
		}
		f.Attributes[ConfigurationPrefix+c.GetName()] = c.GetValue()
	}
	f.EnsureDefaults()
	return f, nil
}

// TableDescriptorToPB converts a table descriptor as HBase's Java client
// would send it (every family attribute written out, defaults included).
func TableDescriptorToPB(tn meta.TableName, d region.TableDescriptor) *hbasepb.TableSchema {
	pb := &hbasepb.TableSchema{TableName: TableNameToPB(tn)}
	attr := func(k, v string) *hbasepb.BytesBytesPair {
		return &hbasepb.BytesBytesPair{First: []byte(k), Second: []byte(v)}
	}
	if d.Durability != region.UseDefault {
		pb.Attributes = append(pb.Attributes, attr(AttrDurability, d.Durability.String()))
	}
	if d.MaxFileSize > 0 {
		pb.Attributes = append(pb.Attributes, attr(AttrMaxFileSize, strconv.FormatInt(d.MaxFileSize, 10)))
	}
	if d.ReadOnly {
		pb.Attributes = append(pb.Attributes, attr(AttrReadOnly, "true"))
	}
	for i := range d.Families {
		pb.ColumnFamilies = append(pb.ColumnFamilies, FamilyToPB(d.Families[i]))
	}
	return pb
}

// FamilyToPB converts one family (see TableDescriptorToPB).
func FamilyToPB(f region.FamilyDescriptor) *hbasepb.ColumnFamilySchema {
	f.EnsureDefaults()
	cf := &hbasepb.ColumnFamilySchema{Name: f.Name}
	vals := map[string]string{
		AttrVersions:          strconv.Itoa(f.MaxVersions),
		AttrMinVersions:       strconv.Itoa(f.MinVersions),
		AttrTTL:               strconv.FormatInt(int64(f.TTL), 10),
		AttrKeepDeletedCells:  f.KeepDeletedCells.String(),
		AttrBlockSize:         strconv.Itoa(f.BlockSize),
		AttrBloomFilter:       f.BloomFilter,
		AttrCompression:       f.Compression,
		AttrInMemory:          strconv.FormatBool(f.InMemory),
		AttrDataBlockEncoding: f.DataBlockEncoding,
		AttrBlockCache:        strconv.FormatBool(f.BlockCache),
	}
	for _, k := range familyKnownAttrs {
		cf.Attributes = append(cf.Attributes, &hbasepb.BytesBytesPair{First: []byte(k), Second: []byte(vals[k])})
	}
	for _, k := range slices.Sorted(maps.Keys(f.Attributes)) {
		v := f.Attributes[k]
		if name, ok := strings.CutPrefix(k, ConfigurationPrefix); ok {
			cf.Configuration = append(cf.Configuration, &hbasepb.NameStringPair{Name: proto.String(name), Value: proto.String(v)})
			continue
		}
		if _, known := vals[k]; known {
			continue // the typed field wins
		}
		cf.Attributes = append(cf.Attributes, &hbasepb.BytesBytesPair{First: []byte(k), Second: []byte(v)})
	}
	return cf
}

// RegionInfoFromPB converts a RegionInfo. TableID, assignment and OpenSeq
// are not on the wire and stay zero. Replicas other than 0 are rejected.
func RegionInfoFromPB(pb *hbasepb.RegionInfo) (meta.Region, error) {
	if pb == nil {
		return meta.Region{}, invalidf("missing region info")
	}
	tn, err := TableNameFromPB(pb.GetTableName())
	if err != nil {
		return meta.Region{}, fmt.Errorf("region info: %w", err)
	}
	if pb.GetRegionId() > math.MaxInt64 {
		return meta.Region{}, invalidf("region info of %s: region_id %d overflows a Java long", tn, pb.GetRegionId())
	}
	if pb.GetReplicaId() != 0 {
		return meta.Region{}, invalidf("region info of %s: replica %d (region replicas are not supported)", tn, pb.GetReplicaId())
	}
	return meta.Region{
		Table: tn, StartKey: pb.GetStartKey(), EndKey: pb.GetEndKey(),
		RegionID: int64(pb.GetRegionId()), Offline: pb.GetOffline(), Split: pb.GetSplit(),
	}, nil
}

// RegionInfoToPB converts a region's catalog record (replica 0).
func RegionInfoToPB(r meta.Region) *hbasepb.RegionInfo {
	return &hbasepb.RegionInfo{
		RegionId: proto.Uint64(uint64(r.RegionID)), TableName: TableNameToPB(r.Table),
		StartKey: nonNil(r.StartKey), EndKey: nonNil(r.EndKey),
		Offline: proto.Bool(r.Offline), Split: proto.Bool(r.Split), ReplicaId: proto.Int32(0),
	}
}

// ServerNameFromPB converts a ServerName into the fields of ServerInfo it
// carries (host, port, start code).
func ServerNameFromPB(pb *hbasepb.ServerName) (meta.ServerInfo, error) {
	if pb == nil {
		return meta.ServerInfo{}, invalidf("missing server name")
	}
	if pb.GetHostName() == "" {
		return meta.ServerInfo{}, invalidf("server name has an empty host")
	}
	if pb.GetPort() > math.MaxUint16 {
		return meta.ServerInfo{}, invalidf("server %s: port %d out of range", pb.GetHostName(), pb.GetPort())
	}
	if pb.GetStartCode() > math.MaxInt64 {
		return meta.ServerInfo{}, invalidf("server %s: start code %d overflows a Java long", pb.GetHostName(), pb.GetStartCode())
	}
	return meta.ServerInfo{Host: pb.GetHostName(), Port: int(pb.GetPort()), StartCode: int64(pb.GetStartCode())}, nil
}

// ServerNameToPB converts a server's identity.
func ServerNameToPB(s meta.ServerInfo) *hbasepb.ServerName {
	return &hbasepb.ServerName{HostName: proto.String(s.Host), Port: proto.Uint32(uint32(s.Port)), StartCode: proto.Uint64(uint64(s.StartCode))}
}

// TableStateFromPB converts a TableState (same numbering).
func TableStateFromPB(pb *hbasepb.TableState) (meta.TableState, error) {
	if pb == nil || pb.State == nil {
		return 0, invalidf("missing table state")
	}
	s := meta.TableState(pb.GetState())
	if s < meta.TableEnabled || s > meta.TableEnabling {
		return 0, invalidf("unknown table state %d", int32(pb.GetState()))
	}
	return s, nil
}

// TableStateToPB converts a table state.
func TableStateToPB(s meta.TableState) (*hbasepb.TableState, error) {
	if s < meta.TableEnabled || s > meta.TableEnabling {
		return nil, invalidf("unknown table state %d", int(s))
	}
	return &hbasepb.TableState{State: hbasepb.TableState_State(s).Enum()}, nil
}

// NamespaceFromPB converts and checks a NamespaceDescriptor.
func NamespaceFromPB(pb *hbasepb.NamespaceDescriptor) (meta.Namespace, error) {
	if pb == nil {
		return meta.Namespace{}, invalidf("missing namespace descriptor")
	}
	ns := meta.Namespace{Name: string(pb.GetName())}
	if err := meta.ValidateNamespace(ns.Name); err != nil {
		return meta.Namespace{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	for _, c := range pb.GetConfiguration() {
		if ns.Config == nil {
			ns.Config = map[string]string{}
		}
		ns.Config[c.GetName()] = c.GetValue()
	}
	return ns, nil
}

// NamespaceToPB converts a namespace, its configuration sorted by key.
func NamespaceToPB(ns meta.Namespace) *hbasepb.NamespaceDescriptor {
	pb := &hbasepb.NamespaceDescriptor{Name: []byte(ns.Name)}
	for _, k := range slices.Sorted(maps.Keys(ns.Config)) {
		pb.Configuration = append(pb.Configuration, &hbasepb.NameStringPair{Name: proto.String(k), Value: proto.String(ns.Config[k])})
	}
	return pb
}
