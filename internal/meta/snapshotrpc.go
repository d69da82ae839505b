package meta

// SnapshotService is the region servers' Weir-private RPC service through
// which the master takes, copies and deletes snapshot images (HBase runs
// the same steps as remote procedures on its region servers). Each call's
// request and response are JSON documents carried in a
// google.protobuf.BytesValue; errors come back as HBase exceptions.
const SnapshotService = "WeirSnapshotService"

// Methods of SnapshotService.
const (
	// SnapshotTakeImage: ImageRequest → nothing. Writes the store's image of
	// a table (flushing first unless told not to).
	SnapshotTakeImage = "TakeImage"
	// SnapshotCopyImage: CopyImageRequest → CopyImageResponse. Copies rows
	// of an image into a table id of the store.
	SnapshotCopyImage = "CopyImage"
	// SnapshotDeleteImage: ImageRequest → nothing. Frees an image's files.
	SnapshotDeleteImage = "DeleteImage"
	// SnapshotClearTable: ClearTableRequest → nothing. Deletes every key of
	// a table id that no longer exists in the catalog.
	SnapshotClearTable = "ClearTable"
)

// ImageRequest names a snapshot image on one store.
type ImageRequest struct {
	Snapshot string `json:"snapshot"`
	TableID  uint32 `json:"table_id,omitempty"`
	Flush    bool   `json:"flush,omitempty"`
}

// RowRange is a region's rows [Start, End); empty means unbounded.
type RowRange struct {
	Start []byte `json:"start"`
	End   []byte `json:"end"`
}

// CopyImageRequest copies the rows in Ranges of table SrcTableID, as the
// image of Snapshot holds them, into table DstTableID of the same store.
type CopyImageRequest struct {
	Snapshot   string     `json:"snapshot"`
	SrcTableID uint32     `json:"src_table_id"`
	DstTableID uint32     `json:"dst_table_id"`
	Ranges     []RowRange `json:"ranges"`
}

// CopyImageResponse says what was copied.
type CopyImageResponse struct {
	Keys  int64  `json:"keys"`
	Bytes uint64 `json:"bytes"`
	Files int    `json:"files"`
}

// ClearTableRequest names a table id whose keys a store should delete.
type ClearTableRequest struct {
	TableID uint32 `json:"table_id"`
}
