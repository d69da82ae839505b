// Package client is Weir's Go client. It speaks HBase 2.6's RPC protocol,
// so it works against Weir and against a real HBase 2.6 cluster alike.
//
// A Conn bootstraps through ClientMetaService on the bootstrap address(es)
// (GetActiveMaster, GetMetaRegionLocations), keeps one pipelined RPC
// connection per (server, service), and caches region locations per table,
// filled by reversed scans of hbase:meta as HBase's own client does. Table
// runs data operations (Get, Put, Delete, Increment, Append,
// CheckAndMutate, MutateRow, Batch, Scan); Admin runs DDL through
// MasterService and flush/compact through AdminService.
//
// # Retries
//
// Every operation is bounded by the operation timeout (WithOperationTimeout,
// on top of ctx) and each RPC by the RPC timeout. Region moves
// (NotServingRegionException, RegionMovedException, RegionOpeningException)
// and broken connections invalidate the cached location and retry after a
// pause that grows with the attempt (WithPause × attempt, capped); busy
// servers are retried likewise. RpcThrottlingException is waited out for
// the time its message gives ("... - wait 1sec, 200ms"); when that wait
// would pass the operation deadline the call fails at once with
// ErrThrottled.
//
// # Errors
//
// Exceptions from the server come back as *RemoteError, which carries the
// Java class name; errors.Is maps the common classes to the sentinel
// errors of this package (ErrTableNotFound, ErrNoSuchColumnFamily, ...).
//
// # Goroutines
//
// Each pooled RPC connection runs a reader, a background writer and a
// call-timeout goroutine (see internal/hbaserpc); Batch runs one goroutine per region server for the
// duration of the call. Close ends them all.
package client
