package org.scholarkg.neo4j;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.concurrent.Executors;

/**
 * Serves Neo4j Browser (the static web app of {@code org.neo4j.client:neo4j-browser}, on the
 * class path under {@code browser/}) on 127.0.0.1, with the discovery document the Browser
 * reads at {@code /} to find the Bolt address.
 *
 * <p>Why this and not Neo4j's HTTP connector: the embedded DBMS has no web server (that lives
 * in the server distribution, which the project's machines cannot download). The Browser is a
 * client: it talks to Bolt itself (over a WebSocket on the Bolt port) with the user's
 * credentials, so this server hands out static files only and needs no auth of its own; it
 * listens on loopback only, like Bolt.
 *
 * <p>It also serves the scholarkg guide under {@code /guide/} from a directory the Python side
 * writes at every start ({@code scholarkg/store/neo4j/browser_guide.py}: the saved queries as
 * runnable snippets, and a style sheet). The Browser only fetches guides and style sheets from
 * hosts on its {@code browser.remote_content_hostname_whitelist}, which the launcher's settings
 * file limits to this loopback address.
 *
 * <p>Every response carries a Content-Security-Policy that lets the page connect to this server
 * and the Bolt port only: the Browser app also asks for web fonts, a feedback widget and
 * product-analytics endpoints on the internet, which the user never opted into (and which an
 * offline machine cannot reach); the browser engine now refuses them before any request.
 */
final class BrowserServer {
    private static final Map<String, String> TYPES = Map.ofEntries(
            Map.entry("html", "text/html; charset=utf-8"),
            Map.entry("js", "text/javascript; charset=utf-8"),
            Map.entry("css", "text/css; charset=utf-8"),
            Map.entry("json", "application/json"),
            Map.entry("svg", "image/svg+xml"),
            Map.entry("png", "image/png"),
            Map.entry("ico", "image/x-icon"),
            Map.entry("woff", "font/woff"),
            Map.entry("woff2", "font/woff2"),
            Map.entry("ttf", "font/ttf"),
            Map.entry("eot", "application/vnd.ms-fontobject"),
            Map.entry("mp4", "video/mp4"),
            Map.entry("txt", "text/plain; charset=utf-8"),
            Map.entry("xml", "application/xml"),
            Map.entry("grass", "text/plain; charset=utf-8"));
    /** A guide file name: one path segment, no dot-files, nothing to traverse with. */
    private static final Pattern GUIDE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]*\\.(html|grass)");

    private BrowserServer() {}

    static HttpServer start(int port, int boltPort, Path guideDir) throws IOException {
        HttpServer server = HttpServer.create(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        String discovery = "{\"bolt_direct\":\"bolt://127.0.0.1:" + boltPort + "\","
                + "\"bolt_routing\":\"neo4j://127.0.0.1:" + boltPort + "\","
                + "\"neo4j_edition\":\"community\"}";
        String self = "http://127.0.0.1:" + port + " http://localhost:" + port;
        String csp = "default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval'; "
                + "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; "
                + "worker-src 'self' blob:; frame-src 'self'; object-src 'none'; base-uri 'self'; "
                + "connect-src 'self' " + self + " ws://127.0.0.1:" + boltPort + " ws://localhost:" + boltPort
                // the app also asks the Bolt address for a discovery document over HTTP
                + " http://127.0.0.1:" + boltPort + " http://localhost:" + boltPort;
        server.createContext("/", exchange -> {
            try (exchange) {
                exchange.getResponseHeaders().set("Content-Security-Policy", csp);
                handle(exchange, discovery, guideDir);
            }
        });
        server.setExecutor(Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "scholarkg-browser");
            t.setDaemon(true);
            return t;
        }));
        server.start();
        return server;
    }

    private static void handle(HttpExchange exchange, String discovery, Path guideDir) throws IOException {
        String method = exchange.getRequestMethod();
        if (!method.equals("GET") && !method.equals("HEAD")) {
            send(exchange, 405, "text/plain; charset=utf-8", "GET only\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        String path = exchange.getRequestURI().getPath();
        if (path.equals("/")) {
            String accept = String.valueOf(exchange.getRequestHeaders().getFirst("Accept"));
            if (accept.contains("application/json")) {
                send(exchange, 200, "application/json", discovery.getBytes(StandardCharsets.UTF_8));
            } else {
                exchange.getResponseHeaders().set("Location", "/browser/");
                send(exchange, 303, "text/plain; charset=utf-8", new byte[0]);
            }
            return;
        }
        if (path.startsWith("/guide/")) {
            String name = path.substring("/guide/".length());
            Path file = guideDir == null || !GUIDE_NAME.matcher(name).matches() ? null : guideDir.resolve(name);
            if (file == null || !Files.isRegularFile(file)) {
                send(exchange, 404, "text/plain; charset=utf-8", "not found\n".getBytes(StandardCharsets.UTF_8));
                return;
            }
            String ext = name.substring(name.lastIndexOf('.') + 1);
            send(exchange, 200, TYPES.get(ext), Files.readAllBytes(file));
            return;
        }
        if (path.equals("/browser")) {
            exchange.getResponseHeaders().set("Location", "/browser/");
            send(exchange, 303, "text/plain; charset=utf-8", new byte[0]);
            return;
        }
        if (!path.startsWith("/browser/") || path.contains("..") || path.contains("//")) {
            send(exchange, 404, "text/plain; charset=utf-8", "not found\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        String name = path.substring(1);
        if (name.endsWith("/")) {
            name += "index.html";
        }
        try (InputStream in = BrowserServer.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                send(exchange, 404, "text/plain; charset=utf-8", "not found\n".getBytes(StandardCharsets.UTF_8));
                return;
            }
            String ext = name.substring(name.lastIndexOf('.') + 1);
            send(exchange, 200, TYPES.getOrDefault(ext, "application/octet-stream"), in.readAllBytes());
        }
    }

    private static void send(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head || body.length == 0 ? -1 : body.length);
        if (!head && body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
