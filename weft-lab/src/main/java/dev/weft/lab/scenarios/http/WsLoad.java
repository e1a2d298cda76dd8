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
import java.util.concurrent.atomic.AtomicLong;

/**
 * The WebSocket echo load of the {@code weft-ring-ws} variant: {@code sockets} WebSockets opened
 * with the JDK's client ({@code java.net.http}, on 2 threads), each in a closed loop: it sends a
 * 16-byte text message, waits for its echo, and sends the next. Counted: the echoes received inside
 * the measured window (one echo is one message, reported as a request), their round-trip times,
 * sockets that failed to open or closed early, echoes that differ from what was sent, and the
 * server JVM's CPU time during the window.
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

    private final Plan plan;
    private volatile boolean measuring;
    private volatile boolean stopped;
    private final AtomicLong echoes = new AtomicLong();
    private final AtomicLong wrong = new AtomicLong();
    private final AtomicLong closedEarly = new AtomicLong();

    WsLoad(Plan plan) {
        this.plan = plan;
    }

    /** Opens the sockets, warms up, measures, closes them; the result counts echoes as requests. */
    LoadResult run() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(
                2, Thread.ofPlatform().name("weft-ws-load-", 1).daemon(true).factory());
        HttpClient client = HttpClient.newBuilder()
                .executor(pool)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
        List<Echo> echos = new ArrayList<>();
        List<CompletableFuture<WebSocket>> opening = new ArrayList<>();
        URI uri = URI.create("ws://127.0.0.1:" + plan.port() + plan.path());
        for (int i = 0; i < plan.sockets(); i++) {
            Echo e = new Echo();
            echos.add(e);
            opening.add(client.newWebSocketBuilder()
                    .connectTimeout(Duration.ofSeconds(10))
                    .buildAsync(uri, e));
        }
        long connectErrors = 0;
        List<WebSocket> open = new ArrayList<>();
        for (CompletableFuture<WebSocket> f : opening) {
            try {
                open.add(f.get(30, TimeUnit.SECONDS));
            } catch (Exception e) {
                connectErrors++;
            }
        }
        for (Echo e : echos) {
            e.start();
        }
        Thread.sleep(plan.warmupMs());
        LoadGenerator.Window window = LoadGenerator.Window.open(plan.serverPid());
        measuring = true;
        Thread.sleep(plan.durationMs());
        measuring = false;
        LoadGenerator.Window.Measured measured = window.close();
        stopped = true;
        for (WebSocket ws : open) {
            try {
                ws.sendClose(WebSocket.NORMAL_CLOSURE, "done").exceptionally(x -> null);
            } catch (RuntimeException e) {
                ws.abort(); // a send still in flight: end the socket without the closing handshake
            }
        }
        long[] rtts = echos.stream()
                .flatMapToLong(e -> Arrays.stream(e.rtts, 0, e.count))
                .sorted()
                .toArray();
        double seconds = measured.seconds();
        long messages = echoes.get();
        LoadResult r = new LoadResult(
                "built-in-websocket",
                plan.sockets(),
                messages,
                seconds,
                messages / seconds,
                LoadGenerator.percentileMs(rtts, 0.50),
                LoadGenerator.percentileMs(rtts, 0.99),
                rtts.length == 0 ? null : rtts[rtts.length - 1] / 1e6,
                connectErrors,
                closedEarly.get(),
                0,
                0,
                wrong.get(),
                measured.serverCpu(),
                measured.clientCpu());
        client.shutdownNow();
        pool.shutdownNow();
        return r;
    }

    /** One socket's closed loop: the echo of each message sends the next. */
    private final class Echo implements WebSocket.Listener {
        private WebSocket socket;
        private CompletableFuture<WebSocket> sending; // the last send: the next waits for it
        private long sentAt;
        private final StringBuilder text = new StringBuilder();
        long[] rtts = new long[1024];
        int count;

        @Override
        public void onOpen(WebSocket webSocket) {
            socket = webSocket;
            webSocket.request(1);
        }

        /** Sends the first message, once every socket is open. */
        synchronized void start() {
            if (socket != null) {
                send();
            }
        }

        private void send() {
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
                if (!stopped) {
                    send(); // the previous send completed: its echo came back
                }
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            if (!stopped) {
                closedEarly.incrementAndGet();
            }
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            if (!stopped) {
                closedEarly.incrementAndGet();
            }
        }
    }
}
