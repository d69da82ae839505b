package io.weir.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.quotas.ThrottleType;
import org.apache.hadoop.hbase.security.User;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Queue mode (Weir's default): an over-limit call waits on the server for its tokens instead of
 * failing, so a client with no retries at all sees no failure and runs at the limit.
 */
class QuotaQueueModeTest extends WeirTestBase {

  @Test
  void throttledClientSeesNoFailures(TestInfo info) throws Exception {
    TableName name = uniqueTable(info);
    try (Table t = createTable(name)) {
      t.put(new Put(b("r")).addColumn(CF, b("q"), b("v")));
    }
    String user = User.getCurrent().getShortName();
    admin.setQuota(QuotaSettingsFactory.throttleUser(user, ThrottleType.READ_NUMBER, 50, TimeUnit.SECONDS));
    Configuration conf = clientConf(weir);
    conf.setInt("hbase.client.retries.number", 0);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try (Connection c = ConnectionFactory.createConnection(conf)) {
      Thread.sleep(200); // enforced within 1 s of setQuota, measured well under
      AtomicInteger ok = new AtomicInteger();
      List<Future<?>> fs = new ArrayList<>();
      long start = System.nanoTime();
      for (int th = 0; th < 4; th++) {
        fs.add(pool.submit(() -> {
          try (Table t = c.getTable(name)) {
            for (int i = 0; i < 40; i++) {
              t.get(new Get(b("r")));
              ok.incrementAndGet();
            }
          }
          return null;
        }));
      }
      for (Future<?> f : fs) {
        f.get(60, TimeUnit.SECONDS); // any exception (a throttle included) fails the test
      }
      double secs = (System.nanoTime() - start) / 1e9;
      assertEquals(160, ok.get());
      // 160 gets at 50/s with a full bucket of 50 to start: at least (160-50)/50 = 2.2 s.
      assertTrue(secs >= 2.0 && secs <= 6.0, "160 gets took " + secs + " s; want about 2.2 s");
    } finally {
      pool.shutdownNow();
      admin.setQuota(QuotaSettingsFactory.unthrottleUser(user));
    }
  }
}
