#!/bin/sh
# Regenerates the Go code for Weir's HBase wire-contract .proto files.
# Needs protoc (Debian: apt-get install protobuf-compiler); protoc-gen-go is
# the version pinned by the `tool` line in go.mod. Run from anywhere:
#   internal/hbasepb/gen.sh      (or: make proto)
#
# The files live under proto/weir/hbasepb/ so that they register in the
# protobuf registry as "weir/hbasepb/<file>.proto": a bare "rpc.proto"
# collides with etcd's own rpc.proto in the same binary.
set -eu
cd "$(dirname "$0")/../.."
plugin=$(go tool -n protoc-gen-go)
rm -f internal/hbasepb/*.pb.go
protoc -I internal/hbasepb/proto \
  --plugin=protoc-gen-go="$plugin" \
  --go_out=internal/hbasepb --go_opt=module=github.com/weirdb/weir/internal/hbasepb \
  internal/hbasepb/proto/weir/hbasepb/*.proto
