// Package filterpb converts between HBase's serialized filters and
// comparators (a Java class name and that class's protobuf) and Weir's
// filter package, in both directions: the server decodes what clients
// send, Weir's Go client encodes. It depends on filter and hbasepb only,
// so the public client can use it without the server's packages.
package filterpb
