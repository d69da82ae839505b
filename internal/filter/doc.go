// Package filter implements HBase's server-side filters and comparators as
// plain data (a tree of structs) that the region evaluates while it reads.
package filter
