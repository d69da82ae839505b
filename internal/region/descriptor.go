package region

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/weirdb/weir/internal/storage"
)

// KeepDeletedCells is HBase's KEEP_DELETED_CELLS family attribute.
type KeepDeletedCells uint8

const (
	// KeepDeletedFalse: deleted cells are invisible and major compaction
	// drops them with their markers.
	KeepDeletedFalse KeepDeletedCells = iota
	// KeepDeletedTrue: deleted cells stay readable by time-range queries
	// that end before the delete, and survive compaction.
	KeepDeletedTrue
	// KeepDeletedTTL: as True, but markers and deleted cells go once past
	// the family's TTL.
	KeepDeletedTTL
)

func (k KeepDeletedCells) String() string {
	switch k {
	case KeepDeletedFalse:
		return "FALSE"
	case KeepDeletedTrue:
		return "TRUE"
	case KeepDeletedTTL:
		return "TTL"
	}
	return fmt.Sprintf("KeepDeletedCells(%d)", uint8(k))
}

// Durability is HBase's Durability enum, USE_DEFAULT included.
type Durability uint8

const (
	UseDefault Durability = iota
	SkipWAL
	AsyncWAL
	SyncWAL
	FsyncWAL
)

func (d Durability) String() string {
	return [...]string{"USE_DEFAULT", "SKIP_WAL", "ASYNC_WAL", "SYNC_WAL", "FSYNC_WAL"}[min(int(d), 4)]
}

// storage maps a resolved durability to the engine's.
func (d Durability) storage() storage.Durability {
	switch d {
	case SkipWAL:
		return storage.SkipWAL
	case AsyncWAL:
		return storage.AsyncWAL
	case FsyncWAL:
		return storage.FsyncWAL
	}
	return storage.SyncWAL
}

// TTLForever is HBase's HConstants.FOREVER: no time to live.
const TTLForever int32 = math.MaxInt32

// FamilyDescriptor is a column family's schema, HBase's
// ColumnFamilyDescriptor. Zero values mean HBase's defaults (see
// EnsureDefaults).
type FamilyDescriptor struct {
	Name []byte
	// MaxVersions (VERSIONS): versions kept and returned. Default 1.
	MaxVersions int
	// MinVersions (MIN_VERSIONS): versions kept even past TTL. Default 0.
	MinVersions int
	// TTL in seconds; TTLForever (default) disables expiry.
	TTL int32
	// KeepDeletedCells (KEEP_DELETED_CELLS). Default FALSE.
	KeepDeletedCells KeepDeletedCells
	// Accepted and stored for HBase compatibility; Pebble's store-wide
	// settings govern the physical layout (docs/architecture.md).
	BlockSize         int    // default 65536
	BloomFilter       string // NONE, ROW (default), ROWCOL, ROWPREFIX_FIXED_LENGTH
	Compression       string // NONE (default), SNAPPY, ZSTD, LZ4, GZ
	InMemory          bool
	DataBlockEncoding string // NONE (default), PREFIX, DIFF, FAST_DIFF, ROW_INDEX_V1
	BlockCache        bool
	// Attributes holds other key/values as HBase does (CONFIGURATION, METADATA).
	Attributes map[string]string
}

// EnsureDefaults fills HBase's defaults in.
func (f *FamilyDescriptor) EnsureDefaults() {
	if f.MaxVersions == 0 {
		f.MaxVersions = 1
	}
	if f.TTL == 0 {
		f.TTL = TTLForever
	}
	if f.BlockSize == 0 {
		f.BlockSize = 64 << 10
	}
	if f.BloomFilter == "" {
		f.BloomFilter = "ROW"
	}
	if f.Compression == "" {
		f.Compression = "NONE"
	}
	if f.DataBlockEncoding == "" {
		f.DataBlockEncoding = "NONE"
	}
}

func oneOf(v string, allowed ...string) bool {
	for _, a := range allowed {
		if strings.EqualFold(v, a) {
			return true
		}
	}
	return false
}

