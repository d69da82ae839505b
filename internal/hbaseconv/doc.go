// Package hbaseconv converts between HBase 2.6's protobuf wire messages
// (internal/hbasepb) and Weir's internal types (filters, cells, reads,
// mutations, schema and catalog records), in both directions: the region
// server and master decode requests and encode responses, and Weir's Go
// client does the reverse.
//
// Decoders treat their input as hostile: every field is range checked,
// nested filters are bounded in depth, and errors name the message, class
// or field at fault. They never retain or modify the messages they are
// given, but the values they return may alias the messages' byte slices
// (rows, qualifiers, values) and the cellblock cells passed in.
//
// The package imports no RPC, storage, region server or master code.
package hbaseconv
