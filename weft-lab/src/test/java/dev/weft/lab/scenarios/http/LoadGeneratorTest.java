package dev.weft.lab.scenarios.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The built-in load generator against a real Jetty on 127.0.0.1, and its response parser. */
class LoadGeneratorTest {

    private static Server server;
    private static int port;

    @BeforeAll
    static void start() throws Exception {
        server = PlainJetty.start(0);
        port = ((NetworkConnector) server.getConnectors()[0]).getLocalPort();
    }

    @AfterAll
    static void stop() throws Exception {
        server.stop();
    }

    private static LoadResult run(int port, String path) throws Exception {
        // A window long enough that a loaded 2-core machine still completes requests in it: these
        // tests check what is counted, not how fast.
        return new LoadGenerator(new LoadGenerator.Plan(
                        port, path, 4, 300, 2_000, ProcessHandle.current().pid(), 2))
                .run();
    }

    @Test
    void countsCompletedRequestsAndTheirLatencies() throws Exception {
        LoadResult r = run(port, "/nosleep");
        assertTrue(r.requests() > 0, "requests completed: " + r);
        assertEquals(0, r.errors(), "errors: " + r);
        assertEquals(0, r.non2xx(), "non-2xx: " + r);
        assertNotNull(r.p50Ms());
        assertTrue(r.p50Ms() <= r.p99Ms() && r.p99Ms() <= r.maxMs(), "percentiles in order: " + r);
        assertEquals(r.requests() / r.seconds(), r.requestsPerSecond(), 1e-6);
        assertNotNull(r.spanRequestsPerSecond(), "the edge-free rate of a window with completions (SpanRate)");
        assertTrue(r.spanRequestsPerSecond() > 0, "edge-free rate: " + r);
        assertNotNull(r.serverCpuUsPerRequest(), "the CPU time of a live process is readable");
    }

    @Test
    void countsResponsesThatAreNot2xx() throws Exception {
        LoadResult r = run(port, "/missing");
        assertTrue(r.requests() > 0, "requests completed: " + r);
        assertEquals(r.requests(), r.non2xx(), "every 404 counted: " + r);
    }

    @Test
    void countsConnectErrorsWhenNothingListens() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        LoadResult r = run(closed, "/nosleep");
        assertEquals(0, r.requests());
        assertTrue(r.connectErrors() > 0, "connect errors: " + r);
        assertNull(r.p50Ms(), "no latency without a response");
    }

    private static ByteBuffer read(String text) {
        ByteBuffer b = ByteBuffer.allocate(256);
        b.put(text.getBytes(StandardCharsets.US_ASCII));
        return b;
    }

    @Test
    void parsesResponsesByLengthOrChunks() throws IOException {
        assertNull(LoadGenerator.Response.parse(read("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel")), "incomplete");
        assertEquals(
                new LoadGenerator.Response(200, false),
                LoadGenerator.Response.parse(read("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")));
        assertEquals(
                new LoadGenerator.Response(503, true),
                LoadGenerator.Response.parse(
                        read("HTTP/1.1 503 No\r\ncontent-length: 0\r\nConnection: close\r\n\r\n")));
        assertNull(LoadGenerator.Response.parse(
                read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")));
        assertEquals(
                new LoadGenerator.Response(200, false),
                LoadGenerator.Response.parse(
                        read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")));
        assertThrows(
                IOException.class,
                () -> LoadGenerator.Response.parse(read("HTTP/1.1 200 OK\r\nServer: x\r\n\r\nbody")),
                "a body it cannot delimit is an error, not a guess");
    }
}
