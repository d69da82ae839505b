package io.weir.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.quotas.RpcThrottlingException;
import org.apache.hadoop.hbase.quotas.ThrottleType;
import org.apache.hadoop.hbase.security.User;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Reject mode (HBase's behaviour): a throttled call fails at once with RpcThrottlingException
 * whose message carries the wait hint, and the real HBase client backs off for about that hint
 * and then succeeds, where its generic backoff (3 attempts 10 ms apart) would have given up.
 */
class QuotaRejectModeTest extends WeirTestBase {

  @Override
  protected List<String> weirArgs() {
    return List.of("--quota-mode", "reject");
  }

  /** A connection with the given retries and a 10 ms pause. */
  private Connection connection(int retries) throws Exception {
    Configuration conf = clientConf(weir);
    conf.setInt("hbase.client.retries.number", retries);
    conf.setLong("hbase.client.pause", 10);
    return ConnectionFactory.createConnection(conf);
  }

  @Test
  void clientBacksOffOnTheWaitHint(TestInfo info) throws Exception {
    TableName name = uniqueTable(info);
    try (Table t = createTable(name)) {
      t.put(new Put(b("r")).addColumn(CF, b("q"), b("v")));
    }
    String user = User.getCurrent().getShortName();
    admin.setQuota(QuotaSettingsFactory.throttleUser(user, ThrottleType.READ_NUMBER, 1, TimeUnit.SECONDS));
    try {
      // Without retries the exception itself comes back: HBase's class, a hint in (0, 1s].
      try (Connection c = connection(0); Table t = c.getTable(name)) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        RpcThrottlingException te = null;
        while (te == null && System.nanoTime() < deadline) {
          try {
            t.get(new Get(b("r")));
          } catch (Exception e) {
            te = causeOfType(e, RpcThrottlingException.class);
          }
        }
        assertTrue(te != null, "no RpcThrottlingException within 5 s of setQuota");
        assertEquals(RpcThrottlingException.Type.NumReadRequestsExceeded, te.getType(), te.getMessage());
        assertTrue(te.getMessage().contains(" - wait "), te.getMessage());
        assertTrue(te.getWaitInterval() > 0 && te.getWaitInterval() <= 1000, "wait hint " + te.getWaitInterval());
      }
      // With 2 retries 10 ms apart the client only succeeds by sleeping the ~1 s hint.
      try (Connection c = connection(2); Table t = c.getTable(name)) {
        for (int i = 0; i < 3; i++) {
          long start = System.nanoTime();
          byte[] v = t.get(new Get(b("r"))).getValue(CF, b("q"));
          long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
          assertArrayEquals(b("v"), v);
          if (i > 0) {
            assertTrue(ms >= 500 && ms <= 3000, "get " + i + " took " + ms + " ms; want about the 1 s hint");
          }
        }
      }
      // A generic backoff gives up: with the hint longer than the operation timeout the client
      // fails fast instead of sleeping.
      Configuration conf = clientConf(weir);
      conf.setInt("hbase.client.operation.timeout", 200);
      conf.setInt("hbase.rpc.timeout", 200);
      admin.setQuota(QuotaSettingsFactory.throttleUser(user, ThrottleType.READ_NUMBER, 1, TimeUnit.MINUTES));
      try (Connection c = ConnectionFactory.createConnection(conf); Table t = c.getTable(name)) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        Exception failed = null;
        while (failed == null && System.nanoTime() < deadline) {
          try {
            t.get(new Get(b("r")));
          } catch (Exception e) {
            failed = e;
          }
        }
        Exception f = failed;
        assertTrue(f != null, "a 1 req/min throttle never failed");
        causeOfType(f, RpcThrottlingException.class);
      }
    } finally {
      admin.setQuota(QuotaSettingsFactory.unthrottleUser(user));
    }
  }
}
