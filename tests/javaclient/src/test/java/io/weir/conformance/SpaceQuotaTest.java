package io.weir.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.quotas.QuotaFilter;
import org.apache.hadoop.hbase.quotas.QuotaSettings;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.quotas.QuotaType;
import org.apache.hadoop.hbase.quotas.SpaceQuotaSnapshotView;
import org.apache.hadoop.hbase.quotas.SpaceViolationPolicy;
import org.apache.hadoop.ipc.RemoteException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * TYPE => SPACE quotas through the Java Admin API: setQuota with limitTableSpace, getQuota,
 * getSpaceQuotaTableSizes, getCurrentSpaceQuotaSnapshot, getRegionServerSpaceQuotaSnapshots, and
 * the SpaceLimitingException a Put gets under NO_INSERTS. Weir runs with a 100 ms report period
 * so that a violation is decided in well under a second.
 *
 * <p>SpaceLimitingException lives in hbase-server, not in hbase-shaded-client, so this client
 * (like any shaded-client application talking to HBase) cannot instantiate it: it reports a
 * DoNotRetryIOException caused by the RemoteException, whose class name and text are HBase's.
 * An application with hbase-server on its class path gets the SpaceLimitingException itself,
 * built from the same text (its constructor strips the class name and finds the policy).
 */
class SpaceQuotaTest extends WeirTestBase {
  static final String SPACE_LIMITING = "org.apache.hadoop.hbase.quotas.SpaceLimitingException";

  @Override
  protected List<String> weirArgs() {
    return List.of("--quota-space-report-period", "100ms");
  }

