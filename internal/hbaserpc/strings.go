package hbaserpc

// ToStringBinary renders bytes as HBase's Bytes.toStringBinary does:
// printable ASCII as is, everything else as \xHH. Region keys in logs and
// the web UI use it.
func ToStringBinary(b []byte) string { return toStringBinary(b) }
