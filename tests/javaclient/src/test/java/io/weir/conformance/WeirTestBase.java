package io.weir.conformance;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;

/**
 * Starts ONE Weir standalone per test class and opens one HBase {@link Connection} to it
 * (RpcConnectionRegistry, no ZooKeeper). Every test creates its own tables.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class WeirTestBase {
  static final byte[] CF = Bytes.toBytes("f");
  private static final AtomicInteger TABLE_SEQ = new AtomicInteger();

  protected WeirServer weir;
  protected Connection conn;
  protected Admin admin;

  @BeforeAll
  void startWeir() throws Exception {
    weir = WeirServer.start(getClass().getSimpleName(), serverArgs());
    try {
      conn = ConnectionFactory.createConnection(clientConf(weir));
      admin = conn.getAdmin();
    } catch (IOException | RuntimeException e) {
      weir.close();
      throw e;
    }
  }

  /** Extra {@code weir standalone} flags for this test class; none by default. */
  protected List<String> serverArgs() {
    return List.of();
  }

  @AfterAll
  void stopWeir() throws Exception {
    try {
      if (admin != null) {
        admin.close();
      }
      if (conn != null) {
        conn.close();
      }
    } finally {
      if (weir != null) {
        weir.close();
      }
    }
  }

  /** The client configuration every test uses: ZooKeeper-free, short retries and timeouts. */
  static Configuration clientConf(WeirServer weir) {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
    conf.set("hbase.client.bootstrap.servers", weir.bootstrapServers());
    conf.setInt("hbase.client.retries.number", 5);
    conf.setLong("hbase.client.pause", 50);
    conf.setInt("hbase.rpc.timeout", 10_000);
    conf.setInt("hbase.rpc.read.timeout", 10_000);
    conf.setInt("hbase.rpc.write.timeout", 10_000);
    conf.setInt("hbase.client.operation.timeout", 30_000);
    conf.setInt("hbase.client.meta.operation.timeout", 30_000);
    conf.setInt("hbase.client.scanner.timeout.period", 30_000);
    conf.setLong("hbase.client.sync.wait.timeout.msec", 60_000);
    conf.setInt("hbase.client.start.log.errors.counter", 100);
    return conf;
  }

  /** A table name unique in this JVM, readable in Weir's log: {@code <prefix>_<test method>_<n>}. */
  static TableName uniqueTable(TestInfo info, String prefix) {
    String method = info.getTestMethod().map(m -> m.getName()).orElse("t");
    return TableName.valueOf(prefix + "_" + method + "_" + TABLE_SEQ.incrementAndGet());
  }

  static TableName uniqueTable(TestInfo info) {
    return uniqueTable(info, "t");
  }

  /** Creates a table with family {@link #CF} (VERSIONS=maxVersions) and optional split keys. */
  Table createTable(TableName name, int maxVersions, byte[]... splitKeys) throws IOException {
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(name)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(CF).setMaxVersions(maxVersions).build());
    if (splitKeys.length == 0) {
      admin.createTable(b.build());
    } else {
      admin.createTable(b.build(), splitKeys);
    }
    assertTrue(admin.tableExists(name), "tableExists after createTable " + name);
    return conn.getTable(name);
  }

  Table createTable(TableName name, byte[]... splitKeys) throws IOException {
    return createTable(name, 1, splitKeys);
  }

  static byte[][] keys(String... ks) {
    byte[][] out = new byte[ks.length][];
    for (int i = 0; i < ks.length; i++) {
      out[i] = Bytes.toBytes(ks[i]);
    }
    return out;
  }

  static byte[] b(String s) {
    return Bytes.toBytes(s);
  }

  static String s(byte[] b) {
    return b == null ? null : Bytes.toString(b);
  }

  /**
   * Scans everything. Iterating a ResultScanner wraps server errors in UncheckedIOException
   * (the 2.6 client may open the scanner on the first next()); unwrap it so callers see the
   * IOException the server sent, whichever call surfaced it.
   */
  static List<Result> scanAll(Table t, Scan scan) throws IOException {
    List<Result> out = new ArrayList<>();
    try (ResultScanner rs = t.getScanner(scan)) {
      for (Result r : rs) {
        out.add(r);
      }
    } catch (java.io.UncheckedIOException e) {
      throw e.getCause();
    }
    return out;
  }

  static List<String> rowKeys(List<Result> results) {
    List<String> out = new ArrayList<>();
    for (Result r : results) {
      out.add(Bytes.toString(r.getRow()));
    }
    return out;
  }

  static int countRows(Table t) throws IOException {
    return scanAll(t, new Scan()).size();
  }

  /** Returns the first throwable of type {@code type} in the cause chain of {@code t}, or fails. */
  static <T extends Throwable> T causeOfType(Throwable t, Class<T> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
      if (c.getCause() == c) {
        break;
      }
    }
    fail("expected " + type.getName() + " in the cause chain of " + chain(t), t);
    return null; // unreachable
  }

  static String chain(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (sb.length() > 0) {
        sb.append(" <- ");
      }
      sb.append(c.getClass().getName()).append(": ").append(c.getMessage());
      if (c.getCause() == c) {
        break;
      }
    }
    return sb.toString();
  }
}
