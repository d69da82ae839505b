package io.weir.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.NamespaceExistException;
import org.apache.hadoop.hbase.NamespaceNotFoundException;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableExistsException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotDisabledException;
import org.apache.hadoop.hbase.TableNotEnabledException;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The exceptions the HBase 2.6 client surfaces for common mistakes. Each assertion is the type the
 * client throws against a real HBase: TableNotFoundException, NoSuchColumnFamilyException and
 * TableExistsException are DoNotRetryIOExceptions that the retrying caller rethrows as they are;
 * batch operations wrap per-action errors in RetriesExhaustedWithDetailsException.
 */
class ErrorCasesTest extends WeirTestBase {
  static final byte[] NO_SUCH_FAMILY = b("nosuchfamily");

  @Test
  void getOnMissingTableThrowsTableNotFound() throws Exception {
    TableName missing = TableName.valueOf("missing_table_for_get");
    try (Table t = conn.getTable(missing)) {
      TableNotFoundException e =
          assertThrows(TableNotFoundException.class, () -> t.get(new Get(b("r"))), () -> "get on " + missing);
      assertTrue(e.getMessage().contains("missing_table_for_get"), "message names the table: " + e.getMessage());
    }
  }

  @Test
  void putAndScanOnMissingTableThrowTableNotFound() throws Exception {
    TableName missing = TableName.valueOf("missing_table_for_put");
    try (Table t = conn.getTable(missing)) {
      assertThrows(TableNotFoundException.class,
          () -> t.put(new Put(b("r")).addColumn(CF, b("q"), b("v"))));
      IOException scanErr = assertThrows(IOException.class, () -> countRows(t));
      causeOfType(scanErr, TableNotFoundException.class);
    }
  }

  @Test
  void adminOperationsOnMissingTableThrowTableNotFound() throws Exception {
    TableName missing = TableName.valueOf("missing_table_for_admin");
    assertThrows(TableNotFoundException.class, () -> admin.getDescriptor(missing));
    assertThrows(TableNotFoundException.class, () -> admin.disableTable(missing));
    assertThrows(TableNotFoundException.class, () -> admin.deleteTable(missing));
  }