// Validate reports every impossible attribute, naming the family.
func (f *FamilyDescriptor) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: family %q: %s", ErrInvalidArgument, f.Name, fmt.Sprintf(format, args...)))
	}
	if len(f.Name) == 0 {
		bad("empty family name")
	}
	for _, c := range f.Name {
		if c == ':' || c < 0x20 || c == 0x7f {
			bad("illegal character %q in family name", c)
			break
		}
	}
	if len(f.Name) > 0 && f.Name[0] == '.' {
		bad("family name may not start with '.'")
	}
	if f.MaxVersions < 1 {
		bad("VERSIONS %d must be >= 1", f.MaxVersions)
	}
	if f.MinVersions < 0 || f.MinVersions > f.MaxVersions {
		bad("MIN_VERSIONS %d must be in [0, VERSIONS=%d]", f.MinVersions, f.MaxVersions)
	}
	if f.TTL <= 0 {
		bad("TTL %d must be positive", f.TTL)
	}
	if f.MinVersions > 0 && f.TTL == TTLForever {
		bad("MIN_VERSIONS needs a TTL")
	}
	if f.KeepDeletedCells > KeepDeletedTTL {
		bad("bad KEEP_DELETED_CELLS %d", f.KeepDeletedCells)
	}
	if f.BlockSize < 1<<10 || f.BlockSize > 16<<20 {
		bad("BLOCKSIZE %d outside [1024, 16777216]", f.BlockSize)
	}
	if !oneOf(f.BloomFilter, "NONE", "ROW", "ROWCOL", "ROWPREFIX_FIXED_LENGTH") {
		bad("unknown BLOOMFILTER %q", f.BloomFilter)
	}
	if !oneOf(f.Compression, "NONE", "SNAPPY", "ZSTD", "LZ4", "GZ", "LZO", "BZIP2") {
		bad("unknown COMPRESSION %q", f.Compression)
	}
	if !oneOf(f.DataBlockEncoding, "NONE", "PREFIX", "DIFF", "FAST_DIFF", "ROW_INDEX_V1") {
		bad("unknown DATA_BLOCK_ENCODING %q", f.DataBlockEncoding)
	}
	return errors.Join(errs...)
}

// ttlMillis returns the TTL in milliseconds, or 0 for none.
func (f *FamilyDescriptor) ttlMillis() int64 {
	if f.TTL == TTLForever || f.TTL <= 0 {
		return 0
	}
	return int64(f.TTL) * 1000
}

// TableDescriptor is the part of HBase's TableDescriptor a region needs.
type TableDescriptor struct {
	// Name is "namespace:qualifier" or a bare qualifier (namespace default).
	Name     string
	Families []FamilyDescriptor
	// Durability is the table default for mutations with UseDefault.
	Durability Durability
	// MaxFileSize (MAX_FILESIZE) is the split threshold in bytes; 0 means
	// the server default.
	MaxFileSize int64
	// ReadOnly rejects mutations.
	ReadOnly bool
}

// EnsureDefaults fills each family's defaults in.
func (t *TableDescriptor) EnsureDefaults() {
	for i := range t.Families {
		t.Families[i].EnsureDefaults()
	}
}

// Validate reports every problem of the table and its families.
func (t *TableDescriptor) Validate() error {
	var errs []error
	if t.Name == "" {
		errs = append(errs, fmt.Errorf("%w: empty table name", ErrInvalidArgument))
	}
	if len(t.Families) == 0 {
		errs = append(errs, fmt.Errorf("%w: table %q has no column family", ErrInvalidArgument, t.Name))
	}
	seen := map[string]bool{}
	for i := range t.Families {
		f := &t.Families[i]
		if seen[string(f.Name)] {
			errs = append(errs, fmt.Errorf("%w: table %q: family %q given twice", ErrInvalidArgument, t.Name, f.Name))
		}
		seen[string(f.Name)] = true
		errs = append(errs, f.Validate())
	}
	if t.Durability > FsyncWAL {
		errs = append(errs, fmt.Errorf("%w: table %q: bad durability %d", ErrInvalidArgument, t.Name, t.Durability))
	}
	if t.MaxFileSize < 0 {
		errs = append(errs, fmt.Errorf("%w: table %q: MAX_FILESIZE %d is negative", ErrInvalidArgument, t.Name, t.MaxFileSize))
	}
	return errors.Join(errs...)
}

// Family returns the descriptor of the named family, or nil.
func (t *TableDescriptor) Family(name []byte) *FamilyDescriptor {
	for i := range t.Families {
		if string(t.Families[i].Name) == string(name) {
			return &t.Families[i]
		}
	}
	return nil
}
