package io.weir.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Table.batch, Table.put(List) and BufferedMutator (all on the Multi RPC). */
class BatchTest extends WeirTestBase {
  static final byte[][] SPLITS = keys("k250", "k500", "k750");

  static String key(int i) {
    return String.format("k%03d", i);
  }

  @Test
  void batchWithMixOfPutGetDelete(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info), SPLITS)) {
      t.put(new Put(b("k100")).addColumn(CF, b("q"), b("existing")));
      t.put(new Put(b("k600")).addColumn(CF, b("q"), b("doomed")));

      List<Row> actions = new ArrayList<>();
      actions.add(new Put(b("k300")).addColumn(CF, b("q"), b("new")));    // 0
      actions.add(new Get(b("k100")));                                     // 1
      actions.add(new Delete(b("k600")));                                  // 2
      actions.add(new Get(b("k900")));                                     // 3 missing row
      actions.add(new Put(b("k900x")).addColumn(CF, b("q"), b("other")));  // 4
      Object[] results = new Object[actions.size()];
      t.batch(actions, results);

      for (int i = 0; i < results.length; i++) {
        assertInstanceOf(Result.class, results[i], "result " + i + " is a Result, not an error");
      }
      assertEquals("existing", s(((Result) results[1]).getValue(CF, b("q"))));
      assertTrue(((Result) results[3]).isEmpty());

      assertEquals("new", s(t.get(new Get(b("k300"))).getValue(CF, b("q"))));
      assertTrue(t.get(new Get(b("k600"))).isEmpty());
      assertEquals("other", s(t.get(new Get(b("k900x"))).getValue(CF, b("q"))));
    }
  }

  @Test
  void batchOfGetsAcrossRegions(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info), SPLITS)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < 1000; i += 100) {
        puts.add(new Put(b(key(i))).addColumn(CF, b("q"), b("v" + i)));
      }
      t.put(puts);
      List<Get> gets = new ArrayList<>();
      for (int i = 0; i < 1000; i += 100) {
        gets.add(new Get(b(key(i))));
      }
      Result[] rs = t.get(gets);
      assertEquals(10, rs.length);
      for (int i = 0; i < rs.length; i++) {
        assertEquals("v" + (i * 100), s(rs[i].getValue(CF, b("q"))), "get " + i + " in request order");
      }
    }
  }

  @Test
  void putListAcrossRegions(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info), SPLITS)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < 1000; i += 7) {
        puts.add(new Put(b(key(i))).addColumn(CF, b("q"), b("v" + i)));
      }
      t.put(puts);
      assertEquals(puts.size(), countRows(t));
      assertEquals("v7", s(t.get(new Get(b(key(7)))).getValue(CF, b("q"))));
      assertEquals("v994", s(t.get(new Get(b(key(994)))).getValue(CF, b("q"))));
      // rows land in every region
      int perRegion = scanAll(t, new Scan().withStartRow(b("k500")).withStopRow(b("k750"))).size();
      assertEquals((749 - 504) / 7 + 1, perRegion);
    }
  }

  @Test
  void deleteListAcrossRegions(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info), SPLITS)) {
      List<Put> puts = new ArrayList<>();
      List<Delete> deletes = new ArrayList<>();
      for (int i = 0; i < 1000; i += 50) {
        puts.add(new Put(b(key(i))).addColumn(CF, b("q"), b("v")));
        if (i % 100 == 0) {
          deletes.add(new Delete(b(key(i))));
        }
      }
      t.put(puts);
      t.delete(deletes);
      assertTrue(deletes.isEmpty(), "Table.delete(List) empties the list on success");
      assertEquals(10, countRows(t));
    }
  }

  @Test
  void bufferedMutatorThousandPutsThenFlush(TestInfo info) throws Exception {
    TableName tn = uniqueTable(info);
    createTable(tn, SPLITS).close();
    try (BufferedMutator bm = conn.getBufferedMutator(
        new BufferedMutatorParams(tn).writeBufferSize(64 * 1024))) {
      for (int i = 0; i < 1000; i++) {
        bm.mutate(new Put(b(key(i))).addColumn(CF, b("q"), b("value-" + i)));
      }
      bm.flush();
      try (Table t = conn.getTable(tn)) {
        assertEquals(1000, scanAll(t, new Scan().setFilter(new KeyOnlyFilter()).setCaching(500)).size());
        assertEquals("value-999", s(t.get(new Get(b(key(999)))).getValue(CF, b("q"))));
        assertEquals("value-0", s(t.get(new Get(b(key(0)))).getValue(CF, b("q"))));
      }
    }
  }

  @Test
  void bufferedMutatorCloseFlushesPending(TestInfo info) throws Exception {
    TableName tn = uniqueTable(info);
    createTable(tn, SPLITS).close();
    BufferedMutator bm = conn.getBufferedMutator(tn);
    for (int i = 0; i < 100; i++) {
      bm.mutate(new Put(b(key(i * 10))).addColumn(CF, b("q"), b("v")));
    }
    bm.close();
    try (Table t = conn.getTable(tn)) {
      assertEquals(100, countRows(t));
    }
  }
}
