package dev.weft.lab.scenarios.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import clojure.lang.AFn;
import clojure.lang.IFn;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;
import dev.weft.ring.RingWebSocket;
import io.helidon.webserver.WebServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RingWebSocketOnHelidon}, issue 25's prototype of weft-ring's WebSocket on Helidon, over real
 * WebSockets on 127.0.0.1 (the JDK's client): the lab's own echo listener (the one
 * {@code weft-ring-ws} measures) sends text, a fragmented text and a binary message back whole and
 * in order, and pings get pongs; a listener's events come in order with weft-ring's socket value and
 * the close code; a handler that names no listener gets the socket closed with 1011.
 */
class RingWebSocketOnHelidonTest {

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

    /** What a client saw: each text or binary message, pong and close, as a string, in order. */
    private static final class Seen implements WebSocket.Listener {
        final BlockingQueue<String> events = new LinkedBlockingQueue<>();
        private final StringBuilder text = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                events.add("text " + text);
                text.setLength(0);
            }
            w.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket w, ByteBuffer data, boolean last) {
            byte[] b = new byte[data.remaining()];
            data.get(b);
            events.add("binary " + new String(b, StandardCharsets.UTF_8) + (last ? "" : " (part)"));
            w.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onPong(WebSocket w, ByteBuffer data) {
            events.add("pong " + StandardCharsets.UTF_8.decode(data));
            w.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket w, int code, String reason) {
            events.add("close " + code);
            return null;
        }

        String next() throws InterruptedException {
            String e = events.poll(30, TimeUnit.SECONDS);
            assertTrue(e != null, "the server sent nothing within 30 s");
            return e;
        }
    }

    private WebSocket connect(HttpClient client, Seen seen) throws Exception {
        return client.newWebSocketBuilder()
                .buildAsync(URI.create("ws://127.0.0.1:" + server.port() + "/ws"), seen)
                .get(30, TimeUnit.SECONDS);
    }

    @Test
    void theLabsEchoListenerSendsEachMessageBackWholeAndInOrder() throws Exception {
        clojure.java.api.Clojure.var("clojure.core", "require").invoke(clojure.java.api.Clojure.read("weft.lab.http"));
        var handler = (clojure.lang.IDeref) clojure.java.api.Clojure.var("weft.lab.http", "handler");
        server = RingOnHelidon.startWebSocket((IFn) handler.deref());
        Seen seen = new Seen();
        try (HttpClient client = HttpClient.newHttpClient()) {
            WebSocket socket = connect(client, seen);
            socket.sendText("one", true).get(30, TimeUnit.SECONDS);
            socket.sendText("two", true).get(30, TimeUnit.SECONDS);
            // Three frames of one message: Ring's listener gets it whole.
            socket.sendText("a".repeat(30_000), false).get(30, TimeUnit.SECONDS);
            socket.sendText("b".repeat(30_000), false).get(30, TimeUnit.SECONDS);
            socket.sendText("c".repeat(10_000), true).get(30, TimeUnit.SECONDS);
            socket.sendBinary(ByteBuffer.wrap("bytes".getBytes(StandardCharsets.UTF_8)), true)
                    .get(30, TimeUnit.SECONDS);
            socket.sendPing(ByteBuffer.wrap("are you there".getBytes(StandardCharsets.UTF_8)))
                    .get(30, TimeUnit.SECONDS);
            assertEquals("text one", seen.next());
            assertEquals("text two", seen.next());
            assertEquals("text " + "a".repeat(30_000) + "b".repeat(30_000) + "c".repeat(10_000), seen.next());
            assertEquals("binary bytes", seen.next(), "a binary message comes back as one binary message");
            assertEquals("pong are you there", seen.next());
            socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(30, TimeUnit.SECONDS);
            assertEquals("close 1000", seen.next());
        }
    }

    @Test
    void aListenersEventsComeInOrderWithWeftRingsSocketAndTheCloseCode() throws Exception {
        BlockingQueue<Object> calls = new LinkedBlockingQueue<>();
        IFn onOpen = new AFn() {
            @Override
            public Object invoke(Object socket) {
                calls.add("open " + ((RingWebSocket) socket).isOpen());
                return null;
            }
        };
        IFn onMessage = new AFn() {
            @Override
            public Object invoke(Object socket, Object message) {
                calls.add("message " + message);
                try {
                    ((RingWebSocket) socket).send("got " + message);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                return null;
            }
        };
        IFn onClose = new AFn() {
            @Override
            public Object invoke(Object socket, Object code, Object reason) {
                calls.add("close " + code + " " + reason + " " + ((RingWebSocket) socket).isOpen());
                return null;
            }
        };
        Object listener = PersistentArrayMap.createAsIfByAssoc(
                new Object[] {k("on-open"), onOpen, k("on-message"), onMessage, k("on-close"), onClose});
        BlockingQueue<Map<?, ?>> requests = new LinkedBlockingQueue<>();
        server = RingOnHelidon.startWebSocket(new AFn() {
            @Override
            public Object invoke(Object request) {
                requests.add((Map<?, ?>) request);
                return PersistentArrayMap.createAsIfByAssoc(
                        new Object[] {Keyword.intern("ring.websocket", "listener"), listener});
            }
        });
        Seen seen = new Seen();
        try (HttpClient client = HttpClient.newHttpClient()) {
            WebSocket socket = connect(client, seen);
            for (String m : List.of("1", "2", "3")) {
                socket.sendText(m, true).get(30, TimeUnit.SECONDS);
            }
            assertEquals("text got 1", seen.next());
            assertEquals("text got 2", seen.next());
            assertEquals("text got 3", seen.next());
            socket.sendClose(4001, "bye").get(30, TimeUnit.SECONDS);
            // Helidon answers every close with 1000 (RFC 6455 lets it); the listener gets the client's code.
            assertEquals("close 1000", seen.next());
        }
        assertEquals("open true", calls.poll(30, TimeUnit.SECONDS));
        for (String m : List.of("1", "2", "3")) {
            assertEquals("message " + m, calls.poll(30, TimeUnit.SECONDS));
        }
        assertEquals("close 4001 bye false", calls.poll(30, TimeUnit.SECONDS));
        Map<?, ?> request = requests.poll(30, TimeUnit.SECONDS);
        assertEquals("/ws", request.get(k("uri")));
        assertEquals(k("get"), request.get(k("request-method")));
        assertEquals(server.port(), request.get(k("server-port")));
        assertEquals("127.0.0.1", request.get(k("remote-addr")));
        assertInstanceOf(Map.class, request.get(k("headers")));
        assertEquals("websocket", ((Map<?, ?>) request.get(k("headers"))).get("upgrade"));
    }

    @Test
    void aHandlerThatNamesNoListenerGetsTheSocketClosedWith1011() throws Exception {
        server = RingOnHelidon.startWebSocket(new AFn() {
            @Override
            public Object invoke(Object request) {
                return PersistentArrayMap.createAsIfByAssoc(new Object[] {k("status"), 200, k("body"), "no socket"});
            }
        });
        Seen seen = new Seen();
        try (HttpClient client = HttpClient.newHttpClient()) {
            connect(client, seen);
            assertEquals("close 1011", seen.next());
        }
    }

    @Test
    void aSocketSendsBytesAsOneBinaryMessage() throws Exception {
        IFn onOpen = new AFn() {
            @Override
            public Object invoke(Object socket) {
                try {
                    ((RingWebSocket) socket).send("hello".getBytes(StandardCharsets.UTF_8));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                return null;
            }
        };
        Object listener = PersistentArrayMap.createAsIfByAssoc(new Object[] {k("on-open"), onOpen});
        server = RingOnHelidon.startWebSocket(new AFn() {
            @Override
            public Object invoke(Object request) {
                return PersistentArrayMap.createAsIfByAssoc(
                        new Object[] {Keyword.intern("ring.websocket", "listener"), listener});
            }
        });
        Seen seen = new Seen();
        try (HttpClient client = HttpClient.newHttpClient()) {
            WebSocket socket = connect(client, seen);
            assertEquals("binary hello", seen.next());
            socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(30, TimeUnit.SECONDS);
            assertEquals("close 1000", seen.next());
        }
    }
}
