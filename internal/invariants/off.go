//go:build !invariants

package invariants

// Enabled reports whether expensive assertions run.
const Enabled = false
