package io.weir.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.NavigableMap;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Put, Get, Delete and exists() on single rows and cells. */
class SingleCellTest extends WeirTestBase {

  @Test
  void putThenGetSingleCell(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      t.put(new Put(b("row1")).addColumn(CF, b("q"), b("value1")));
      Result r = t.get(new Get(b("row1")));
      assertFalse(r.isEmpty());
      assertArrayEquals(b("row1"), r.getRow());
      assertEquals("value1", s(r.getValue(CF, b("q"))));
      assertEquals(1, r.size());
      Cell c = r.rawCells()[0];
      assertEquals("row1", s(CellUtil.cloneRow(c)));
      assertEquals("f", s(CellUtil.cloneFamily(c)));
      assertEquals("q", s(CellUtil.cloneQualifier(c)));
      assertTrue(c.getTimestamp() > 0, "server assigns a timestamp");
    }
  }

  @Test
  void getOfMissingRowIsEmpty(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      Result r = t.get(new Get(b("nope")));
      assertTrue(r.isEmpty());
      assertNull(r.getRow());
      assertNull(r.getValue(CF, b("q")));
    }
  }

  @Test
  void putOverwritesLatestValue(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      t.put(new Put(b("r")).addColumn(CF, b("q"), 100L, b("old")));
      t.put(new Put(b("r")).addColumn(CF, b("q"), 200L, b("new")));
      assertEquals("new", s(t.get(new Get(b("r"))).getValue(CF, b("q"))));
    }
  }

  @Test
  void getWholeFamilyReturnsAllColumnsSorted(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      t.put(new Put(b("r")).addColumn(CF, b("c"), b("3")).addColumn(CF, b("a"), b("1"))
          .addColumn(CF, b("b"), b("2")));
      Result r = t.get(new Get(b("r")).addFamily(CF));
      assertEquals(3, r.size());
      NavigableMap<byte[], byte[]> fam = r.getFamilyMap(CF);
      assertEquals(List.of("a", "b", "c"), fam.keySet().stream().map(WeirTestBase::s).toList());
      assertEquals(List.of("1", "2", "3"), fam.values().stream().map(WeirTestBase::s).toList());
      // cells come back in KeyValue order
      assertEquals("a", s(CellUtil.cloneQualifier(r.rawCells()[0])));
      assertEquals("c", s(CellUtil.cloneQualifier(r.rawCells()[2])));
    }
  }

  @Test
  void getSpecificColumnsReturnsOnlyThose(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      t.put(new Put(b("r")).addColumn(CF, b("a"), b("1")).addColumn(CF, b("b"), b("2"))
          .addColumn(CF, b("c"), b("3")));
      Result r = t.get(new Get(b("r")).addColumn(CF, b("a")).addColumn(CF, b("c")));
      assertEquals(2, r.size());
      assertEquals("1", s(r.getValue(CF, b("a"))));
      assertNull(r.getValue(CF, b("b")));
      assertEquals("3", s(r.getValue(CF, b("c"))));
      assertTrue(r.containsColumn(CF, b("a")));
      assertFalse(r.containsColumn(CF, b("b")));

      Result none = t.get(new Get(b("r")).addColumn(CF, b("zz")));
      assertTrue(none.isEmpty(), "get of a column that does not exist is empty");
    }
  }

  @Test
  void deleteSingleColumnKeepsOthers(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      t.put(new Put(b("r")).addColumn(CF, b("a"), b("1")).addColumn(CF, b("b"), b("2")));
      t.delete(new Delete(b("r")).addColumns(CF, b("a")));
      Result r = t.get(new Get(b("r")));
      assertEquals(1, r.size());
      assertNull(r.getValue(CF, b("a")));
      assertEquals("2", s(r.getValue(CF, b("b"))));
    }
  }

  @Test
  void deleteWholeRowRemovesAllCells(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      t.put(new Put(b("r")).addColumn(CF, b("a"), b("1")).addColumn(CF, b("b"), b("2")));
      t.put(new Put(b("other")).addColumn(CF, b("a"), b("x")));
      t.delete(new Delete(b("r")));
      assertTrue(t.get(new Get(b("r"))).isEmpty());
      assertFalse(t.get(new Get(b("other"))).isEmpty(), "other rows untouched");
    }
  }

  @Test
  void deleteFamilyRemovesRowContents(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      t.put(new Put(b("r")).addColumn(CF, b("a"), b("1")).addColumn(CF, b("b"), b("2")));
      t.delete(new Delete(b("r")).addFamily(CF));
      assertTrue(t.get(new Get(b("r"))).isEmpty());
    }
  }

  @Test
  void putAfterDeleteIsVisible(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      t.put(new Put(b("r")).addColumn(CF, b("a"), b("1")));
      t.delete(new Delete(b("r")));
      t.put(new Put(b("r")).addColumn(CF, b("a"), b("2")));
      assertEquals("2", s(t.get(new Get(b("r"))).getValue(CF, b("a"))));
    }
  }

  @Test
  void existsReportsPresenceWithoutData(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      t.put(new Put(b("r")).addColumn(CF, b("a"), b("1")));
      assertTrue(t.exists(new Get(b("r"))));
      assertTrue(t.exists(new Get(b("r")).addColumn(CF, b("a"))));
      assertFalse(t.exists(new Get(b("r")).addColumn(CF, b("b"))));
      assertFalse(t.exists(new Get(b("missing"))));
      boolean[] all = t.exists(List.of(new Get(b("r")), new Get(b("missing"))));
      assertArrayEquals(new boolean[] {true, false}, all);
    }
  }
}
