// Package arch holds no code: its test enforces that Weir's package
// dependencies point one way (see docs/architecture.md, "Layers").
package arch
