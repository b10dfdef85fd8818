import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.io.InputStream;
import java.net.InetSocketAddress;

/**
 * Test-only MongoDB wire server: an in-memory mongo-java-server on 127.0.0.1 and a free port.
 * Prints exactly one line, "LISTENING <port>", then serves until stdin closes (the parent test
 * process died or let go) or the JVM gets SIGTERM. Nothing is persisted.
 * Argument "--oplog" enables mongo-java-server's oplog (needed for change streams).
 */
public final class MongoLauncher {
  public static void main(String[] args) throws Exception {
    MongoServer server = new MongoServer(new MemoryBackend());
    if (java.util.Arrays.asList(args).contains("--oplog")) {
      server.enableOplog();
    }
    server.bind("127.0.0.1", 0);
    InetSocketAddress address = server.getLocalAddress();
    // SIGTERM runs shutdown hooks; the stdin watcher below exits the same way.
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow, "mongo-shutdown"));
    System.out.println("LISTENING " + address.getPort());
    System.out.flush();

    InputStream in = System.in;
    byte[] buffer = new byte[256];
    while (in.read(buffer) != -1) {
      // Ignore input; only end-of-stream matters.
    }
    System.exit(0);
  }
}
