package dev.weft.lab.scenarios.http;

import clojure.lang.IFn;
import clojure.lang.IPersistentMap;
import clojure.lang.ISeq;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;
import io.helidon.common.socket.PeerInfo;
import io.helidon.http.Header;
import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.websocket.WsRouting;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Issue 25's prototype of weft-ring's request path on Helidon SE 4.5's WebServer, the lab's
 * {@code weft-ring-helidon} server (decision 0880): the Ring request map built from Helidon's
 * {@link ServerRequest}, the Ring handler called on the connection's virtual thread, and the Ring
 * response written to its {@link ServerResponse}. It measures what the Ring mapping costs on that
 * core, beside plain Helidon ({@link PlainHelidon}) and plain Jetty, before any of weft-ring's
 * protocols move; it is not weft-ring's server and carries none of its guarantees (no limiter,
 * drain, deadlines, named threads or HTTP/2).
 *
 * <p>The request map has weft-ring's ten keys with the same values (see weft-ring's
 * {@code RequestMap}): {@code :server-port}, {@code :server-name}, {@code :remote-addr},
 * {@code :uri} (raw), {@code :query-string} (nil when absent), {@code :scheme},
 * {@code :request-method}, {@code :protocol}, {@code :headers} (lowercased, repeated names joined
 * with {@code ,}, {@code cookie} with {@code ; }) and {@code :body} (an InputStream). Response
 * bodies: String (UTF-8), byte[], an InputStream, a seq of Strings, or nil; header values a String or
 * a collection of Strings. A handler that throws, or returns anything but a response map, gets a 500
 * and the exception (or what it returned) is printed to standard error.
 */
final class RingOnHelidon {

    private static final Keyword SERVER_PORT = Keyword.intern("server-port");
    private static final Keyword SERVER_NAME = Keyword.intern("server-name");
    private static final Keyword REMOTE_ADDR = Keyword.intern("remote-addr");
    private static final Keyword URI = Keyword.intern("uri");
    private static final Keyword QUERY_STRING = Keyword.intern("query-string");
    private static final Keyword SCHEME = Keyword.intern("scheme");
    private static final Keyword REQUEST_METHOD = Keyword.intern("request-method");
    private static final Keyword PROTOCOL = Keyword.intern("protocol");
    private static final Keyword HEADERS = Keyword.intern("headers");
    private static final Keyword BODY = Keyword.intern("body");
    private static final Keyword STATUS = Keyword.intern("status");
    private static final Keyword HTTP = Keyword.intern("http");
    private static final Keyword HTTPS = Keyword.intern("https");
    private static final Keyword GET = Keyword.intern("get");
    private static final Keyword POST = Keyword.intern("post");

    private RingOnHelidon() {}

    /**
     * Starts Helidon on a free port of 127.0.0.1, every request of every method and path going to
     * {@code handler} (a Ring handler); {@link WebServer#port()} says which port, {@link WebServer#stop()} ends it.
     */
    static WebServer start(IFn handler) {
        return WebServer.builder()
                .host("127.0.0.1")
                .port(0)
                .backlog(PlainJetty.BACKLOG)
                .addProtocol(Http1Config.builder().sendKeepAliveHeader(false).build())
                .routing(r -> r.any((request, response) -> serve(handler, request, response)))
                .build()
                .start();
    }

    /**
     * Starts a second Helidon on a free port of 127.0.0.1 whose {@code /ws} upgrades to a WebSocket
     * served by the Ring listener {@code handler} answers that upgrade request with, through
     * weft-ring's own socket value ({@link RingWebSocketOnHelidon}): the {@code weft-ring-helidon-ws}
     * variant, beside Helidon's own echo ({@link PlainHelidon#startWebSocket}) and plain Jetty's.
     */
    static WebServer startWebSocket(IFn handler) {
        return WebServer.builder()
                .host("127.0.0.1")
                .port(0)
                .backlog(PlainJetty.BACKLOG)
                .addRouting(WsRouting.builder().endpoint("/ws", () -> new RingWebSocketOnHelidon(handler)))
                .build()
                .start();
    }

    private static void serve(IFn handler, ServerRequest request, ServerResponse response) throws IOException {
        Object answer;
        try {
            answer = handler.invoke(requestMap(request));
        } catch (RuntimeException e) {
            // Helidon would log it too; printed here so the prototype's 500 says why. Errors and
            // checked exceptions thrown through Clojure go on to Helidon, which logs them and answers 500.
            e.printStackTrace();
            response.status(500).send();
            return;
        }
        if (!(answer instanceof Map<?, ?> ring) || !(ring.get(STATUS) instanceof Number status)) {
            System.err.println("the Ring handler returned " + answer + ", not a response map with a :status");
            response.status(500).send();
            return;
        }
        write(ring, status.intValue(), response);
    }

