// Package cell defines HBase's unit of data: a cell addressed by row,
// family, qualifier, timestamp and type, with its ordering.
package cell
