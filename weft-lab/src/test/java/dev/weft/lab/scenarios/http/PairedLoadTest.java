package dev.weft.lab.scenarios.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/**
 * Paired rounds of alternating slices (decision 0815) against real servers on 127.0.0.1: each
 * round measures both sides, and a paused side sends nothing while its connections stay open.
 * These tests check what is counted and when, not how fast (they pass on a loaded 2-core machine).
 */
class PairedLoadTest {

    /**
     * A server that answers 200 to everything, {@code delayMs} after each request arrives (0: at
     * once), and counts the requests it received and notes when each arrived.
     */
    private record Counting(Server server, AtomicLong requests, List<Long> arrivals) {
        static Counting start() throws Exception {
            return start(0);
        }

        static Counting start(long delayMs) throws Exception {
            AtomicLong requests = new AtomicLong();
            List<Long> arrivals = java.util.Collections.synchronizedList(new ArrayList<>());
            Server server = new Server();
            ServerConnector connector = new ServerConnector(server);
            connector.setHost("127.0.0.1");
            connector.setPort(0);
            server.addConnector(connector);
            server.setHandler(new Handler.Abstract.NonBlocking() {
                @Override
                public boolean handle(Request request, Response response, Callback callback) {
                    arrivals.add(System.nanoTime());
                    requests.incrementAndGet();
                    Runnable answer = () -> {
                        response.setStatus(200);
                        response.write(true, ByteBuffer.wrap(PlainJetty.BODY), callback);
                    };
                    if (delayMs == 0) {
                        answer.run();
                    } else {
                        server.getScheduler().schedule(answer, delayMs, java.util.concurrent.TimeUnit.MILLISECONDS);
                    }
                    return true;
                }
            });
            server.start();
            return new Counting(server, requests, arrivals);
        }

        int port() {
            return ((NetworkConnector) server.getConnectors()[0]).getLocalPort();
        }
    }

    private static long pid() {
        return ProcessHandle.current().pid();
    }

    /** A pair of 4 connections to each server, each side warmed up alone for {@code warmupMs}. */
    private static PairedLoad http(Counting a, Counting b, long warmupMs) throws Exception {
        return PairedLoad.open(
                LoadGenerator.openPaused(new LoadGenerator.Plan(a.port(), "/x", 4, 0, 1, pid(), 2)),
                LoadGenerator.openPaused(new LoadGenerator.Plan(b.port(), "/x", 4, 0, 1, pid(), 2)),
                warmupMs);
    }

    @Test
    void measuresBothSidesOfEachRoundAndKeepsAPausedSideQuiet() throws Exception {
        Counting a = Counting.start();
        Counting b = Counting.start();
        try (PairedLoad pair = http(a, b, 200)) {
            assertTrue(a.requests().get() > 0 && b.requests().get() > 0, "each side warmed up alone");
            for (boolean aFirst : new boolean[] {true, false}) {
                PairedLoad.RoundResult r = pair.round(aFirst, 50, 500, 1);
                for (LoadResult side : new LoadResult[] {r.a(), r.b()}) {
                    assertTrue(side.requests() > 0, "a slice completes requests: " + side);
                    assertEquals(0, side.errors(), "no errors: " + side);
                    assertNotNull(side.windowStartMs(), "a slice has its window's bounds");
                }
                assertTrue(
                        aFirst
                                ? r.a().windowEndMs() <= r.b().windowStartMs()
                                : r.b().windowEndMs() <= r.a().windowStartMs(),
                        "the slices follow each other in the order asked: " + r);
            }
            // After a round both sides are paused: their connections send nothing more.
            long ca = a.requests().get();
            long cb = b.requests().get();
            Thread.sleep(300);
            assertEquals(ca, a.requests().get(), "side a stays quiet while paused");
            assertEquals(cb, b.requests().get(), "side b stays quiet while paused");
        } finally {
            a.server().stop();
            b.server().stop();
        }
    }

    @Test
    void aSliceInPartsAddsItsPartsUpAndInterleavesTheSides() throws Exception {
        Counting a = Counting.start();
        Counting b = Counting.start();
        try (PairedLoad pair = http(a, b, 100)) {
            long ca = a.requests().get();
            long cb = b.requests().get();
            // a b b a a b b a: a's parts come first and last, b's in between.
            PairedLoad.RoundResult r = pair.round(true, 10, 400, 4);
            for (LoadResult side : new LoadResult[] {r.a(), r.b()}) {
                assertTrue(side.seconds() >= 0.399, "a side's seconds are its 4 parts of 100 ms together: " + side);
                assertEquals(0, side.errors(), "no errors: " + side);
                assertNotNull(side.serverCpuSeconds(), "CPU read over the parts: " + side);
                assertEquals(side.requests() / side.seconds(), side.requestsPerSecond(), 1e-6);
            }
            assertTrue(
                    r.a().windowStartMs() <= r.b().windowStartMs() && r.b().windowEndMs() <= r.a().windowEndMs(),
                    "a's parts open and close the round, b's lie between them: " + r);
            // A side's requests are those of its parts, which its server saw.
            assertTrue(r.a().requests() > 0 && r.a().requests() <= a.requests().get() - ca, "a: " + r.a());
            assertTrue(r.b().requests() > 0 && r.b().requests() <= b.requests().get() - cb, "b: " + r.b());
            assertThrows(IllegalArgumentException.class, () -> pair.round(true, 10, 400, 0));
        } finally {
            a.server().stop();
            b.server().stop();
        }
    }

