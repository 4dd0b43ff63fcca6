package org.scholarkg.neo4j;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;

/**
 * Runs one Neo4j DBMS for scholarkg: Bolt on 127.0.0.1 only, auth on, GDS and APOC loaded
 * from a plugin directory, data under a directory scholarkg owns.
 *
 * <p>Why an embedded DBMS and not the Neo4j distribution: the distribution is a tarball from
 * Neo4j's download site, which the machines this project targets cannot reach; the same
 * kernel, Bolt server and procedure loader are published on Maven Central, and this class is
 * all that is needed to run them as a server. The Python side
 * ({@code scholarkg/store/neo4j/server.py}) builds this project, starts this class, waits for
 * the readiness line and stops it with SIGTERM.
 *
 * <p>Arguments: {@code --home DIR --port N --password-file FILE --plugins DIR --config FILE}
 * [{@code --pagecache SIZE}] [{@code --heap-guard SHARE}] [{@code --overrun-guard SECONDS}]
 * [{@code --gds-catalogue SHARE}] (the {@link ServerGuard}'s rules; 0 or absent: off)
 * [{@code --http-port N}] [{@code --browser-port N}] (Neo4j Browser on
 * 127.0.0.1, {@link BrowserServer}) [{@code --guide-dir DIR}] (the Browser guide's files).
 *
 * <p>{@code --config} is a {@code neo4j.conf}-style file the Python side writes at every start:
 * the security settings (import directory, procedure allow-list, no outgoing connections) and
 * the transaction limits live there, in one place a user can read, and are documented in
 * {@code docs/backends.md}. What this class sets itself (Bolt address, auth, plugin dir) comes
 * after it and cannot be overridden by it. The password is read from a file (mode
 * 600) so that it never appears in a process list; on every start the {@code neo4j} user's
 * password is set to it in the system database, before the launcher reports ready.
 */
public final class Launcher {
    private Launcher() {}

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = parse(argv);
        Path home = Path.of(require(args, "--home")).toAbsolutePath();
        int port = Integer.parseInt(require(args, "--port"));
        Path passwordFile = Path.of(require(args, "--password-file"));
        Path plugins = Path.of(require(args, "--plugins")).toAbsolutePath();
        String password = Files.readString(passwordFile, StandardCharsets.UTF_8).strip();
        if (password.length() < 8) {
            throw new IllegalArgumentException(passwordFile + ": password shorter than 8 characters");
        }

        Path config = Path.of(require(args, "--config")).toAbsolutePath();
        DatabaseManagementServiceBuilder builder = new DatabaseManagementServiceBuilder(home)
                // security and limits first (see the class comment), then what only we decide
                .loadPropertiesFromFile(config)
                .setConfig(GraphDatabaseSettings.auth_enabled, true)
                .setConfig(GraphDatabaseSettings.plugin_dir, plugins)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port));
        String pagecache = args.get("--pagecache");
        if (pagecache != null) {
            builder.setConfig(GraphDatabaseSettings.pagecache_memory, bytes(pagecache));
        }
        String httpPort = args.get("--http-port");
        if (httpPort != null) {
            builder.setConfig(HttpConnector.enabled, true)
                    .setConfig(HttpConnector.listen_address, new SocketAddress("127.0.0.1", Integer.parseInt(httpPort)));
        }
        DatabaseManagementService dbms = builder.build();
        new ServerGuard(dbms, share(args, "--heap-guard"), share(args, "--overrun-guard"),
                share(args, "--gds-catalogue")).install();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            dbms.shutdown();
            stopped.countDown();
        }, "scholarkg-shutdown"));
        try {
            setPassword(dbms.database("system"), password);
        } catch (RuntimeException e) {
            // the DBMS's own threads would keep the JVM alive: exit, so the caller sees it
            e.printStackTrace();
            System.exit(1);
        }
        String browserPort = args.get("--browser-port");
        if (browserPort != null) {
            try {
                String guideDir = args.get("--guide-dir");
                BrowserServer.start(Integer.parseInt(browserPort), port,
                        guideDir == null ? null : Path.of(guideDir).toAbsolutePath());
            } catch (IOException | RuntimeException e) {
                e.printStackTrace();  // e.g. the port is taken: exit, as above
                System.exit(1);
            }
        }
        // one line the Python side waits for; never the password
        System.out.println("SCHOLARKG-NEO4J-READY bolt://127.0.0.1:" + port);
        System.out.flush();
        stopped.await();
    }

    /** The neo4j user's password := the file's (Neo4j refuses to "change" it to itself). */
    private static void setPassword(GraphDatabaseService system, String password) {
        Map<String, Object> params = new HashMap<>();
        params.put("password", password);
        try {
            system.executeTransactionally(
                    "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED", params);
        } catch (RuntimeException e) {
            String message = String.valueOf(e.getMessage());
            if (!message.contains("Old password and new password cannot be the same")) {
                throw e;
            }
        }
    }

    /** A number argument, 0 when absent. */
    private static double share(Map<String, String> args, String name) {
        String value = args.get(name);
        return value == null ? 0 : Double.parseDouble(value);
    }

    /** "512m", "2g", "1048576" to bytes. */
    static long bytes(String text) {
        String t = text.strip().toLowerCase();
        long unit = switch (t.isEmpty() ? ' ' : t.charAt(t.length() - 1)) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            default -> 1L;
        };
        String digits = unit == 1L ? t : t.substring(0, t.length() - 1);
        return Long.parseLong(digits) * unit;
    }

    private static Map<String, String> parse(String[] argv) {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < argv.length; i++) {
            if (!argv[i].startsWith("--") || i + 1 >= argv.length) {
                throw new IllegalArgumentException("expected --name value pairs, got " + argv[i]);
            }
            out.put(argv[i], argv[++i]);
        }
        return out;
    }

    private static String require(Map<String, String> args, String name) throws IOException {
        String value = args.get(name);
        if (value == null) {
            throw new IllegalArgumentException("missing " + name);
        }
        return value;
    }
}
