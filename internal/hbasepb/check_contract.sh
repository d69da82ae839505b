#!/bin/sh
# Checks Weir's .proto files against HBase 2.6.4's own (field numbers, names,
# types, labels, defaults, enum values, rpc signatures). Needs mvn, unzip and
# protoc; HBase's files stay in a temporary directory.
set -eu
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mvn -q dependency:copy -Dartifact=org.apache.hbase:hbase-protocol-shaded:2.6.4-hadoop3 -DoutputDirectory="$tmp"
mkdir "$tmp/p"
unzip -q -d "$tmp/p" "$tmp"/hbase-protocol-shaded-*.jar '*.proto'
rm -f "$tmp"/p/test*.proto "$tmp"/p/TestProcedure.proto
# HBase imports the shaded copy of any.proto; protoc knows the standard one.
sed -i 's|org/apache/hbase/thirdparty/google/protobuf/any.proto|google/protobuf/any.proto|' "$tmp"/p/*.proto
protoc -I "$tmp/p" --include_imports -o "$tmp/hbase.desc" "$tmp"/p/*.proto
HBASEPB_HBASE_DESCRIPTORS="$tmp/hbase.desc" go test -count=1 -run TestContractAgainstHBase -v ./internal/hbasepb/
