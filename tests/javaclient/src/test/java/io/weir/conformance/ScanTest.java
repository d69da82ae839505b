package io.weir.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.ColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.filter.PageFilter;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.filter.RegexStringComparator;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Scans across regions, ranges, reversed, caching/batch, limits and server-side filters. */
class ScanTest extends WeirTestBase {
  /** 20 rows r00..r19, four regions of five rows each. */
  static final byte[][] SPLITS = keys("r05", "r10", "r15");
  static final int ROWS = 20;

  static String row(int i) {
    return String.format("r%02d", i);
  }

  static List<String> rows(int fromInclusive, int toExclusive) {
    return IntStream.range(fromInclusive, toExclusive).mapToObj(ScanTest::row).collect(Collectors.toList());
  }

  /**
   * Each row i has: status = "active" for even i, "inactive" for odd i; val = "v-i";
   * c1a, c1b, c2 = "x".
   */
  private Table filledTable(TestInfo info, byte[]... splits) throws Exception {
    Table t = createTable(uniqueTable(info), splits);
    List<Put> puts = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      puts.add(new Put(b(row(i)))
          .addColumn(CF, b("status"), b(i % 2 == 0 ? "active" : "inactive"))
          .addColumn(CF, b("val"), b("v-" + i))
          .addColumn(CF, b("c1a"), b("x"))
          .addColumn(CF, b("c1b"), b("x"))
          .addColumn(CF, b("c2"), b("x")));
    }
    t.put(puts);
    return t;
  }

  @Test
  void forwardScanCrossesAllRegionsInOrder(TestInfo info) throws Exception {
    try (Table t = filledTable(info, SPLITS)) {
      List<Result> rs = scanAll(t, new Scan());
      assertEquals(rows(0, ROWS), rowKeys(rs));
      for (Result r : rs) {
        assertEquals(5, r.size(), "all columns of " + s(r.getRow()));
      }
    }
  }

  @Test
  void reversedScanReturnsRowsDescending(TestInfo info) throws Exception {
    try (Table t = filledTable(info, SPLITS)) {
      List<String> expected = rows(0, ROWS);
      java.util.Collections.reverse(expected);
      assertEquals(expected, rowKeys(scanAll(t, new Scan().setReversed(true))));

      // reversed with a range: start r12 (inclusive) down to r03 (exclusive)
      List<Result> rs = scanAll(t, new Scan().setReversed(true)
          .withStartRow(b("r12")).withStopRow(b("r03")));
      List<String> exp = rows(4, 13);
      java.util.Collections.reverse(exp);
      assertEquals(exp, rowKeys(rs));
    }
  }

  @Test
  void startAndStopRowDefaultInclusiveExclusive(TestInfo info) throws Exception {
    try (Table t = filledTable(info, SPLITS)) {
      assertEquals(rows(3, 12),
          rowKeys(scanAll(t, new Scan().withStartRow(b("r03")).withStopRow(b("r12")))));
      // start only, stop only
      assertEquals(rows(17, ROWS), rowKeys(scanAll(t, new Scan().withStartRow(b("r17")))));
      assertEquals(rows(0, 2), rowKeys(scanAll(t, new Scan().withStopRow(b("r02")))));
      // start between keys
      assertEquals(rows(4, 6),
          rowKeys(scanAll(t, new Scan().withStartRow(b("r03x")).withStopRow(b("r06")))));
    }
  }

  @Test
  void startAndStopRowInclusiveFlags(TestInfo info) throws Exception {
    try (Table t = filledTable(info, SPLITS)) {
      assertEquals(rows(6, 11), rowKeys(scanAll(t,
          new Scan().withStartRow(b("r05"), false).withStopRow(b("r10"), true))));
      assertEquals(rows(5, 10), rowKeys(scanAll(t,
          new Scan().withStartRow(b("r05"), true).withStopRow(b("r10"), false))));
      assertEquals(List.of("r07"), rowKeys(scanAll(t,
          new Scan().withStartRow(b("r07"), true).withStopRow(b("r07"), true))));
    }
  }

  @Test
  void cachingAndBatchSplitWideRows(TestInfo info) throws Exception {
    try (Table t = filledTable(info, SPLITS)) {
      Scan scan = new Scan().withStartRow(b("r03")).withStopRow(b("r07")).setCaching(2).setBatch(2);
      List<Result> rs = scanAll(t, scan);
      // 4 rows x 5 columns in batches of 2: 2,2,1 per row
      List<Integer> sizes = rs.stream().map(Result::size).collect(Collectors.toList());
      assertEquals(List.of(2, 2, 1, 2, 2, 1, 2, 2, 1, 2, 2, 1), sizes);
      List<String> keys = rowKeys(rs);
      assertEquals(List.of("r03", "r03", "r03", "r04", "r04", "r04", "r05", "r05", "r05",
          "r06", "r06", "r06"), keys);
      int cells = rs.stream().mapToInt(Result::size).sum();
      assertEquals(20, cells);
    }
  }

  @Test
  void smallCachingStillReturnsEverything(TestInfo info) throws Exception {
    try (Table t = filledTable(info, SPLITS)) {
      assertEquals(rows(0, ROWS), rowKeys(scanAll(t, new Scan().setCaching(1))));
      assertEquals(rows(0, ROWS), rowKeys(scanAll(t, new Scan().setCaching(3))));
    }
  }

  @Test
  void setLimitStopsAfterNRows(TestInfo info) throws Exception {
    try (Table t = filledTable(info, SPLITS)) {
      assertEquals(rows(0, 7), rowKeys(scanAll(t, new Scan().setLimit(7))));
      assertEquals(rows(3, 5), rowKeys(scanAll(t, new Scan().withStartRow(b("r03")).setLimit(2))));
      List<String> rev = rowKeys(scanAll(t, new Scan().setReversed(true).setLimit(3)));
      assertEquals(List.of("r19", "r18", "r17"), rev);
    }
  }

  @Test
  void scanOfSpecificFamilyAndColumns(TestInfo info) throws Exception {
    try (Table t = filledTable(info, SPLITS)) {
      List<Result> rs = scanAll(t, new Scan().addColumn(CF, b("val")));
      assertEquals(ROWS, rs.size());
      for (Result r : rs) {
        assertEquals(1, r.size());
        assertEquals("v-" + Integer.parseInt(s(r.getRow()).substring(1)), s(r.getValue(CF, b("val"))));
      }
      assertEquals(ROWS, scanAll(t, new Scan().addFamily(CF)).size());
    }
  }

  @Test
  void scannerNextWithCount(TestInfo info) throws Exception {
    try (Table t = filledTable(info, SPLITS); ResultScanner sc = t.getScanner(new Scan().setCaching(4))) {
      Result[] first = sc.next(6);
      assertEquals(6, first.length);
      assertEquals("r05", s(first[5].getRow()));
      Result one = sc.next();
      assertEquals("r06", s(one.getRow()));
    }
  }

  @Test
  void emptyTableScanReturnsNothing(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info), SPLITS); ResultScanner sc = t.getScanner(new Scan())) {
      assertNull(sc.next());
    }
  }

  @Test
  void prefixFilterSelectsRowsWithPrefix(TestInfo info) throws Exception {
    try (Table t = filledTable(info, SPLITS)) {
      assertEquals(rows(10, 20), rowKeys(scanAll(t, new Scan().setFilter(new PrefixFilter(b("r1"))))));
      assertEquals(List.of("r07"), rowKeys(scanAll(t, new Scan().setFilter(new PrefixFilter(b("r07"))))));
      assertEquals(List.of(), rowKeys(scanAll(t, new Scan().setFilter(new PrefixFilter(b("zz"))))));
    }
  }

  @Test
  void pageFilterLimitsRowsPerRegion(TestInfo info) throws Exception {
    // single region: PageFilter(3) returns exactly 3 rows
    try (Table t = filledTable(info)) {
      assertEquals(rows(0, 3), rowKeys(scanAll(t, new Scan().setFilter(new PageFilter(3)))));
    }
  }

  @Test
  void pageFilterAppliesPerRegionOnSplitTable(TestInfo info) throws Exception {
    // HBase evaluates PageFilter in each region separately: up to 2 rows from each of 4 regions
    try (Table t = filledTable(info, SPLITS)) {
      List<String> got = rowKeys(scanAll(t, new Scan().setFilter(new PageFilter(2))));
      assertEquals(List.of("r00", "r01", "r05", "r06", "r10", "r11", "r15", "r16"), got);
    }
  }

  @Test
  void singleColumnValueFilterMatchesColumnValue(TestInfo info) throws Exception {
    try (Table t = filledTable(info, SPLITS)) {
      SingleColumnValueFilter f =
          new SingleColumnValueFilter(CF, b("status"), CompareOperator.EQUAL, b("active"));
      f.setFilterIfMissing(true);
      List<Result> rs = scanAll(t, new Scan().setFilter(f));
      List<String> even = IntStream.range(0, ROWS).filter(i -> i % 2 == 0).mapToObj(ScanTest::row)
          .collect(Collectors.toList());
      assertEquals(even, rowKeys(rs));
      assertEquals(5, rs.get(0).size(), "whole rows are returned");

      // rows without the column: dropped with filterIfMissing, kept without it
      t.put(new Put(b("r99")).addColumn(CF, b("val"), b("no-status")));
      assertEquals(10, scanAll(t, new Scan().setFilter(f)).size());
      SingleColumnValueFilter keep =
          new SingleColumnValueFilter(CF, b("status"), CompareOperator.EQUAL, b("active"));
      assertEquals(11, scanAll(t, new Scan().setFilter(keep)).size());
    }
  }

  @Test
  void filterListMustPassAll(TestInfo info) throws Exception {
    try (Table t = filledTable(info, SPLITS)) {
      SingleColumnValueFilter active =
          new SingleColumnValueFilter(CF, b("status"), CompareOperator.EQUAL, b("active"));
      active.setFilterIfMissing(true);
      FilterList all = new FilterList(FilterList.Operator.MUST_PASS_ALL, new PrefixFilter(b("r1")), active);
      assertEquals(List.of("r10", "r12", "r14", "r16", "r18"), rowKeys(scanAll(t, new Scan().setFilter(all))));
    }
  }

  @Test
  void filterListMustPassOne(TestInfo info) throws Exception {
    try (Table t = filledTable(info, SPLITS)) {
      FilterList one = new FilterList(FilterList.Operator.MUST_PASS_ONE,
          new PrefixFilter(b("r03")), new PrefixFilter(b("r17")));
      assertEquals(List.of("r03", "r17"), rowKeys(scanAll(t, new Scan().setFilter(one))));
    }
  }

  @Test
  void valueFilterWithRegexStringComparator(TestInfo info) throws Exception {
    try (Table t = filledTable(info, SPLITS)) {
      ValueFilter f = new ValueFilter(CompareOperator.EQUAL, new RegexStringComparator("^v-1[0-4]$"));
      List<Result> rs = scanAll(t, new Scan().setFilter(f));
      assertEquals(rows(10, 15), rowKeys(rs));
      for (Result r : rs) {
        assertEquals(1, r.size(), "ValueFilter keeps only matching cells");
        assertTrue(r.containsColumn(CF, b("val")));
      }
      ValueFilter ne = new ValueFilter(CompareOperator.NOT_EQUAL, new RegexStringComparator("x|active|inactive"));
      assertEquals(ROWS, scanAll(t, new Scan().setFilter(ne)).size());
    }
  }

  @Test
  void keyOnlyFilterStripsValues(TestInfo info) throws Exception {
    try (Table t = filledTable(info, SPLITS)) {
      List<Result> rs = scanAll(t, new Scan().setFilter(new KeyOnlyFilter()));
      assertEquals(ROWS, rs.size());
      for (Result r : rs) {
        assertEquals(5, r.size());
        for (Cell c : r.rawCells()) {
          assertEquals(0, c.getValueLength(), "KeyOnlyFilter empties values");
        }
      }
      // lenAsVal=true: the value is the 4-byte length of the original value
      Result r = scanAll(t, new Scan().withStartRow(b("r12")).setLimit(1)
          .addColumn(CF, b("val")).setFilter(new KeyOnlyFilter(true))).get(0);
      assertEquals(4, r.rawCells()[0].getValueLength());
      assertEquals("v-12".length(),
          org.apache.hadoop.hbase.util.Bytes.toInt(CellUtil.cloneValue(r.rawCells()[0])));
    }
  }

  @Test
  void columnPrefixFilterSelectsColumns(TestInfo info) throws Exception {
    try (Table t = filledTable(info, SPLITS)) {
      List<Result> rs = scanAll(t, new Scan().setFilter(new ColumnPrefixFilter(b("c1"))));
      assertEquals(ROWS, rs.size());
      for (Result r : rs) {
        assertEquals(2, r.size());
        assertTrue(r.containsColumn(CF, b("c1a")));
        assertTrue(r.containsColumn(CF, b("c1b")));
        assertFalse(r.containsColumn(CF, b("c2")));
      }
    }
  }
}
