package meta

// The region servers' HTTP endpoints (on their info ports) through which
// the master drives region moves and splits; see
// internal/regionserver/move.go for the protocol.
const (
	MovePathIn      = "/weir/move/in"
	MovePathExport  = "/weir/move/export"
	MovePathAbort   = "/weir/move/abort"
	MovePathRelease = "/weir/move/release"
	MovePathWait    = "/weir/move/wait"
	MovePathMidKey  = "/weir/region/midkey"
)

// MoveIn is the body of POST /weir/move/in.
type MoveIn struct {
	Region Region `json:"region"`
	// Source is the source server's info address ("host:port").
	Source string `json:"source"`
}

// MoveInResult is the answer of POST /weir/move/in.
type MoveInResult struct {
	BulkKeys  int64 `json:"bulk_keys"`
	BulkBytes int64 `json:"bulk_bytes"`
	// FinalKeys are the keys of the rows written during the bulk copy.
	FinalKeys int64 `json:"final_keys"`
	// FencedMs is how long the final phase took at the target: from asking
	// for the final export (the source fences) to having ingested it.
	FencedMs float64 `json:"fenced_ms"`
	// FinalFetchMs and FinalIngestMs split FencedMs: getting the final
	// export from the source, and ingesting it.
	FinalFetchMs  float64 `json:"final_fetch_ms"`
	FinalIngestMs float64 `json:"final_ingest_ms"`
	// FinalExportMs is the source's part of FinalFetchMs: fencing (waiting
	// for the calls in flight) and writing the final export.
	FinalExportMs float64 `json:"final_export_ms"`
}