  @Test
  void noInsertsRefusesPutsAllowsDeletes(TestInfo info) throws Exception {
    TableName tn = uniqueTable(info);
    Table t = createTable(tn);
    admin.setQuota(QuotaSettingsFactory.limitTableSpace(tn, 64 * 1024, SpaceViolationPolicy.NO_INSERTS));

    List<QuotaSettings> got = admin.getQuota(new QuotaFilter().setTableFilter(tn.getNameAsString()));
    assertEquals(1, got.size(), "quotas of " + tn + ": " + got);
    assertEquals(QuotaType.SPACE, got.get(0).getQuotaType());
    assertEquals(tn, got.get(0).getTableName());
    assertTrue(got.get(0).toString().contains("LIMIT => 64.00K, VIOLATION_POLICY => NO_INSERTS"),
        got.get(0).toString());

    byte[] value = new byte[4096];
    new Random(1).nextBytes(value);
    RemoteException refused = null;
    int written = 0;
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (refused == null && System.nanoTime() < deadline) {
      try {
        t.put(new Put(b(String.format("r%05d", written))).addColumn(CF, b("c"), value));
        written++;
        if (written % 8 == 0) {
          Thread.sleep(20);
        }
      } catch (IOException e) {
        refused = causeOfType(e, RemoteException.class);
        assertTrue(e instanceof org.apache.hadoop.hbase.DoNotRetryIOException, "not retried: " + chain(e));
      }
    }
    assertNotNull(refused, written + " puts of 4 KiB under a 64 KiB quota, none refused");
    assertTrue(written >= 16, "refused after " + written + " puts: below the limit");
    assertEquals(SPACE_LIMITING, refused.getClassName());
    assertEquals(SPACE_LIMITING + ": NO_INSERTS Puts are disallowed due to a space quota.",
        refused.getMessage());

    // Deletes free space, so NO_INSERTS lets them through.
    t.delete(new Delete(b("r00000")));

    Map<TableName, Long> sizes = admin.getSpaceQuotaTableSizes();
    assertTrue(sizes.containsKey(tn) && sizes.get(tn) > 64 * 1024, "table sizes: " + sizes);

    SpaceQuotaSnapshotView snap = admin.getCurrentSpaceQuotaSnapshot(tn);
    assertNotNull(snap, "snapshot of " + tn);
    assertTrue(snap.getQuotaStatus().isInViolation(), "snapshot " + snap);
    assertEquals(SpaceViolationPolicy.NO_INSERTS, snap.getQuotaStatus().getPolicy().get());
    assertEquals(64 * 1024, snap.getLimit());
    assertTrue(snap.getUsage() > 64 * 1024, "usage " + snap.getUsage());

    ServerName rs = admin.getRegionServers().iterator().next();
    Map<TableName, ? extends SpaceQuotaSnapshotView> rsSnaps = admin.getRegionServerSpaceQuotaSnapshots(rs);
    assertTrue(rsSnaps.containsKey(tn) && rsSnaps.get(tn).getQuotaStatus().isInViolation(),
        "region server snapshots: " + rsSnaps);

    // Removing the quota lifts the policy.
    admin.setQuota(QuotaSettingsFactory.removeTableSpaceLimit(tn));
    assertTrue(admin.getQuota(new QuotaFilter().setTableFilter(tn.getNameAsString())).isEmpty());
    deadline = System.nanoTime() + 10_000_000_000L;
    while (true) {
      try {
        t.put(new Put(b("after")).addColumn(CF, b("c"), value));
        break;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          fail("puts still refused after the quota was removed: " + chain(e), e);
        }
        Thread.sleep(50);
      }
    }
    assertFalse(admin.getCurrentSpaceQuotaSnapshot(tn) != null
        && admin.getCurrentSpaceQuotaSnapshot(tn).getQuotaStatus().isInViolation(), "violation lifted");
  }

  @Test
  void disablePolicyDisablesTheTable(TestInfo info) throws Exception {
    TableName tn = uniqueTable(info);
    Table t = createTable(tn);
    byte[] value = new byte[4096];
    new Random(2).nextBytes(value);
    for (int i = 0; i < 4; i++) {
      t.put(new Put(b("r" + i)).addColumn(CF, b("c"), value));
    }
    admin.setQuota(QuotaSettingsFactory.limitTableSpace(tn, 1024, SpaceViolationPolicy.DISABLE));
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (admin.isTableEnabled(tn)) {
      if (System.nanoTime() > deadline) {
        fail(tn + " still enabled 10 s after its DISABLE space quota was exceeded");
      }
      Thread.sleep(50);
    }
    IOException e = assertThrows(IOException.class, () -> admin.enableTable(tn));
    org.apache.hadoop.hbase.security.AccessDeniedException denied =
        causeOfType(e, org.apache.hadoop.hbase.security.AccessDeniedException.class);
    assertTrue(denied.getMessage().contains(
        "Enabling the table '" + tn + "' is disallowed due to a violated space quota."), denied.getMessage());

    admin.setQuota(QuotaSettingsFactory.removeTableSpaceLimit(tn));
    deadline = System.nanoTime() + 10_000_000_000L;
    while (!admin.isTableEnabled(tn)) {
      if (System.nanoTime() > deadline) {
        fail(tn + " still disabled 10 s after its space quota was removed");
      }
      Thread.sleep(50);
    }
    t.put(new Put(b("after")).addColumn(CF, b("c"), b("v")));
  }

  @Test
  void namespaceQuotaIsListed() throws Exception {
    admin.createNamespace(org.apache.hadoop.hbase.NamespaceDescriptor.create("spq_ns").build());
    admin.setQuota(QuotaSettingsFactory.limitNamespaceSpace("spq_ns", 1L << 30, SpaceViolationPolicy.NO_WRITES));
    List<QuotaSettings> got = admin.getQuota(new QuotaFilter().setNamespaceFilter("spq_ns"));
    assertEquals(1, got.size(), "quotas of spq_ns: " + got);
    assertEquals(QuotaType.SPACE, got.get(0).getQuotaType());
    assertEquals("spq_ns", got.get(0).getNamespace());
    SpaceQuotaSnapshotView snap = admin.getCurrentSpaceQuotaSnapshot("spq_ns");
    assertNotNull(snap, "namespace snapshot");
    assertEquals(1L << 30, snap.getLimit());
    assertFalse(snap.getQuotaStatus().isInViolation());
    admin.setQuota(QuotaSettingsFactory.removeNamespaceSpaceLimit("spq_ns"));
    assertTrue(admin.getQuota(new QuotaFilter().setNamespaceFilter("spq_ns")).isEmpty());
  }

  @Test
  void spaceQuotaOnMissingTableIsRefused() throws Exception {
    TableName missing = TableName.valueOf("spq_missing");
    IOException e = assertThrows(IOException.class, () -> admin.setQuota(
        QuotaSettingsFactory.limitTableSpace(missing, 1024, SpaceViolationPolicy.NO_INSERTS)));
    causeOfType(e, TableNotFoundException.class);
    assertTrue(admin.getQuota(new QuotaFilter().setTableFilter("spq_missing")).isEmpty());
  }
}
