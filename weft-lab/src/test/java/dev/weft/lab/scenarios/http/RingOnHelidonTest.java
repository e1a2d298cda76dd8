package dev.weft.lab.scenarios.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import clojure.lang.AFn;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;
import clojure.lang.PersistentVector;
import clojure.lang.RT;
import io.helidon.webserver.WebServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RingOnHelidon}, issue 25's prototype, over real HTTP/1.1 on 127.0.0.1: the Ring request map
 * it builds (weft-ring's ten keys and values), the response it writes (status, repeated headers, a
 * seq body), and a 500 for a handler that throws or returns no response map.
 */
class RingOnHelidonTest {

    private WebServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    private static Keyword k(String name) {
        return Keyword.intern(name);
    }

    @Test
    void buildsTheRingRequestMapAndWritesTheResponse() throws IOException {
        AtomicReference<Map<?, ?>> seen = new AtomicReference<>();
        AtomicReference<String> body = new AtomicReference<>();
        server = RingOnHelidon.start(new AFn() {
            @Override
            public Object invoke(Object request) {
                Map<?, ?> req = (Map<?, ?>) request;
                seen.set(req);
                try {
                    body.set(new String(((InputStream) req.get(k("body"))).readAllBytes(), StandardCharsets.UTF_8));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                return PersistentArrayMap.createAsIfByAssoc(new Object[] {
                    k("status"), 201,
                    k("headers"),
                            PersistentArrayMap.createAsIfByAssoc(new Object[] {
                                "X-Many", PersistentVector.create("a", "b"), "Content-Type", "text/plain"
                            }),
                    k("body"), RT.seq(PersistentVector.create("one", "two"))
                });
            }
        });
        ReferenceCoresTest.Response r =
                send("POST /p%20a?x=1&y=2 HTTP/1.1\r\nHost: example.test:9\r\nX-A: 1\r\nX-A: 2\r\n"
                        + "Cookie: a=1\r\nCookie: b=2\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc");

        Map<?, ?> req = seen.get();
        assertEquals(server.port(), req.get(k("server-port")));
        assertEquals("example.test", req.get(k("server-name")));
        assertEquals("127.0.0.1", req.get(k("remote-addr")));
        assertEquals("/p%20a", req.get(k("uri")), "the raw path");
        assertEquals("x=1&y=2", req.get(k("query-string")));
        assertEquals(k("http"), req.get(k("scheme")));
        assertEquals(k("post"), req.get(k("request-method")));
        assertEquals("HTTP/1.1", req.get(k("protocol")));
        Map<?, ?> headers = (Map<?, ?>) req.get(k("headers"));
        assertEquals("1,2", headers.get("x-a"), "a repeated header joined with a comma");
        assertEquals("a=1; b=2", headers.get("cookie"), "cookies joined as one Cookie header");
        assertEquals("example.test:9", headers.get("host"));
        assertEquals("abc", body.get());

        assertEquals("HTTP/1.1 201 Created", r.statusLine());
        assertTrue(
                r.headers().contains("X-Many: a") && r.headers().contains("X-Many: b"),
                r.headers().toString());
        assertTrue(r.headers().contains("Content-Type: text/plain"), r.headers().toString());
        assertEquals("onetwo", new String(r.body(), StandardCharsets.UTF_8), "each element of the seq, in order");
    }

    @Test
    void noQueryIsNilAndAnEmptyBodyIsAnEmptyStream() throws IOException {
        AtomicReference<Map<?, ?>> seen = new AtomicReference<>();
        server = RingOnHelidon.start(new AFn() {
            @Override
            public Object invoke(Object request) {
                seen.set((Map<?, ?>) request);
                return PersistentArrayMap.createAsIfByAssoc(new Object[] {k("status"), 204});
            }
        });
        assertEquals(
                "HTTP/1.1 204 No Content",
                send("GET /x HTTP/1.1\r\nHost: h\r\n\r\n").statusLine());
        assertNull(seen.get().get(k("query-string")));
        assertEquals(k("get"), seen.get().get(k("request-method")));
        assertEquals("h", seen.get().get(k("server-name")));
    }

    @Test
    void aHandlerThatThrowsOrAnswersNoResponseMapGets500() throws IOException {
        server = RingOnHelidon.start(new AFn() {
            @Override
            public Object invoke(Object request) {
                if ("/throw".equals(((Map<?, ?>) request).get(k("uri")))) {
                    throw new IllegalStateException("the handler failed on purpose");
                }
                return "not a response map";
            }
        });
        assertEquals(
                "HTTP/1.1 500 Internal Server Error",
                send("GET /throw HTTP/1.1\r\nHost: h\r\n\r\n").statusLine());
        assertEquals(
                "HTTP/1.1 500 Internal Server Error",
                send("GET /string HTTP/1.1\r\nHost: h\r\n\r\n").statusLine());
    }

    private ReferenceCoresTest.Response send(String request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(30_000); // a hang guard, not a speed bound
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return ReferenceCoresTest.read(socket.getInputStream());
        }
    }
}
