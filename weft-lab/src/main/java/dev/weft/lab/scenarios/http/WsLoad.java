package dev.weft.lab.scenarios.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The WebSocket echo load of the {@code *-ws} variants: {@code sockets} WebSockets opened with the
 * JDK's client ({@code java.net.http}, on 2 threads), each in a closed loop: it sends a 17-byte
 * text message, waits for its echo, and sends the next. Counted: the echoes received inside the
 * measured window (one echo is one message, reported as a request), their round-trip times, sockets
 * that failed to open or closed early, echoes that differ from what was sent, and the server JVM's
 * CPU time during the window.
 *
 * <p>{@link #openPaused} opens the sockets for a {@link PairedLoad}, which measures two servers in
 * paired rounds (decision 0815).
 */
final class WsLoad {

    /** What to run: sockets on {@code ws://127.0.0.1:<port><path>}, warm-up, window, the server's PID. */
    record Plan(int port, String path, int sockets, long warmupMs, long durationMs, long serverPid) {
        Plan {
            if (sockets < 1 || durationMs < 1 || warmupMs < 0) {
                throw new IllegalArgumentException(
                        "a WebSocket load plan needs sockets and a duration > 0; got " + this);
            }
        }
    }

    private static final String MESSAGE = "weft-echo-0123456"; // 17 characters, 1 byte each in UTF-8

    /** How long a pause waits for the echoes in flight to come back. */
    private static final long DRAIN_MS = 2_000;

    private WsLoad() {}

    private static ExecutorService clientPool() {
        return Executors.newFixedThreadPool(
                2, Thread.ofPlatform().name("weft-ws-load-", 1).daemon(true).factory());
    }

    private static HttpClient client(ExecutorService pool) {
        return HttpClient.newBuilder()
                .executor(pool)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
    }

    /**
     * Opens {@code plan}'s sockets on a client of their own, their loops paused, for a
     * {@link PairedLoad}; closing them ends the client.
     */
    static PairedLoad.Alternating openPaused(Plan plan) {
        ExecutorService pool = clientPool();
        HttpClient client = client(pool);
        Sockets s = Sockets.open(client, plan);
        return new PairedLoad.Alternating() {
            @Override
            public void resume() {
                s.resume();
            }

            @Override
            public void pause() throws InterruptedException {
                s.pause();
            }

            @Override
            public LoadResult measureThenPause(long durationMs, boolean fresh) throws InterruptedException {
                return s.measure(durationMs, fresh);
            }

            @Override
            public void close() {
                try {
                    s.close();
                } finally {
                    client.shutdownNow();
                    pool.shutdownNow();
                }
            }
        };
    }

    /** One server's sockets and their echo loops, which can be paused and resumed. */
    private static final class Sockets {
        final Plan plan;
        final List<Echo> echos = new ArrayList<>();
        final List<WebSocket> open = new ArrayList<>();
        final AtomicLong echoes = new AtomicLong();
        final AtomicLong wrong = new AtomicLong();
        final AtomicLong closedEarly = new AtomicLong();
        final AtomicInteger inFlight = new AtomicInteger();
        long connectErrors;
        /** Whether the next result still has to report the failed opens (reported once). */
        boolean connectErrorsUnreported = true;

        volatile boolean measuring;
        volatile boolean active;
        volatile boolean stopped;

        private Sockets(Plan plan) {
            this.plan = plan;
        }

        static Sockets open(HttpClient client, Plan plan) {
            Sockets s = new Sockets(plan);
            List<CompletableFuture<WebSocket>> opening = new ArrayList<>();
            URI uri = URI.create("ws://127.0.0.1:" + plan.port() + plan.path());
            for (int i = 0; i < plan.sockets(); i++) {
                Echo e = s.new Echo();
                s.echos.add(e);
                opening.add(client.newWebSocketBuilder()
                        .connectTimeout(Duration.ofSeconds(10))
                        .buildAsync(uri, e));
            }
            for (CompletableFuture<WebSocket> f : opening) {
                try {
                    s.open.add(f.get(30, TimeUnit.SECONDS));
                } catch (Exception e) {
                    s.connectErrors++;
                }
            }
            return s;
        }

        /** Starts every socket's loop (a socket already waiting for an echo keeps waiting). */
        void resume() {
            active = true;
            for (Echo e : echos) {
                e.resume();
            }
        }

        /** Stops the loops: no socket sends again; waits (bounded) for the echoes in flight. */
        void pause() throws InterruptedException {
            active = false;
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DRAIN_MS);
            while (inFlight.get() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
        }

        /** The windows measured since the last fresh one (a slice in parts), or null. */
        private LoadGenerator.Window.Measured sofar;

        private long wrongBefore;
        private long closedBefore;

        /**
         * Measures one window of {@code durationMs} of the running loops, then pauses them; unless
         * {@code fresh}, the figures are those of the windows since the last fresh one together
         * (a slice measured in parts, decision 0825).
         */
        LoadResult measure(long durationMs, boolean fresh) throws InterruptedException {
            if (fresh || sofar == null) {
                for (Echo e : echos) {
                    e.clear();
                }
                echoes.set(0);
                wrongBefore = wrong.get();
                closedBefore = closedEarly.get();
                sofar = null;
            }
            LoadGenerator.Window window = LoadGenerator.Window.open(plan.serverPid());
            measuring = true;
            Thread.sleep(durationMs);
            measuring = false;
            LoadGenerator.Window.Measured measured = window.close().after(sofar);
            sofar = measured;
            pause(); // every echo back: the figures below are complete
            long[] rtts = echos.stream().flatMapToLong(Echo::rtts).sorted().toArray();
            double seconds = measured.seconds();
            long messages = echoes.get();
            long failedOpens = connectErrorsUnreported ? connectErrors : 0;
            connectErrorsUnreported = false;
            return new LoadResult(
                            "built-in-websocket",
                            plan.sockets(),
                            messages,
                            seconds,
                            messages / seconds,
                            LoadGenerator.percentileMs(rtts, 0.50),
                            LoadGenerator.percentileMs(rtts, 0.99),
                            rtts.length == 0 ? null : rtts[rtts.length - 1] / 1e6,
                            failedOpens,
                            closedEarly.get() - closedBefore,
                            0,
                            0,
                            wrong.get() - wrongBefore,
                            measured.serverCpu(),
                            measured.clientCpu())
                    .withWindow(measured.startEpochMs(), measured.endEpochMs());
        }

        void close() {
            stopped = true;
            active = false;
            for (WebSocket ws : open) {
                try {
                    ws.sendClose(WebSocket.NORMAL_CLOSURE, "done").exceptionally(x -> null);
                } catch (RuntimeException e) {
                    ws.abort(); // a send still in flight: end the socket without the closing handshake
                }
            }
        }

        /** One socket's closed loop: the echo of each message sends the next while the loop is active. */
        private final class Echo implements WebSocket.Listener {
            private WebSocket socket;
            private CompletableFuture<WebSocket> sending; // the last send: the next waits for it
            private long sentAt;
            private boolean waiting; // a message is out and its echo not back
            private final StringBuilder text = new StringBuilder();
            private long[] rtts = new long[1024];
            private int count;

            @Override
            public synchronized void onOpen(WebSocket webSocket) {
                socket = webSocket;
                webSocket.request(1);
            }

            /** Sends a message unless one is out already (or the socket never opened). */
            synchronized void resume() {
                if (socket != null && !waiting) {
                    send();
                }
            }

            synchronized void clear() {
                count = 0;
            }

            synchronized java.util.stream.LongStream rtts() {
                return Arrays.stream(Arrays.copyOf(rtts, count));
            }

            private void send() {
                waiting = true;
                inFlight.incrementAndGet();
                sentAt = System.nanoTime();
                // The JDK's client allows one send in flight: an echo may arrive before the future of
                // the send it answers completes, so the next send is chained to that future.
                sending = sending == null
                        ? socket.sendText(MESSAGE, true)
                        : sending.thenCompose(ws -> ws.sendText(MESSAGE, true));
            }

            @Override
            public synchronized CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                text.append(data);
                if (last) {
                    long rtt = System.nanoTime() - sentAt;
                    if (!MESSAGE.contentEquals(text)) {
                        wrong.incrementAndGet();
                    }
                    text.setLength(0);
                    if (measuring) {
                        echoes.incrementAndGet();
                        if (count == rtts.length) {
                            rtts = Arrays.copyOf(rtts, count * 2);
                        }
                        rtts[count++] = rtt;
                    }
                    if (waiting) {
                        waiting = false;
                        inFlight.decrementAndGet();
                    }
                    if (active && !stopped) {
                        send(); // the previous send completed: its echo came back
                    }
                }
                webSocket.request(1);
                return null;
            }

            @Override
            public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
                lost();
                return null;
            }

            @Override
            public void onError(WebSocket webSocket, Throwable error) {
                lost();
            }

            private synchronized void lost() {
                if (waiting) {
                    waiting = false;
                    inFlight.decrementAndGet(); // its echo will never come: a pause must not wait for it
                }
                if (!stopped) {
                    closedEarly.incrementAndGet();
                }
            }
        }
    }
}
