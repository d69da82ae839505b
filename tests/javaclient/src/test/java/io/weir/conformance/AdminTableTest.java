package io.weir.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Namespaces, table creation with split keys, descriptors, regions, enable/disable, truncate, delete. */
class AdminTableTest extends WeirTestBase {
  static final byte[][] SPLITS = keys("g", "n", "t");

  @Test
  void createNamespaceAndPreSplitTableInIt() throws Exception {
    String ns = "conformance_ns";
    admin.createNamespace(NamespaceDescriptor.create(ns).build());
    assertEquals(ns, admin.getNamespaceDescriptor(ns).getName());
    assertTrue(Arrays.stream(admin.listNamespaceDescriptors()).anyMatch(d -> d.getName().equals(ns)),
        "listNamespaceDescriptors contains " + ns);
    assertTrue(Arrays.asList(admin.listNamespaces()).contains(ns), "listNamespaces contains " + ns);

    TableName tn = TableName.valueOf(ns, "presplit");
    admin.createTable(TableDescriptorBuilder.newBuilder(tn)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(b("a")).setMaxVersions(3).build())
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(b("b")).build())
        .build(), SPLITS);
    assertTrue(admin.tableExists(tn));
    assertTrue(admin.isTableEnabled(tn));
    assertTrue(admin.isTableAvailable(tn));

    List<TableName> inNs = Arrays.asList(admin.listTableNamesByNamespace(ns));
    assertEquals(List.of(tn), inNs);
    List<TableDescriptor> inNsDescs = admin.listTableDescriptorsByNamespace(b(ns));
    assertEquals(1, inNsDescs.size());
    assertEquals(tn, inNsDescs.get(0).getTableName());
  }

  @Test
  void listTableDescriptorsAndGetDescriptorShowFamiliesAndVersions(TestInfo info) throws Exception {
    TableName tn = uniqueTable(info);
    admin.createTable(TableDescriptorBuilder.newBuilder(tn)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(b("a")).setMaxVersions(3).build())
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(b("b")).setMaxVersions(1).build())
        .build());

    List<TableDescriptor> all = admin.listTableDescriptors();
    assertTrue(all.stream().anyMatch(d -> d.getTableName().equals(tn)),
        "listTableDescriptors contains " + tn + ": " + all);
    assertTrue(Arrays.asList(admin.listTableNames()).contains(tn), "listTableNames contains " + tn);
    List<TableDescriptor> named = admin.listTableDescriptors(List.of(tn));
    assertEquals(1, named.size());

    TableDescriptor d = admin.getDescriptor(tn);
    assertEquals(tn, d.getTableName());
    ColumnFamilyDescriptor[] fams = d.getColumnFamilies();
    assertEquals(2, fams.length);
    assertEquals("a", fams[0].getNameAsString());
    assertEquals(3, fams[0].getMaxVersions());
    assertEquals("b", fams[1].getNameAsString());
    assertEquals(1, fams[1].getMaxVersions());
    assertNotNull(d.getColumnFamily(b("a")));
    assertTrue(d.hasColumnFamily(b("b")));
    assertFalse(d.hasColumnFamily(b("zz")));

    // the same descriptor through the Table interface
    try (Table t = conn.getTable(tn)) {
      assertEquals(3, t.getDescriptor().getColumnFamily(b("a")).getMaxVersions());
    }
  }

  @Test
  void getRegionsReturnsSplitKeysPlusOneRegionsWithRightBoundaries(TestInfo info) throws Exception {
    TableName tn = uniqueTable(info);
    createTable(tn, SPLITS).close();

    List<RegionInfo> regions = new ArrayList<>(admin.getRegions(tn));
    assertEquals(SPLITS.length + 1, regions.size());
    regions.sort(Comparator.comparing(RegionInfo::getStartKey, Bytes.BYTES_COMPARATOR));
    byte[][] expectedStarts = {HConstants.EMPTY_START_ROW, b("g"), b("n"), b("t")};
    byte[][] expectedEnds = {b("g"), b("n"), b("t"), HConstants.EMPTY_END_ROW};
    for (int i = 0; i < regions.size(); i++) {
      RegionInfo r = regions.get(i);
      assertEquals(tn, r.getTable());
      assertArrayEquals(expectedStarts[i], r.getStartKey(), "start key of region " + i);
      assertArrayEquals(expectedEnds[i], r.getEndKey(), "end key of region " + i);
      assertFalse(r.isOffline());
      assertFalse(r.isSplit());
    }

    try (RegionLocator loc = conn.getRegionLocator(tn)) {
      byte[][] starts = loc.getStartKeys();
      assertEquals(4, starts.length);
      for (int i = 0; i < starts.length; i++) {
        assertArrayEquals(expectedStarts[i], starts[i]);
      }
      assertEquals(4, loc.getAllRegionLocations().size());
      assertArrayEquals(b("n"), loc.getRegionLocation(b("p")).getRegion().getStartKey());
      assertArrayEquals(b("t"), loc.getRegionLocation(b("p")).getRegion().getEndKey());
      assertNotNull(loc.getRegionLocation(b("p")).getServerName());
    }
  }

  @Test
  void tableExistsIsFalseForUnknownTable() throws Exception {
    assertFalse(admin.tableExists(TableName.valueOf("no_such_table_anywhere")));
    assertFalse(admin.tableExists(TableName.valueOf("default", "no_such_table_2")));
  }

  @Test
  void disableAndEnableTable(TestInfo info) throws Exception {
    TableName tn = uniqueTable(info);
    createTable(tn, SPLITS).close();
    assertTrue(admin.isTableEnabled(tn));
    assertFalse(admin.isTableDisabled(tn));

    admin.disableTable(tn);
    assertTrue(admin.isTableDisabled(tn));
    assertFalse(admin.isTableEnabled(tn));
    assertTrue(admin.tableExists(tn), "a disabled table still exists");

    admin.enableTable(tn);
    assertTrue(admin.isTableEnabled(tn));
    assertFalse(admin.isTableDisabled(tn));
    try (Table t = conn.getTable(tn)) {
      t.put(new Put(b("h")).addColumn(CF, b("q"), b("v")));
      assertEquals(1, countRows(t), "table serves again after enable");
    }
  }

  @Test
  void truncateTablePreservingSplitsLeavesEmptyTableWithSameRegions(TestInfo info) throws Exception {
    TableName tn = uniqueTable(info);
    try (Table t = createTable(tn, SPLITS)) {
      List<Put> puts = new ArrayList<>();
      for (String row : new String[] {"a", "h", "o", "u", "z"}) {
        puts.add(new Put(b(row)).addColumn(CF, b("q"), b("v-" + row)));
      }
      t.put(puts);
      assertEquals(5, countRows(t));
    }

    admin.disableTable(tn);
    admin.truncateTable(tn, true);

    assertTrue(admin.tableExists(tn));
    assertTrue(admin.isTableEnabled(tn), "truncateTable leaves the table enabled");
    assertEquals(SPLITS.length + 1, admin.getRegions(tn).size());
    try (Table t = conn.getTable(tn)) {
      assertEquals(0, countRows(t), "truncated table is empty");
      t.put(new Put(b("h")).addColumn(CF, b("q"), b("again")));
      assertEquals(1, countRows(t));
    }
  }

  @Test
  void deleteTableThenTableExistsIsFalse(TestInfo info) throws Exception {
    TableName tn = uniqueTable(info);
    createTable(tn, SPLITS).close();
    admin.disableTable(tn);
    admin.deleteTable(tn);
    assertFalse(admin.tableExists(tn));
    assertFalse(admin.listTableDescriptors().stream().anyMatch(d -> d.getTableName().equals(tn)));

    // the name can be reused
    try (Table t = createTable(tn)) {
      assertEquals(0, countRows(t));
    }
  }
}