  @Test
  void putToMissingFamilyThrowsNoSuchColumnFamily(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      NoSuchColumnFamilyException e = assertThrows(NoSuchColumnFamilyException.class,
          () -> t.put(new Put(b("r")).addColumn(NO_SUCH_FAMILY, b("q"), b("v"))));
      assertTrue(e.getMessage().contains("nosuchfamily"), "message names the family: " + e.getMessage());
      assertTrue(t.get(new Get(b("r"))).isEmpty(), "nothing was written");
    }
  }

  @Test
  void getOfMissingFamilyThrowsNoSuchColumnFamily(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      assertThrows(NoSuchColumnFamilyException.class, () -> t.get(new Get(b("r")).addFamily(NO_SUCH_FAMILY)));
      IOException scanErr = assertThrows(IOException.class,
          () -> scanAll(t, new Scan().addFamily(NO_SUCH_FAMILY)));
      causeOfType(scanErr, NoSuchColumnFamilyException.class);
    }
  }

  @Test
  void putListToMissingFamilyReportsNoSuchColumnFamilyPerAction(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info), keys("m"))) {
      List<Put> puts = new ArrayList<>();
      puts.add(new Put(b("a")).addColumn(CF, b("q"), b("ok")));
      puts.add(new Put(b("b")).addColumn(NO_SUCH_FAMILY, b("q"), b("bad")));
      puts.add(new Put(b("z")).addColumn(CF, b("q"), b("ok")));
      RetriesExhaustedWithDetailsException e =
          assertThrows(RetriesExhaustedWithDetailsException.class, () -> t.put(puts));
      assertEquals(1, e.getNumExceptions(), "only the bad put failed: " + e.getMessage());
      assertInstanceOf(NoSuchColumnFamilyException.class, e.getCause(0));
      assertEquals("b", s(e.getRow(0).getRow()));
      assertEquals(2, countRows(t), "the good puts were applied");
    }
  }

  @Test
  void batchWithMissingFamilyPutsExceptionInResults(TestInfo info) throws Exception {
    try (Table t = createTable(uniqueTable(info))) {
      List<Row> actions = List.of(
          new Put(b("a")).addColumn(CF, b("q"), b("ok")),
          new Put(b("b")).addColumn(NO_SUCH_FAMILY, b("q"), b("bad")));
      Object[] results = new Object[2];
      RetriesExhaustedWithDetailsException e =
          assertThrows(RetriesExhaustedWithDetailsException.class, () -> t.batch(actions, results));
      assertInstanceOf(NoSuchColumnFamilyException.class, e.getCause(0));
      assertInstanceOf(org.apache.hadoop.hbase.client.Result.class, results[0]);
      assertInstanceOf(NoSuchColumnFamilyException.class, results[1]);
    }
  }

  @Test
  void bufferedMutatorWithMissingFamilyFailsOnFlush(TestInfo info) throws Exception {
    TableName tn = uniqueTable(info);
    createTable(tn).close();
    BufferedMutator bm = conn.getBufferedMutator(tn);
    try {
      bm.mutate(new Put(b("a")).addColumn(NO_SUCH_FAMILY, b("q"), b("bad")));
      RetriesExhaustedWithDetailsException e =
          assertThrows(RetriesExhaustedWithDetailsException.class, bm::flush);
      assertInstanceOf(NoSuchColumnFamilyException.class, e.getCause(0));
    } finally {
      try {
        bm.close();
      } catch (IOException ignored) {
        // the failed mutation may be reported again on close
      }
    }
  }

  @Test
  void getAndPutOnDisabledTableThrowTableNotEnabled(TestInfo info) throws Exception {
    TableName tn = uniqueTable(info);
    try (Table t = createTable(tn)) {
      t.put(new Put(b("r")).addColumn(CF, b("q"), b("v")));
      admin.disableTable(tn);
      // The region is closed; on retry the client checks the table state in hbase:meta and throws
      // TableNotEnabledException ("<table> is disabled.").
      IOException getErr = assertThrows(IOException.class, () -> t.get(new Get(b("r"))));
      causeOfType(getErr, TableNotEnabledException.class);
      IOException putErr = assertThrows(IOException.class,
          () -> t.put(new Put(b("r")).addColumn(CF, b("q"), b("v2"))));
      causeOfType(putErr, TableNotEnabledException.class);
    } finally {
      if (admin.isTableDisabled(tn)) {
        admin.enableTable(tn);
      }
    }
  }

  @Test
  void disableOfDisabledTableThrowsTableNotEnabled(TestInfo info) throws Exception {
    TableName tn = uniqueTable(info);
    createTable(tn).close();
    admin.disableTable(tn);
    assertThrows(TableNotEnabledException.class, () -> admin.disableTable(tn));
    admin.enableTable(tn);
    assertThrows(TableNotDisabledException.class, () -> admin.enableTable(tn));
  }

  @Test
  void deleteOfEnabledTableThrowsTableNotDisabled(TestInfo info) throws Exception {
    TableName tn = uniqueTable(info);
    createTable(tn).close();
    assertThrows(TableNotDisabledException.class, () -> admin.deleteTable(tn));
    assertTrue(admin.tableExists(tn));
  }

  @Test
  void createExistingTableThrowsTableExists(TestInfo info) throws Exception {
    TableName tn = uniqueTable(info);
    createTable(tn).close();
    assertThrows(TableExistsException.class, () -> admin.createTable(TableDescriptorBuilder.newBuilder(tn)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(CF)).build()));
  }

  @Test
  void createTableInMissingNamespaceThrowsNamespaceNotFound() throws Exception {
    TableName tn = TableName.valueOf("no_such_namespace", "t");
    IOException e = assertThrows(IOException.class, () -> admin.createTable(TableDescriptorBuilder.newBuilder(tn)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(CF)).build()));
    causeOfType(e, NamespaceNotFoundException.class);
  }

  @Test
  void createExistingNamespaceThrowsNamespaceExist() throws Exception {
    admin.createNamespace(NamespaceDescriptor.create("dup_ns").build());
    assertThrows(NamespaceExistException.class,
        () -> admin.createNamespace(NamespaceDescriptor.create("dup_ns").build()));
  }
}
