// Package hbaserpc speaks HBase 2.6's RPC protocol: connection preambles
// (including the "Regist" cluster-id exchange), the ConnectionHeader,
// length-framed calls with varint-delimited RequestHeader/ResponseHeader,
// exceptions by Java class name, and KeyValueCodec cellblocks. It has a
// server that dispatches calls to a Handler per service name, and a
// pipelined client.
//
// # Server goroutines and memory
//
// Per connection there is a reader goroutine (preamble, header, frames;
// it also tears the connection down), one background writer goroutine, and
// one goroutine per call being served (reused from call to call). Each outstanding call holds one of
// MaxConcurrentCallsPerConn slots from before its frame is read until its
// response has been written; when none is free the reader stops reading, so
// a connection holds at most that many request frames and responses.
// Request frames are bounded by MaxRequestSize, which is checked from the
// length prefix before any of the body is read, and a frame's buffer grows
// with the bytes that actually arrive, so a peer that announces a big frame
// and sends little costs little. Responses are written in completion order
// by the call goroutines themselves, those that complete together in one
// write syscall; the background writer only finishes what a full socket
// left over, so no call goroutine waits on a slow client (see frameWriter).
//
// # Client goroutines
//
// A ClientConn has a reader, a background writer (callers write their own
// requests the same way) and a goroutine that fails calls whose
// CallTimeout has passed.
//
// Server.Close stops accepting, cancels every call's context, closes every
// connection and waits for all of these goroutines.
//
// # Errors
//
// A Handler returns *Error to choose the exception class (NotServingRegion,
// TableNotFound, ...); DoNotRetry(err) sends DoNotRetryIOException; any other
// error is a retryable java.io.IOException. A handler panic is recovered and
// answered with DoNotRetryIOException. On the client, every server exception
// comes back as *Error.
//
// Malformed input never panics: a request whose header parses but whose body
// does not gets an exception for its call id and the connection goes on; a
// frame whose header does not parse, or one over MaxRequestSize, gets a
// connection-level exception (call id 0xFFFFFFFF, or RequestTooBigException
// for the call when its header has already arrived) and the connection is
// closed.
package hbaserpc