    @Test
    void aStaggeredResumeSpreadsTheConnectionsFirstRequests() throws Exception {
        Counting slow = Counting.start(1_000); // a round trip of a second
        Counting other = Counting.start();
        try (PairedLoad pair = PairedLoad.open(
                LoadGenerator.openPaused(new LoadGenerator.Plan(slow.port(), "/x", 20, 0, 1, pid(), 2), 200),
                LoadGenerator.openPaused(new LoadGenerator.Plan(other.port(), "/x", 4, 0, 1, pid(), 2)),
                0)) {
            long resumed = System.nanoTime();
            // A 220 ms slice, shorter than a round trip: each connection sends once, if its turn came.
            PairedLoad.RoundResult r = pair.round(true, 0, 220, 1);
            assertEquals(0, r.a().errors(), "no errors: " + r.a());
            List<Long> first = new ArrayList<>(slow.arrivals());
            first.removeIf(t -> t < resumed); // the warm-up's
            assertTrue(
                    first.size() >= 10 && first.size() <= 20,
                    "at most one request per connection, most of them sent: " + first.size());
            long spread = first.stream().mapToLong(Long::longValue).max().orElseThrow()
                    - first.stream().mapToLong(Long::longValue).min().orElseThrow();
            // Spread over 200 ms they arrive over ~190 ms (sent at 0, 10, ..., 190 ms after the
            // resume); at once, within a few milliseconds. A loaded machine delays sends, but can
            // only bunch them up by stalling the sender for over 100 ms: a quarter is the bar.
            assertTrue(spread >= 50_000_000L, "first requests arrived over " + spread / 1e6 + " ms");
        } finally {
            slow.server().stop();
            other.server().stop();
        }
    }

    /** A side that records what the pair asks of it, in one log shared by both sides. */
    private record Recording(String name, List<String> log) implements PairedLoad.Alternating {
        @Override
        public void resume() {
            log.add(name + " resume");
        }

        @Override
        public void pause() {
            log.add(name + " pause");
        }

        @Override
        public LoadResult measureThenPause(long durationMs, boolean fresh) {
            log.add(name + " " + durationMs + (fresh ? " fresh" : " more"));
            return new LoadResult("test", 1, 1, durationMs / 1e3, 1, null, null, null, 0, 0, 0, 0, 0, null, null);
        }

        @Override
        public void close() {}
    }

    @Test
    void partsRunInterleavedABBAWithASideConsecutivePartsAsOneStretch() throws Exception {
        List<String> log = new ArrayList<>();
        try (PairedLoad pair = PairedLoad.open(new Recording("a", log), new Recording("b", log), 0)) {
            log.clear();
            pair.round(true, 0, 400, 4);
            assertEquals(
                    List.of(
                            "a resume", "a 100 fresh",
                            "b resume", "b 200 fresh",
                            "a resume", "a 200 more",
                            "b resume", "b 200 more",
                            "a resume", "a 100 more"),
                    log);
            log.clear();
            pair.round(false, 0, 400, 1);
            assertEquals(List.of("b resume", "b 400 fresh", "a resume", "a 400 fresh"), log);
        }
    }

    @Test
    void pairsWebSocketEchoesOfTwoServers() throws Exception {
        Server a = PlainJetty.startWebSocket();
        Server b = PlainJetty.startWebSocket();
        int portA = ((NetworkConnector) a.getConnectors()[0]).getLocalPort();
        int portB = ((NetworkConnector) b.getConnectors()[0]).getLocalPort();
        try (PairedLoad pair = PairedLoad.open(
                WsLoad.openPaused(new WsLoad.Plan(portA, "/ws", 10, 0, 1, pid())),
                WsLoad.openPaused(new WsLoad.Plan(portB, "/ws", 10, 0, 1, pid())),
                200)) {
            PairedLoad.RoundResult r = pair.round(false, 50, 500, 2);
            for (LoadResult side : new LoadResult[] {r.a(), r.b()}) {
                assertTrue(side.requests() > 0, "echoes came back in the slice: " + side);
                assertEquals(0, side.non2xx(), "every echo is the message sent: " + side);
                assertEquals(0, side.errors(), "every socket opened and stayed open: " + side);
            }
        } finally {
            a.stop();
            b.stop();
        }
    }
}
