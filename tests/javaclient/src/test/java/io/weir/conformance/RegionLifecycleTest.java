package io.weir.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.exceptions.MergeRegionException;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The region lifecycle through the unmodified client: it keeps reading and writing while regions
 * split, move between region servers and merge (it follows the new layout through hbase:meta), and
 * gets HBase's exceptions for bad requests, which change nothing.
 */
class RegionLifecycleTest extends WeirTestBase {
  @Override
  int regionServers() {
    return 2;
  }

  /** Writes unique rows from a background thread, remembering every acknowledged one. */
  private static final class Writer implements AutoCloseable {
    final Map<String, String> acked = new ConcurrentHashMap<>();
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    final Thread thread;

    Writer(Table t) {
      thread = new Thread(() -> {
        for (int i = 0; !stop.get(); i++) {
          String row = (char) ('a' + i % 26) + "-" + String.format("%06d", i);
          String val = "v" + i;
          try {
            t.put(new Put(b(row)).addColumn(CF, b("q"), b(val)));
            acked.put(row, val);
          } catch (Throwable e) {
            failure.compareAndSet(null, e);
          }
        }
      });
      thread.start();
    }

    @Override
    public void close() throws InterruptedException {
      stop.set(true);
      thread.join(TimeUnit.SECONDS.toMillis(30));
    }
  }

  private static void checkAcked(Table t, Writer w) throws Exception {
    assertTrue(w.acked.size() > 0, "no write was acknowledged");
    for (Map.Entry<String, String> e : w.acked.entrySet()) {
      Result r = t.get(new Get(b(e.getKey())));
      assertEquals(e.getValue(), s(r.getValue(CF, b("q"))), "acknowledged row " + e.getKey());
    }
  }

  private ServerName serverOf(TableName name, String row) throws Exception {
    try (RegionLocator loc = conn.getRegionLocator(name)) {
      return loc.getRegionLocation(b(row), true).getServerName();
    }
  }

  private ServerName otherServer(ServerName current) throws Exception {
    for (ServerName sn : admin.getRegionServers()) {
      if (!sn.getAddress().equals(current.getAddress())) {
        return sn;
      }
    }
    throw new AssertionError("only one region server");
  }

  @Test
  void clientFollowsSplitMoveAndMerge(TestInfo info) throws Exception {
    TableName name = uniqueTable(info, "life");
    try (Table t = createTable(name)) {
      Writer w = new Writer(t);
      try {
        Thread.sleep(300);
        // split: the client sees two daughters and keeps writing.
        admin.split(name, b("m"));
        List<RegionInfo> regions = admin.getRegions(name);
        assertEquals(2, regions.size(), "regions after split " + regions);
        assertArrayEquals(b("m"), regions.get(0).getEndKey());
        Thread.sleep(300);

        // move the upper daughter to the other region server.
        RegionInfo upper = admin.getRegions(name).get(1);
        ServerName from = serverOf(name, "z");
        ServerName to = otherServer(from);
        admin.move(upper.getEncodedNameAsBytes(), to);
        assertEquals(to.getAddress(), serverOf(name, "z").getAddress(), "region server after move");
        Thread.sleep(300);

        // merge the two (on different servers now: Weir brings them together).
        List<RegionInfo> two = admin.getRegions(name);
        admin.mergeRegionsAsync(new byte[][] {two.get(0).getEncodedNameAsBytes(),
            two.get(1).getEncodedNameAsBytes()}, false).get(60, TimeUnit.SECONDS);
        assertEquals(1, admin.getRegions(name).size(), "regions after merge");
        Thread.sleep(300);
      } finally {
        w.close();
      }
      if (w.failure.get() != null) {
        throw new AssertionError("a write failed across split/move/merge: " + chain(w.failure.get()),
            w.failure.get());
      }
      checkAcked(t, w);
    }
  }

  @Test
  void badLifecycleRequestsFailAndChangeNothing(TestInfo info) throws Exception {
    TableName name = uniqueTable(info, "lifebad");
    TableName other = uniqueTable(info, "lifebad2");
    try (Table t = createTable(name, keys("g", "p")); Table t2 = createTable(other)) {
      t.put(new Put(b("k")).addColumn(CF, b("q"), b("v")));
      List<RegionInfo> before = admin.getRegions(name);
      RegionInfo mid = before.get(1);

      // move to a region server that does not exist.
      Exception e = assertThrows(Exception.class,
          () -> admin.move(mid.getEncodedNameAsBytes(), ServerName.valueOf("127.0.0.1", 1, 1L)));
      causeOfType(e, DoNotRetryIOException.class);

      // split at a key outside the region.
      e = assertThrows(Exception.class,
          () -> admin.splitRegionAsync(mid.getRegionName(), b("z")).get(30, TimeUnit.SECONDS));
      assertTrue(chain(e).contains("outside region"), chain(e));
      causeOfType(e, DoNotRetryIOException.class);

      // split at the region's start key (the client refuses it itself).
      assertThrows(Exception.class, () -> admin.split(name, b("g")));

      // merge regions that are not adjacent.
      e = assertThrows(Exception.class, () -> admin.mergeRegionsAsync(new byte[][] {
          before.get(0).getEncodedNameAsBytes(), before.get(2).getEncodedNameAsBytes()}, false)
          .get(30, TimeUnit.SECONDS));
      causeOfType(e, MergeRegionException.class);

      // merge regions of different tables (the client refuses it itself).
      RegionInfo foreign = admin.getRegions(other).get(0);
      assertThrows(Exception.class, () -> admin.mergeRegionsAsync(new byte[][] {
          before.get(2).getEncodedNameAsBytes(), foreign.getEncodedNameAsBytes()}, false)
          .get(30, TimeUnit.SECONDS));

      List<RegionInfo> after = admin.getRegions(name);
      assertEquals(before.size(), after.size(), "bad requests changed the regions");
      for (int i = 0; i < before.size(); i++) {
        assertArrayEquals(before.get(i).getRegionName(), after.get(i).getRegionName());
      }
      assertEquals("v", s(t.get(new Get(b("k"))).getValue(CF, b("q"))));
    }
  }
}
