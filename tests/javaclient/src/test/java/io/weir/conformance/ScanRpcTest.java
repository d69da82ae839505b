package io.weir.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.filter.PageFilter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * How many scan RPCs a short scan costs the real HBase client: a scan that ends
 * inside one region (by its limit, or by a PageFilter as YCSB's hbase2 binding
 * scans) must take one RPC. The server returns the first rows on the open call
 * and closes the scanner itself when it is done (more_results false), so the
 * client's close sends nothing. ScanMetrics counts the client's RPCs: open,
 * next and close calls alike.
 */
class ScanRpcTest extends WeirTestBase {
  static final int ROWS = 300;

  static String row(int i) {
    return String.format("user%04d", i);
  }

  private Table filledTable(TestInfo info) throws Exception {
    Table t = createTable(uniqueTable(info));
    List<Put> puts = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      Put p = new Put(b(row(i)));
      for (int f = 0; f < 10; f++) {
        p.addColumn(CF, b("field" + f), b("value-" + i + "-" + f));
      }
      puts.add(p);
    }
    t.put(puts);
    return t;
  }

  /** Reads up to n rows as YCSB does (stops after n, then closes); returns the rows and RPCs. */
  private static long[] scanN(Table t, Scan scan, int n) throws Exception {
    scan.setScanMetricsEnabled(true);
    int rows = 0;
    ScanMetrics m;
    try (ResultScanner sc = t.getScanner(scan)) {
      for (Result r = sc.next(); r != null; r = sc.next()) {
        assertEquals(row(100 + rows), s(r.getRow()));
        assertEquals(10, r.size(), "cells of " + s(r.getRow()));
        if (++rows >= n) {
          break;
        }
      }
      sc.close();
      m = sc.getScanMetrics();
    }
    return new long[] {rows, m.countOfRPCcalls.get()};
  }

  @Test
  void limitedScanTakesOneRpc(TestInfo info) throws Exception {
    try (Table t = filledTable(info)) {
      for (int n : new int[] {1, 40, 100}) {
        long[] got = scanN(t, new Scan().withStartRow(b(row(100))).setLimit(n).setCaching(n), n);
        assertEquals(n, got[0], "rows of a scan limited to " + n);
        assertEquals(1, got[1], "RPCs of a scan limited to " + n);
      }
    }
  }

  @Test
  void pageFilterScanTakesOneRpc(TestInfo info) throws Exception {
    try (Table t = filledTable(info)) {
      for (int n : new int[] {1, 40, 100}) {
        // YCSB's hbase2 binding: caching = rows wanted, a PageFilter, no limit.
        Scan scan = new Scan().withStartRow(b(row(100))).setCaching(n).setFilter(new PageFilter(n));
        long[] got = scanN(t, scan, n);
        assertEquals(n, got[0], "rows of a scan paged to " + n);
        assertEquals(1, got[1], "RPCs of a scan paged to " + n);
      }
    }
  }

  @Test
  void pageFilterEndsTheScanAtABatchBoundary(TestInfo info) throws Exception {
    try (Table t = filledTable(info)) {
      // Read everything the scanner gives: the page ends the scan (as HBase's
      // empty more_results=false answer to the next call would).
      Scan scan = new Scan().withStartRow(b(row(100))).setCaching(25).setFilter(new PageFilter(25));
      long[] got = scanN(t, scan, Integer.MAX_VALUE);
      assertEquals(25, got[0]);
      assertEquals(1, got[1], "RPCs of a 25-row page read to its end");
    }
  }
}
