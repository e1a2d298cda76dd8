package dev.weft.lab.scenarios.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.concurrent.Executors;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Test;

/**
 * Validates {@code alloc_bytes_per_request} once, as the http scenario computes it (the JVM's
 * allocated bytes read by an {@link AllocationTimeline} between a load window's wall-clock bounds,
 * over the requests completed in it), against a handler that allocates a known amount: on virtual
 * threads, so the figure must count what they allocate on their carriers. The server and the load
 * generator share this JVM, so the test compares two windows that differ only in the handler's
 * known allocation: their difference per request must be that allocation.
 */
class AllocationPerRequestTest {

    /** What the handler allocates per request on /alloc: one array of this many bytes (plus its 16-byte header). */
    static final int KNOWN = 100_000;

    /** Keeps each array reachable for a moment, so that the allocation cannot be optimized away. */
    static volatile byte[] sink;

    @Test
    void perRequestFigureFindsAKnownAllocation() throws Exception {
        AllocationTimeline timeline = AllocationTimeline.start();
        assertTrue(timeline != null, "this JDK tells a thread's allocated bytes (com.sun.management.ThreadMXBean)");
        Server server = start();
        try {
            int port = ((NetworkConnector) server.getConnectors()[0]).getLocalPort();
            window(timeline, port, "/nosleep"); // warms both paths' code before the compared windows
            window(timeline, port, "/alloc");
            double base = window(timeline, port, "/nosleep");
            double alloc = window(timeline, port, "/alloc");
            double expected = KNOWN + 16;
            assertEquals(
                    expected,
                    alloc - base,
                    expected * 0.10,
                    "bytes per request: /alloc " + alloc + ", /nosleep " + base
                            + "; their difference is the handler's array");
        } finally {
            server.stop();
        }
    }

    /** One window of load on {@code path}: the JVM's allocated bytes in it per completed request. */
    private static double window(AllocationTimeline timeline, int port, String path) throws Exception {
        LoadResult r = new LoadGenerator(new LoadGenerator.Plan(
                        port, path, 4, 200, 1_000, ProcessHandle.current().pid(), 2))
                .run();
        assertTrue(r.requests() > 0 && r.errors() == 0 && r.non2xx() == 0, "every request answered: " + r);
        // A reading after the window's end: its sampler thread may lag on a loaded machine, so wait
        // for one (up to 2 s), as the server JVM's "alloc" command does.
        long bytes = -1;
        for (int i = 0; bytes < 0 && i < 200; i++) {
            Thread.sleep(AllocationTimeline.PERIOD_MS);
            bytes = timeline.bytesBetween(r.windowStartMs(), r.windowEndMs());
        }
        assertTrue(bytes > 0, "the timeline covers the window " + r.windowStartMs() + "-" + r.windowEndMs());
        return (double) bytes / r.requests();
    }

    private static Server start() throws Exception {
        QueuedThreadPool pool = new QueuedThreadPool();
        pool.setVirtualThreadsExecutor(Executors.newVirtualThreadPerTaskExecutor());
        Server server = new Server(pool);
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                if ("/alloc".equals(request.getHttpURI().getPath())) {
                    sink = new byte[KNOWN];
                }
                response.setStatus(200);
                response.write(true, ByteBuffer.wrap(PlainJetty.BODY), callback);
                return true;
            }
        });
        server.start();
        return server;
    }
}
