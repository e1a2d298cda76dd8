package dev.weft.lab.scenarios.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.helidon.webserver.WebServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The http scenario's candidate cores ({@link PlainHelidon}, {@link PlainNetty}; full-mode lab
 * variants) over real HTTP/1.1 on 127.0.0.1: each answers the article's handler with plain Jetty's
 * response (status line, the same header lines whatever their order, only the Date's value
 * differing, body), sleeps on {@code /hello}, answers 404 elsewhere, and answers pipelined requests
 * in order on one keep-alive connection, and Helidon's WebSocket echo sends each message back; so does the lab's Ring handler on Helidon ({@link RingOnHelidon}). No timing bound but the handler's own sleep (a lower bound).
 */
class ReferenceCoresTest {

    private static Server jetty;
    private static WebServer helidon;
    private static PlainNetty netty;
    private static WebServer ringOnHelidon;

    @BeforeAll
    static void start() throws Exception {
        jetty = PlainJetty.start(0);
        helidon = PlainHelidon.start();
        netty = PlainNetty.start();
        clojure.java.api.Clojure.var("clojure.core", "require").invoke(clojure.java.api.Clojure.read("weft.lab.http"));
        var handler = (clojure.lang.IDeref) clojure.java.api.Clojure.var("weft.lab.http", "handler");
        ringOnHelidon = RingOnHelidon.start((clojure.lang.IFn) handler.deref());
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (netty != null) {
                netty.close();
            }
            if (ringOnHelidon != null) {
                ringOnHelidon.stop();
            }
            if (helidon != null) {
                helidon.stop();
            }
        } finally {
            if (jetty != null) {
                jetty.stop();
            }
        }
    }

    private static int jettyPort() {
        return ((NetworkConnector) jetty.getConnectors()[0]).getLocalPort();
    }

    @Test
    void helidonAnswersAsPlainJetty() throws IOException {
        answersAsPlainJetty("helidon-virtual", helidon.port());
    }

    @Test
    void nettyAnswersAsPlainJetty() throws IOException {
        answersAsPlainJetty("netty-virtual", netty.port());
    }

    @Test
    void theLabsRingHandlerOnHelidonAnswersAsPlainJetty() throws IOException {
        answersAsPlainJetty("weft-ring-helidon", ringOnHelidon.port());
    }

    @Test
    void theLabsRingHandlerOnHelidonAnswersPipelinedRequestsInOrder() throws IOException {
        pipelinedInOrder(ringOnHelidon.port());
    }

    @Test
    void helidonsWebSocketEchoSendsEachMessageBackInOrder() throws Exception {
        WebServer ws = PlainHelidon.startWebSocket();
        java.util.concurrent.BlockingQueue<String> echoed = new java.util.concurrent.LinkedBlockingQueue<>();
        try (var client = java.net.http.HttpClient.newHttpClient()) {
            java.net.http.WebSocket socket = client.newWebSocketBuilder()
                    .buildAsync(
                            java.net.URI.create("ws://127.0.0.1:" + ws.port() + "/ws"),
                            new java.net.http.WebSocket.Listener() {
                                private final StringBuilder text = new StringBuilder();

                                @Override
                                public java.util.concurrent.CompletionStage<?> onText(
                                        java.net.http.WebSocket w, CharSequence data, boolean last) {
                                    text.append(data);
                                    if (last) {
                                        echoed.add(text.toString());
                                        text.setLength(0);
                                    }
                                    w.request(1);
                                    return null;
                                }
                            })
                    .get(30, java.util.concurrent.TimeUnit.SECONDS);
            for (String m : List.of("one", "two", "x".repeat(70_000))) {
                socket.sendText(m, true).get(30, java.util.concurrent.TimeUnit.SECONDS);
            }
            assertEquals("one", echoed.poll(30, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals("two", echoed.poll(30, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(
                    70_000,
                    echoed.poll(30, java.util.concurrent.TimeUnit.SECONDS).length(),
                    "a message longer than a frame comes back whole");
            socket.sendClose(java.net.http.WebSocket.NORMAL_CLOSURE, "done")
                    .get(30, java.util.concurrent.TimeUnit.SECONDS);
        } finally {
            ws.stop();
        }
    }

    @Test
    void helidonAnswersPipelinedRequestsInOrder() throws IOException {
        pipelinedInOrder(helidon.port());
    }

    @Test
    void nettyAnswersPipelinedRequestsInOrder() throws IOException {
        pipelinedInOrder(netty.port());
    }

    private static void answersAsPlainJetty(String core, int port) throws IOException {
        Response reference = exchange(jettyPort(), "/nosleep").get(0);
        Response r = exchange(port, "/nosleep").get(0);
        assertEquals("HTTP/1.1 200 OK", r.statusLine(), core);
        assertArrayEquals(PlainJetty.BODY, r.body(), core + "'s body");
        assertEquals(withoutDate(reference.headers()), withoutDate(r.headers()), core + "'s header lines, Date aside");
        assertTrue(r.headers().stream().anyMatch(h -> h.startsWith("Date: ")), core + " sends a Date: " + r.headers());

        long t0 = System.nanoTime();
        Response hello = exchange(port, "/hello").get(0);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertEquals("HTTP/1.1 200 OK", hello.statusLine(), core + " on /hello");
        assertArrayEquals(PlainJetty.BODY, hello.body(), core + "'s body on /hello");
        assertTrue(ms >= HttpScenario.SLEEP_MS, core + " answered /hello after its 50 ms sleep, not " + ms + " ms");

        assertEquals("HTTP/1.1 404 Not Found", exchange(port, "/missing").get(0).statusLine(), core + " elsewhere");
    }

    /** Jetty's header lines with the Date's value dropped; Helidon writes Content-Length before Content-Type. */
    private static List<String> withoutDate(List<String> headers) {
        return headers.stream()
                .map(h -> h.startsWith("Date: ") ? "Date" : h)
                .sorted()
                .toList();
    }

    /** A slow request then a fast one on one connection, sent at once: their answers in that order, and the connection still open. */
    private static void pipelinedInOrder(int port) throws IOException {
        List<Response> rs = exchange(port, "/hello", "/missing", "/nosleep");
        assertEquals("HTTP/1.1 200 OK", rs.get(0).statusLine(), "the slow /hello first");
        assertEquals("HTTP/1.1 404 Not Found", rs.get(1).statusLine(), "then /missing");
        assertEquals("HTTP/1.1 200 OK", rs.get(2).statusLine(), "then /nosleep");
    }

    record Response(String statusLine, List<String> headers, byte[] body) {}

    /** Sends a GET for each path on one keep-alive connection, all in one write, and reads as many responses. */
    private static List<Response> exchange(int port, String... paths) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000); // a hang guard, not a speed bound
            StringBuilder requests = new StringBuilder();
            for (String path : paths) {
                requests.append("GET ").append(path).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            }
            OutputStream out = socket.getOutputStream();
            out.write(requests.toString().getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            List<Response> responses = new ArrayList<>();
            for (int i = 0; i < paths.length; i++) {
                responses.add(read(in));
            }
            return responses;
        }
    }

    static Response read(InputStream in) throws IOException {
        String status = line(in);
        List<String> headers = new ArrayList<>();
        int length = 0;
        boolean chunked = false;
        for (String h = line(in); !h.isEmpty(); h = line(in)) {
            headers.add(h);
            if (h.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                length = Integer.parseInt(h.substring(15).strip());
            }
            chunked |= h.equalsIgnoreCase("Transfer-Encoding: chunked");
        }
        if (chunked) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            for (int n = Integer.parseInt(line(in).strip(), 16); n > 0; n = Integer.parseInt(line(in).strip(), 16)) {
                body.write(in.readNBytes(n));
                line(in); // the CRLF after a chunk
            }
            for (String trailer = line(in); !trailer.isEmpty(); trailer = line(in)) {}
            return new Response(status, headers, body.toByteArray());
        }
        byte[] body = in.readNBytes(length);
        assertEquals(length, body.length, "the whole body before the connection closed");
        return new Response(status, headers, body);
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new IOException("the connection closed mid-response after " + b);
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.US_ASCII);
    }
}
