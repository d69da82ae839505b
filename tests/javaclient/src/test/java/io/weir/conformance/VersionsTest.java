package io.weir.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Multiple versions per cell (family VERSIONS=3) with explicit timestamps. */
class VersionsTest extends WeirTestBase {
  static final byte[] ROW = b("row");
  static final byte[] Q = b("q");

  private Table tableWithThreeVersions(TestInfo info) throws Exception {
    Table t = createTable(uniqueTable(info), 3);
    t.put(new Put(ROW).addColumn(CF, Q, 100L, b("v1")));
    t.put(new Put(ROW).addColumn(CF, Q, 200L, b("v2")));
    t.put(new Put(ROW).addColumn(CF, Q, 300L, b("v3")));
    return t;
  }

  static List<String> values(Result r) {
    List<String> out = new ArrayList<>();
    for (Cell c : r.getColumnCells(CF, Q)) {
      out.add(s(CellUtil.cloneValue(c)));
    }
    return out;
  }

  static List<Long> timestamps(Result r) {
    List<Long> out = new ArrayList<>();
    for (Cell c : r.getColumnCells(CF, Q)) {
      out.add(c.getTimestamp());
    }
    return out;
  }

  @Test
  void defaultGetReturnsNewestVersionOnly(TestInfo info) throws Exception {
    try (Table t = tableWithThreeVersions(info)) {
      Result r = t.get(new Get(ROW));
      assertEquals(List.of("v3"), values(r));
      assertEquals(List.of(300L), timestamps(r));
    }
  }

  @Test
  void readVersionsThreeReturnsAllNewestFirst(TestInfo info) throws Exception {
    try (Table t = tableWithThreeVersions(info)) {
      Result r = t.get(new Get(ROW).readVersions(3));
      assertEquals(List.of("v3", "v2", "v1"), values(r));
      assertEquals(List.of(300L, 200L, 100L), timestamps(r));
      assertEquals(List.of("v3", "v2"), values(t.get(new Get(ROW).readVersions(2))));
      assertEquals("v3", s(r.getValue(CF, Q)), "getValue is the newest version");
    }
  }

  @Test
  void familyMaxVersionsCapsStoredVersions(TestInfo info) throws Exception {
    try (Table t = tableWithThreeVersions(info)) {
      t.put(new Put(ROW).addColumn(CF, Q, 400L, b("v4")));
      Result r = t.get(new Get(ROW).readAllVersions());
      assertEquals(List.of("v4", "v3", "v2"), values(r), "VERSIONS=3 keeps only the newest three");
    }
  }

  @Test
  void setTimeRangeSelectsVersionsInHalfOpenRange(TestInfo info) throws Exception {
    try (Table t = tableWithThreeVersions(info)) {
      // [150, 301) holds 200 and 300
      assertEquals(List.of("v3", "v2"),
          values(t.get(new Get(ROW).readVersions(3).setTimeRange(150L, 301L))));
      // max is exclusive: [100, 300) holds 100 and 200
      assertEquals(List.of("v2", "v1"),
          values(t.get(new Get(ROW).readVersions(3).setTimeRange(100L, 300L))));
      // one version inside a range without readVersions: newest in range
      assertEquals(List.of("v2"), values(t.get(new Get(ROW).setTimeRange(0L, 250L))));
      // empty range
      assertEquals(List.of(), values(t.get(new Get(ROW).readVersions(3).setTimeRange(1L, 50L))));
    }
  }

  @Test
  void setTimestampSelectsExactVersion(TestInfo info) throws Exception {
    try (Table t = tableWithThreeVersions(info)) {
      assertEquals(List.of("v2"), values(t.get(new Get(ROW).setTimestamp(200L))));
      assertEquals(List.of("v1"), values(t.get(new Get(ROW).readVersions(3).setTimestamp(100L))));
      assertEquals(List.of(), values(t.get(new Get(ROW).setTimestamp(250L))));
    }
  }

  @Test
  void scanWithReadVersionsReturnsAllVersions(TestInfo info) throws Exception {
    try (Table t = tableWithThreeVersions(info)) {
      List<Result> rs = scanAll(t, new Scan().readVersions(3));
      assertEquals(1, rs.size());
      assertEquals(List.of("v3", "v2", "v1"), values(rs.get(0)));
      List<Result> one = scanAll(t, new Scan());
      assertEquals(List.of("v3"), values(one.get(0)));
    }
  }

  @Test
  void deleteOfOneVersionExposesOlderOne(TestInfo info) throws Exception {
    try (Table t = tableWithThreeVersions(info)) {
      t.delete(new Delete(ROW).addColumn(CF, Q, 300L));
      assertEquals(List.of("v2"), values(t.get(new Get(ROW))));
      assertEquals(List.of("v2", "v1"), values(t.get(new Get(ROW).readVersions(3))));
      // addColumns (plural) with a timestamp deletes that version and all older ones
      t.delete(new Delete(ROW).addColumns(CF, Q, 200L));
      assertEquals(List.of(), values(t.get(new Get(ROW).readVersions(3))));
    }
  }
}