    /** The Ring request map of {@code request}, an array map of its ten keys. */
    static IPersistentMap requestMap(ServerRequest request) {
        return requestMap(
                request.prologue(),
                request.headers(),
                request.localPeer(),
                request.remotePeer(),
                request.isSecure(),
                request.authority(),
                request.content().inputStream());
    }

    /**
     * The Ring request map of a request read from a connection between {@code local} and
     * {@code remote}: the request line's {@code prologue}, its {@code headers}, its {@code authority}
     * ({@code host[:port]}, null when it named none) and its {@code body}.
     */
    static IPersistentMap requestMap(
            HttpPrologue prologue,
            Headers headers,
            PeerInfo local,
            PeerInfo remote,
            boolean secure,
            String authority,
            InputStream body) {
        String path = prologue.uriPath().rawPath();
        String query = prologue.query().rawValue();
        return new PersistentArrayMap(new Object[] {
            SERVER_PORT, local.port(),
            SERVER_NAME, serverName(authority),
            REMOTE_ADDR, remote.host(),
            URI, path.isEmpty() ? "/" : path,
            QUERY_STRING, query.isEmpty() ? null : query,
            SCHEME, secure ? HTTPS : HTTP,
            REQUEST_METHOD, method(prologue.method().text()),
            PROTOCOL, prologue.rawProtocol(), // "HTTP/1.1" as the request line said it
            HEADERS, headers(headers),
            BODY, body
        });
    }

    /** The host part of the request's authority ({@code host[:port]}, or {@code [v6][:port]}). */
    private static String serverName(String authority) {
        if (authority == null) {
            return "127.0.0.1";
        }
        int colon = authority.lastIndexOf(':');
        return colon > authority.lastIndexOf(']') ? authority.substring(0, colon) : authority;
    }

    private static Keyword method(String method) {
        return switch (method) {
            case "GET" -> GET;
            case "POST" -> POST;
            default -> Keyword.intern(method.toLowerCase(java.util.Locale.ROOT));
        };
    }

    /** Lowercased names to values, a repeated name's values joined as the Ring SPEC says. */
    private static IPersistentMap headers(Headers headers) {
        Object[] kvs = new Object[2 * headers.size()];
        int len = 0;
        for (Header header : headers) {
            String name = header.headerName().lowerCase();
            String value = header.valueCount() == 1 ? header.get() : String.join(sep(name), header.allValues());
            int i = 0;
            while (i < len && !name.equals(kvs[i])) {
                i += 2;
            }
            if (i < len) {
                kvs[i + 1] = kvs[i + 1] + sep(name) + value;
            } else {
                kvs[len++] = name;
                kvs[len++] = value;
            }
        }
        return new PersistentArrayMap(len == kvs.length ? kvs : java.util.Arrays.copyOf(kvs, len));
    }

    private static String sep(String name) {
        return "cookie".equals(name) ? "; " : ",";
    }

    private static void write(Map<?, ?> ring, int status, ServerResponse response) throws IOException {
        response.status(status);
        if (ring.get(HEADERS) instanceof Map<?, ?> headers) {
            for (Map.Entry<?, ?> h : headers.entrySet()) {
                String name = h.getKey().toString();
                if (h.getValue() instanceof java.util.Collection<?> values) {
                    // One call with every value: a call per value would replace the one before.
                    response.header(name, values.stream().map(String::valueOf).toArray(String[]::new));
                } else if (h.getValue() != null) {
                    response.header(name, h.getValue().toString());
                }
            }
        }
        Object body = ring.get(BODY);
        switch (body) {
            case null -> response.send();
            case String s -> response.send(s.getBytes(StandardCharsets.UTF_8));
            case byte[] bytes -> response.send(bytes);
            case InputStream in -> {
                try (in;
                        OutputStream out = response.outputStream()) {
                    in.transferTo(out);
                }
            }
            case ISeq seq -> {
                try (OutputStream out = response.outputStream()) {
                    for (ISeq s = seq; s != null; s = s.next()) {
                        out.write(String.valueOf(s.first()).getBytes(StandardCharsets.UTF_8));
                        out.flush();
                    }
                }
            }
            default ->
                throw new IllegalArgumentException(
                        "a Ring body of " + body.getClass().getName()
                                + " is not one this prototype writes (String, byte[], InputStream, a seq, or nil)");
        }
    }
}
