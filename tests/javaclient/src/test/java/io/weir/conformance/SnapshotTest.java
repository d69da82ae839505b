package io.weir.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.TableExistsException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotDisabledException;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.SnapshotDescription;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.snapshot.RestoreSnapshotException;
import org.apache.hadoop.hbase.snapshot.SnapshotCreationException;
import org.apache.hadoop.hbase.snapshot.SnapshotDoesNotExistException;
import org.apache.hadoop.hbase.snapshot.SnapshotExistsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Admin snapshot, listSnapshots, cloneSnapshot, restoreSnapshot, deleteSnapshot and their errors. */
class SnapshotTest extends WeirTestBase {
  private static final List<String> ROWS = List.of("a", "b", "n", "z");

  private static String value(Table t, String row) throws IOException {
    return s(t.get(new Get(b(row))).getValue(CF, b("q")));
  }

  @Test
  void snapshotCloneRestoreDelete(TestInfo info) throws Exception {
    TableName src = uniqueTable(info, "snapsrc");
    String snap = "snap_" + src.getQualifierAsString();
    try (Table t = createTable(src, 3, keys("m"))) {
      for (String r : ROWS) {
        t.put(new Put(b(r)).addColumn(CF, b("q"), b("v1-" + r)));
      }
      admin.snapshot(snap, src);
      List<SnapshotDescription> listed = admin.listSnapshots(Pattern.compile(Pattern.quote(snap)));
      assertEquals(1, listed.size(), "listSnapshots: " + listed);
      assertEquals(src, listed.get(0).getTableName());
      assertTrue(listed.get(0).getCreationTime() > 0, "creation time " + listed.get(0).getCreationTime());
      assertTrue(admin.listSnapshots().stream().anyMatch(d -> d.getName().equals(snap)));

      // Change the table after the snapshot.
      t.put(new Put(b("a")).addColumn(CF, b("q"), b("v2")));
      t.delete(new Delete(b("z")));

      TableName clone = uniqueTable(info, "snapclone");
      admin.cloneSnapshot(snap, clone);
      assertTrue(admin.isTableEnabled(clone));
      try (Table c = conn.getTable(clone)) {
        assertEquals(ROWS, rowKeys(scanAll(c, new Scan())));
        assertEquals("v1-a", value(c, "a"));
        assertEquals(2, admin.getRegions(clone).size(), "the clone keeps the snapshot's regions");
        assertEquals(3, admin.getDescriptor(clone).getColumnFamily(CF).getMaxVersions());
        c.put(new Put(b("b")).addColumn(CF, b("q"), b("clone")));
      }
      assertEquals("v1-b", value(t, "b"), "a write to the clone changed the source");
      assertEquals(List.of("a", "b", "n"), rowKeys(scanAll(t, new Scan())));

      assertThrows(TableNotDisabledException.class, () -> admin.restoreSnapshot(snap));
      admin.disableTable(src);
      admin.restoreSnapshot(snap);
      assertFalse(admin.isTableEnabled(src), "a restored table stays disabled");
      admin.enableTable(src);
      assertEquals(ROWS, rowKeys(scanAll(t, new Scan())));
      assertEquals("v1-a", value(t, "a"));

      admin.deleteSnapshot(snap);
      assertTrue(admin.listSnapshots(Pattern.compile(Pattern.quote(snap))).isEmpty());
    }
  }

  @Test
  void badSnapshotRequestsFailWithHBaseExceptions(TestInfo info) throws Exception {
    TableName src = uniqueTable(info, "snapbad");
    String snap = "snap_" + src.getQualifierAsString();
    try (Table t = createTable(src)) {
      t.put(new Put(b("r")).addColumn(CF, b("q"), b("v")));
      IOException missing = assertThrows(IOException.class,
          () -> admin.snapshot("snap_missing_" + src.getQualifierAsString(), TableName.valueOf("no_such_table_for_snapshot")));
      causeOfType(missing, SnapshotCreationException.class);

      admin.snapshot(snap, src);
      IOException dup = assertThrows(IOException.class, () -> admin.snapshot(snap, src));
      causeOfType(dup, SnapshotExistsException.class);

      assertThrows(TableExistsException.class, () -> admin.cloneSnapshot(snap, src));
      IOException unknownClone = assertThrows(IOException.class,
          () -> admin.cloneSnapshot("no_such_snapshot", uniqueTable(info, "never")));
      causeOfType(unknownClone, SnapshotDoesNotExistException.class);
      assertThrows(RestoreSnapshotException.class, () -> admin.restoreSnapshot("no_such_snapshot"));
      IOException unknownDelete = assertThrows(IOException.class, () -> admin.deleteSnapshot("no_such_snapshot"));
      causeOfType(unknownDelete, SnapshotDoesNotExistException.class);

      assertEquals(1, admin.listSnapshots(Pattern.compile("snap_.*" + src.getQualifierAsString())).size(),
          "bad requests changed the snapshots");
      assertEquals("v", value(t, "r"));
      admin.deleteSnapshot(snap);
    }
  }

  /** The master's cleaner of expired snapshots: on by default, switched through the Admin API. */
  @Test
  void snapshotCleanupSwitch() throws Exception {
    assertTrue(admin.isSnapshotCleanupEnabled(), "snapshot cleanup on by default");
    try {
      assertTrue(admin.snapshotCleanupSwitch(false, true), "previous state");
      assertFalse(admin.isSnapshotCleanupEnabled());
    } finally {
      assertFalse(admin.snapshotCleanupSwitch(true, true), "previous state");
    }
    assertTrue(admin.isSnapshotCleanupEnabled());
  }
}
