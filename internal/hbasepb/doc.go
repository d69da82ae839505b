// Package hbasepb holds the protobuf messages of the HBase 2.6 RPC protocol
// (proto2, package hbase.pb) that Weir speaks so that the unmodified HBase
// Java client can talk to it.
//
// The .proto files under proto/ are Weir's own statement of that wire
// contract. They are not copies of HBase's files: they declare only the
// messages, enums and fields Weir uses, with Weir's comments. What must
// agree with HBase 2.6.4 (hbase-protocol-shaded) is the contract itself:
// package name, message and enum names, field names, numbers, types and
// labels. A field HBase has but Weir does not declare is just an unknown
// field on the wire; such omissions are noted in the .proto files.
//
// The files are grouped roughly like HBase's (rpc, hbase, cell, client,
// filter, comparator, registry, master, admin, quota, cluster_status,
// procedure, error_handling, snapshot); a few messages live in a different
// file than in HBase (RPCTInfo in rpc.proto, ScanMetrics in client.proto,
// ClusterId and HBaseVersionFileContent in cluster_status.proto), which
// changes nothing on the wire.
//
// The service blocks are there for their method names and types:
// RequestHeader.method_name is the rpc name, and the descriptors
// (for example File_client_proto.Services()) let a server map a method name
// to its request and response messages. protoc-gen-go generates no code
// for them; HBase RPC is not gRPC.
//
// The generated *.pb.go files are committed, so building Weir needs no
// protoc. After editing a .proto file, regenerate with
//
//	make proto
//
// which runs internal/hbasepb/gen.sh: protoc (Debian package
// protobuf-compiler, 3.21.x) with the protoc-gen-go pinned as a tool in
// go.mod.
package hbasepb
