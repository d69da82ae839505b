//go:build invariants

// Package invariants switches on expensive self-checks. `make test` builds
// with -tags invariants; production builds leave them out.
package invariants

// Enabled reports whether expensive assertions run.
const Enabled = true
