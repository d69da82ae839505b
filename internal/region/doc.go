// Package region implements one HBase region on top of a storage.Engine:
// cells, versions, deletes, TTL, row atomicity, read-modify-write, filters,
// flush, compaction, split and SST export/ingest.
package region
