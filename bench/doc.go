// Package bench is `weir bench load|run`: a YCSB-compatible driver of
// YCSB's CoreWorkload against Weir (or any HBase 2.6 cluster) through the
// public client.
//
// It reads YCSB's workload property files (Props, ParseProps) and -p
// overrides, rejecting unknown properties and operation proportions that
// do not sum to 1 before anything connects. Keys are "user" followed by
// the FNV-64 hash of the insert sequence number (or the number itself
// with insertorder=ordered), zero-padded to zeropadding digits, as YCSB
// builds them, so a table loaded by YCSB can be run by weir and the other
// way round.
//
// Every CoreWorkload generator is there: request distributions uniform,
// zipfian (scrambled), latest, hotspot, sequential and exponential; field
// lengths constant, uniform, zipfian or from a histogram file; scan
// lengths uniform or zipfian. dataintegrity=true writes each value as
// YCSB derives it from key and field and checks every read's values
// (reported as the VERIFY operation, UNEXPECTED_STATE when one differs).
// measurement.interval=intended times each operation from when it was due
// under a target rate, so that a server that falls behind is charged for
// the wait (coordinated omission); both reports those as Intended-OP
// sections next to the usual ones. Failed inserts are retried as YCSB
// does, each attempt an INSERT of its own.
//
// The database side follows YCSB's hbase2 binding: table (default
// usertable), columnfamily (default "family"), clientbuffering with
// writebuffersize, durability, hbase.usepagefilter. A scan is sent as
// YCSB 0.17's binding sends it: caching of the scan's length, a PageFilter
// of that many rows (unless hbase.usepagefilter=false) and no row limit;
// the client stops after that many rows and closes the scanner if the
// server has not. load creates a missing table, pre-split
// into -p splits=N regions (default 10) at quantiles of the keys it is
// about to insert; run refuses a missing table. The null binding
// (db=null) does nothing, to measure the driver itself.
//
// Each worker thread owns its random source, key and value buffers and
// HdrHistograms (merged for status lines, which report the interval since
// the line before, and for the report), so the
// per-operation path takes no shared lock and allocates nothing with the
// null binding. Output is YCSB's "[OP], Metric, value" text (WriteText)
// or JSON (WriteJSON).
package bench
