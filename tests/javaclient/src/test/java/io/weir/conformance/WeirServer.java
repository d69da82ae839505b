package io.weir.conformance;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One Weir standalone process, started as a child of the test JVM:
 * {@code weir standalone --data DIR --bind 127.0.0.1 --port M --regionserver-port R --etcd-port E}.
 * Ready when stdout shows a line starting with {@value #READY_PREFIX}; stopped with SIGTERM.
 * Its stdout and stderr go to target/weir-logs/NAME.log (kept after the run).
 */
final class WeirServer implements AutoCloseable {
  static final String READY_PREFIX = "Weir standalone is ready";
  static final String BINARY_PROPERTY = "weir.binary";
  static final String DEFAULT_BINARY = "../../bin/weir";

  final String host = "127.0.0.1";
  final int masterPort;
  final int regionServerPort;
  final int etcdPort;
  final Path dataDir;
  final Path logFile;
  private final Process process;

  private WeirServer(Process process, int masterPort, int rsPort, int etcdPort, Path dataDir,
      Path logFile) {
    this.process = process;
    this.masterPort = masterPort;
    this.regionServerPort = rsPort;
    this.etcdPort = etcdPort;
    this.dataDir = dataDir;
    this.logFile = logFile;
  }

  /** The weir binary from -Dweir.binary (default ../../bin/weir), or a clear failure. */
  static Path binary() {
    String configured = System.getProperty(BINARY_PROPERTY);
    if (configured == null || configured.isBlank()) {
      configured = DEFAULT_BINARY;
    }
    Path bin = Paths.get(configured).toAbsolutePath().normalize();
    if (!Files.isRegularFile(bin) || !Files.isExecutable(bin)) {
      throw new IllegalStateException("weir binary not found or not executable: " + bin
          + " (set -D" + BINARY_PROPERTY + "=/path/to/weir, or run `make test-java`, which builds"
          + " bin/weir first)");
    }
    return bin;
  }

  /** Three distinct free TCP ports on 127.0.0.1, all held open together while chosen. */
  static int[] freePorts(int n) throws IOException {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      int[] ports = new int[n];
      for (int i = 0; i < n; i++) {
        ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        s.setReuseAddress(true);
        sockets.add(s);
        ports[i] = s.getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket s : sockets) {
        s.close();
      }
    }
  }

  static WeirServer start(String name) throws IOException, InterruptedException {
    return start(name, 1, List.of());
  }

  /**
   * Starts weir standalone with {@code regionServers} region servers and extra command-line
   * arguments (e.g. --quota-mode reject).
   */
  static WeirServer start(String name, int regionServers, List<String> extraArgs)
      throws IOException, InterruptedException {
    // The ports are free when chosen but not held: another process (an outgoing connection's
    // ephemeral port) can take one before weir binds it. Weir then exits at once, and a fresh
    // choice of ports is tried.
    for (int attempt = 1; ; attempt++) {
      try {
        return startOnce(name, regionServers, extraArgs);
      } catch (PortTakenException e) {
        if (attempt == 3) {
          throw e;
        }
      }
    }
  }

  /** Weir exited because a chosen port was taken before it could bind it. */
  static final class PortTakenException extends IllegalStateException {
    PortTakenException(String message) {
      super(message);
    }
  }

  private static WeirServer startOnce(String name, int regionServers, List<String> extraArgs)
      throws IOException, InterruptedException {
    Path bin = binary();
    int[] ports = freePorts(3);
    Path dataDir = Files.createTempDirectory("weir-javaclient-" + name + "-");
    Path logDir = Paths.get("target", "weir-logs").toAbsolutePath();
    Files.createDirectories(logDir);
    Path logFile = logDir.resolve(name + ".log");

    // Info ports 0: free ones, so that concurrent runs do not collide on 16010/16030.
    List<String> cmd = new ArrayList<>(List.of(bin.toString(), "standalone",
        "--regionservers", Integer.toString(regionServers),
        "--info-port", "0",
        "--regionserver-info-port", "0",
        "--data", dataDir.toString(),
        "--bind", "127.0.0.1",
        "--port", Integer.toString(ports[0]),
        "--regionserver-port", Integer.toString(ports[1]),
        "--etcd-port", Integer.toString(ports[2]),
        "--log-level", System.getProperty("weir.logLevel", "warn")));
    cmd.addAll(extraArgs);
    // Output goes straight to the log file (not through a pipe), so nothing Weir prints while
    // shutting down is lost when Process.destroy() closes the pipes.
    Files.writeString(logFile, "# " + String.join(" ", cmd) + "\n", StandardCharsets.UTF_8);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    pb.directory(dataDir.toFile());
    Process p = pb.start();

    WeirServer server = new WeirServer(p, ports[0], ports[1], ports[2], dataDir, logFile);
    long timeoutSeconds = Long.getLong("weir.startTimeoutSeconds", 60);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (!logHasReadyLine(logFile)) {
      if (!p.isAlive()) {
        server.deleteDataDir();
        String msg = "weir exited with status " + p.exitValue()
            + " before printing '" + READY_PREFIX + "'; log " + logFile + ":\n" + tail(logFile);
        if (msg.contains("address already in use")) {
          throw new PortTakenException(msg);
        }
        throw new IllegalStateException(msg);
      }
      if (System.nanoTime() > deadline) {
        server.close();
        throw new IllegalStateException("weir did not print '" + READY_PREFIX + "' within "
            + timeoutSeconds + "s; log " + logFile + ":\n" + tail(logFile));
      }
      Thread.sleep(50);
    }
    return server;
  }

  String bootstrapServers() {
    return host + ":" + masterPort;
  }

  /** SIGTERM, wait up to 30 s, then SIGKILL; removes the data directory. */
  @Override
  public void close() {
    try {
      if (process.isAlive()) {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          System.err.println("weir did not stop within 30s of SIGTERM; killing it (log " + logFile + ")");
          process.destroyForcibly();
          process.waitFor(10, TimeUnit.SECONDS);
        }
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    } finally {
      deleteDataDir();
    }
  }

  private void deleteDataDir() {
    if (Boolean.getBoolean("weir.keepData")) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dataDir)) {
      walk.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
    } catch (IOException ignored) {
      // best effort
    }
  }

  private static boolean logHasReadyLine(Path logFile) throws IOException {
    // The log may hold partial lines or non-UTF-8 bytes; decode leniently.
    String text = new String(Files.readAllBytes(logFile), StandardCharsets.UTF_8);
    for (String line : text.split("\n", -1)) {
      if (line.startsWith(READY_PREFIX)) {
        return true;
      }
    }
    return false;
  }

  static String tail(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(log unreadable: " + e + ")";
    }
  }
}
