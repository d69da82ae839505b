// Package storage wraps Pebble, Weir's LSM: one Engine per region server
// store, the byte-exact key encoding of cells (docs/format/keys.md), WAL
// durability levels and SST export/ingest. It knows nothing of regions,
// RPC or quotas: it deals in keys, batches and iterators.
package storage
