package dev.weft.lab.scenarios.http;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A closed-loop HTTP/1.1 load generator, the lab's stand-in for wrk: {@code connections} keep-alive
 * connections, each sending its next request as soon as the previous response is complete, on a
 * few selector threads with non-blocking sockets (so that its own cost per request stays small next
 * to the server's, as wrk's does).
 *
 * <p>A run warms up, then measures for a fixed time, then stops by itself. Counted: the responses
 * completed inside the measured window, their latencies (from the request's first byte written to
 * the response's last byte read), non-2xx responses, connect/read/write errors, and timeouts
 * (responses slower than 2 s, wrk's default timeout, plus requests still unanswered after 2 s when
 * the window closes). The server JVM's CPU time is read at both ends of the window.
 *
 * <p>{@link #openPaused} opens the connections without measuring, for a {@link PairedLoad}: its
 * loops can be paused (no connection sends again, the requests in flight complete) and resumed while
 * the connections stay open, so that two servers are measured in alternating slices (decision 0815).
 *
 * <p>It only understands responses with a {@code Content-Length} or a chunked body; the lab's
 * servers send both kinds correctly.
 */
final class LoadGenerator {

    /** Responses slower than this count as timeouts, as in wrk. */
    static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(2);

    private static final int PHASE_WARMUP = 0;
    private static final int PHASE_MEASURE = 1;
    private static final int PHASE_DONE = 2;

    /**
     * What to run.
     *
     * @param port        the server's port on 127.0.0.1
     * @param path        the request target, e.g. {@code /hello}
     * @param connections keep-alive connections, each with one request outstanding at a time
     * @param warmupMs    load before the window (not counted)
     * @param durationMs  the measured window
     * @param serverPid   the server JVM, whose CPU time is read at both ends of the window
     * @param threads     selector threads
     */
    record Plan(int port, String path, int connections, long warmupMs, long durationMs, long serverPid, int threads) {
        Plan {
            if (connections < 1 || threads < 1 || durationMs < 1 || warmupMs < 0) {
                throw new IllegalArgumentException(
                        "a load plan needs connections, threads and a duration > 0; got " + this);
            }
        }
    }

    private final Plan plan;
    private final byte[] request;
    private volatile int phase = PHASE_WARMUP;
    /** Paused: a completed response does not send the next request; {@link #resumes} counts resumes. */
    private volatile boolean paused;

    private volatile int resumes;
    /** Over how long a resume spreads the connections' sends ({@link Stagger}); set before the threads start. */
    private long staggerNanos;
    /** Requests sent and not yet answered (nor lost with their connection). */
    private final AtomicInteger inFlight = new AtomicInteger();

    private final List<Worker> workers = new ArrayList<>();
    private final List<Thread> running = new ArrayList<>();

    LoadGenerator(Plan plan) {
        this.plan = plan;
        this.request = ("GET " + plan.path() + " HTTP/1.1\r\nHost: 127.0.0.1:" + plan.port() + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** Runs the plan: warm-up, measured window, stop. */
    LoadResult run() throws Exception {
        start();
        Thread.sleep(plan.warmupMs());
        return measure(plan.durationMs(), true, true);
    }

    /**
     * Opens {@code plan}'s connections with their loops paused, for a {@link PairedLoad} (the
     * plan's warm-up and duration are the pair's business).
     */
    static PairedLoad.Alternating openPaused(Plan plan) throws IOException {
        return openPaused(plan, 0);
    }

    /**
     * As {@link #openPaused(Plan)}, and each resume spreads the connections' first sends evenly
     * over {@code staggerMs} (one round trip of the handler; 0: all at once), so that they do not
     * run in step ({@link Stagger}, decision 0860).
     */
    static PairedLoad.Alternating openPaused(Plan plan, long staggerMs) throws IOException {
        if (staggerMs < 0) {
            throw new IllegalArgumentException("a stagger is 0 ms or more; got " + staggerMs);
        }
        LoadGenerator g = new LoadGenerator(plan);
        g.paused = true;
        g.staggerNanos = TimeUnit.MILLISECONDS.toNanos(staggerMs);
        g.start();
        return new PairedLoad.Alternating() {
            @Override
            public void resume() {
                g.paused = false;
                g.resumes++; // one writer, the pair's thread
                for (Worker w : g.workers) {
                    w.selector.wakeup();
                }
            }

            @Override
            public void pause() throws InterruptedException {
                g.pause();
            }

            @Override
            public LoadResult measureThenPause(long durationMs, boolean fresh) throws InterruptedException {
                return g.measure(durationMs, false, fresh);
            }

            @Override
            public void close() {
                g.phase = PHASE_DONE;
                for (Worker w : g.workers) {
                    w.selector.wakeup();
                }
                for (Thread t : g.running) {
                    try {
                        t.join(TimeUnit.SECONDS.toMillis(30));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        };
    }

    /** Stops sending and waits (at most 2 s, the requests' timeout) for the requests in flight. */
    private void pause() throws InterruptedException {
        paused = true;
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
    }

    /** Starts the selector threads, which open the connections (and send, unless paused). */
    private void start() throws IOException {
        int threads = Math.min(plan.threads(), plan.connections());
        for (int i = 0; i < threads; i++) {
            int share = plan.connections() / threads + (i < plan.connections() % threads ? 1 : 0);
            Worker w = new Worker(share, i, threads);
            workers.add(w);
            running.add(Thread.ofPlatform()
                    .name("weft-load-" + (i + 1))
                    .daemon(true)
                    .start(w));
        }
    }

    /** The windows measured since the last fresh one (a paired slice in parts), or null. */
    private Window.Measured sofar;

    /**
     * One measured window of the running loops; then the run ends ({@code last}: the threads
     * close their connections, counting requests still unanswered after 2 s as timeouts) or the
     * loops pause; the figures are read after either, when no thread writes them any more. Unless
     * {@code fresh}, the window adds to the figures of the windows since the last fresh one, and
     * the result is theirs together (a slice measured in parts, decision 0825).
     */
    private LoadResult measure(long durationMs, boolean last, boolean fresh) throws InterruptedException {
        if (fresh || sofar == null) {
            for (Worker w : workers) {
                w.reset(); // its thread writes them only while measuring, which starts below
            }
            sofar = null;
        }
        Window window = Window.open(plan.serverPid());
        phase = PHASE_MEASURE;
        Thread.sleep(durationMs);
        phase = last ? PHASE_DONE : PHASE_WARMUP;
        Window.Measured measured = window.close().after(sofar);
        sofar = measured;
        if (last) {
            for (Worker w : workers) {
                w.selector.wakeup();
            }
            for (Thread t : running) {
                t.join(TimeUnit.SECONDS.toMillis(30));
            }
        } else {
            pause();
        }
        for (Worker w : workers) {
            w.endPart(); // nothing writes the connections' spans now: the loops are paused or done
        }
        return result(workers, measured.seconds(), measured.serverCpu(), measured.clientCpu())
                .withWindow(measured.startEpochMs(), measured.endEpochMs());
    }

    /** The CPU time of process {@code pid} so far, to the nanosecond where Linux tells ({@link ThreadCpu}). */
    static Optional<Duration> cpu(long pid) {
        return ThreadCpu.of(pid);
    }

    /**
     * A measured window: its start's wall clock and the CPU time of the server JVM and of this
     * (load) JVM, read when it opens, so that {@link #close()} gives what the window took.
     */
    record Window(
            long serverPid,
            Optional<Duration> serverCpu,
            Optional<Duration> clientCpu,
            long startNanos,
            long startEpochMs) {

        /** Opens a window now. */
        static Window open(long serverPid) {
            return new Window(
                    serverPid,
                    cpu(serverPid),
                    cpu(ProcessHandle.current().pid()),
                    System.nanoTime(),
                    System.currentTimeMillis());
        }

        /** Closes the window now: its wall seconds and the CPU seconds each JVM spent in it (null if unreadable). */
        Measured close() {
            long end = System.nanoTime();
            return new Measured(
                    (end - startNanos) / 1e9,
                    seconds(serverCpu, cpu(serverPid)),
                    seconds(clientCpu, cpu(ProcessHandle.current().pid())),
                    startEpochMs,
                    System.currentTimeMillis());
        }

        /** What a window measured, and its wall-clock bounds (epoch milliseconds). */
        record Measured(double seconds, Double serverCpu, Double clientCpu, long startEpochMs, long endEpochMs) {

            /**
             * This window added to {@code earlier} (windows of the same slice measured in parts;
             * null: none): seconds and CPU summed, from the earlier's start to this one's end.
             */
            Measured after(Measured earlier) {
                return earlier == null
                        ? this
                        : new Measured(
                                earlier.seconds + seconds,
                                sum(earlier.serverCpu, serverCpu),
                                sum(earlier.clientCpu, clientCpu),
                                earlier.startEpochMs,
                                endEpochMs);
            }

            private static Double sum(Double a, Double b) {
                return a == null || b == null ? null : a + b;
            }
        }
    }

    /** Seconds between two CPU readings, or null when either is missing. */
    static Double seconds(Optional<Duration> before, Optional<Duration> after) {
        if (before.isEmpty() || after.isEmpty()) {
            return null;
        }
        return after.get().minus(before.get()).toNanos() / 1e9;
    }

    private LoadResult result(List<Worker> workers, double seconds, Double serverCpu, Double clientCpu) {
        long requests = 0, non2xx = 0, connectErrors = 0, readErrors = 0, writeErrors = 0, timeouts = 0;
        int n = 0;
        for (Worker w : workers) {
            requests += w.completed;
            non2xx += w.non2xx;
            connectErrors += w.connectErrors;
            readErrors += w.readErrors;
            writeErrors += w.writeErrors;
            timeouts += w.timeouts;
            n += w.latencyCount;
        }
        long[] latencies = new long[n];
        int at = 0;
        for (Worker w : workers) {
            System.arraycopy(w.latencies, 0, latencies, at, w.latencyCount);
            at += w.latencyCount;
        }
        Arrays.sort(latencies);
        List<SpanRate.Conn> spans = new ArrayList<>();
        for (Worker w : workers) {
            for (Conn c : w.all) {
                spans.add(c.span);
            }
        }
        return new LoadResult(
                "built-in",
                plan.connections(),
                requests,
                seconds,
                requests / seconds,
                percentileMs(latencies, 0.50),
                percentileMs(latencies, 0.99),
                latencies.length == 0 ? null : latencies[latencies.length - 1] / 1e6,
                connectErrors,
                readErrors,
                writeErrors,
                timeouts,
                non2xx,
                serverCpu,
                clientCpu,
                null,
                null,
                SpanRate.rate(spans));
    }

    /** The {@code p} quantile of sorted nanosecond latencies, in milliseconds, or null when there are none. */
    static Double percentileMs(long[] sorted, double p) {
        if (sorted.length == 0) {
            return null;
        }
        int i = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
    }

    /** One selector thread and its share of the connections. */
    private final class Worker implements Runnable {
        final Selector selector;
        final int connections;
        final ArrayDeque<Conn> reconnect = new ArrayDeque<>();
        long[] latencies = new long[1 << 14];
        int latencyCount;
        long completed, non2xx, connectErrors, readErrors, writeErrors, timeouts;

        /** The resumes this thread has acted on. */
        int resumed;
        /** Its connections, made here so that the measuring thread reads their spans after a part. */
        final List<Conn> all = new ArrayList<>();
        /** When its idle connections send after a resume (decision 0860). */
        final Stagger<Conn> stagger;

        /** The {@code index}-th of {@code threads} selector threads, with {@code connections} of its own. */
        Worker(int connections, int index, int threads) throws IOException {
            this.selector = Selector.open();
            this.connections = connections;
            for (int i = 0; i < connections; i++) {
                all.add(new Conn());
            }
            this.stagger = new Stagger<>(staggerNanos, plan.connections(), index, threads, all);
        }

        /** Zeroes the figures, before a measured window. */
        void reset() {
            latencyCount = 0;
            completed = non2xx = connectErrors = readErrors = writeErrors = timeouts = 0;
            for (Conn c : all) {
                c.span.reset();
            }
        }

        /** Ends a measured part on every connection ({@link SpanRate.Conn#endPart()}). */
        void endPart() {
            for (Conn c : all) {
                c.span.endPart();
            }
        }

        @Override
        public void run() {
            try {
                for (Conn c : all) {
                    open(c);
                }
                while (phase != PHASE_DONE) {
                    selector.select(stagger.waitMs(System.nanoTime(), reconnect.isEmpty() ? 100 : 10));
                    var keys = selector.selectedKeys();
                    for (SelectionKey key : keys) {
                        Conn c = (Conn) key.attachment();
                        try {
                            if (key.isConnectable()) {
                                connected(c);
                            } else if (key.isWritable()) {
                                write(c);
                            } else if (key.isReadable()) {
                                read(c);
                            }
                        } catch (IOException e) {
                            failed(c, e);
                        }
                    }
                    keys.clear();
                    for (int i = reconnect.size(); i > 0; i--) {
                        open(reconnect.poll());
                    }
                    if (resumed != resumes) {
                        resumed = resumes;
                        stagger.resume(System.nanoTime(), c -> c.idle);
                    }
                    if (stagger.pending()) {
                        stagger.sendDue(System.nanoTime(), this::sendIfIdle);
                    }
                }
                long now = System.nanoTime();
                for (Conn c : all) {
                    if (c.sentAt != 0 && now - c.sentAt > TIMEOUT_NANOS) {
                        timeouts++;
                    }
                    close(c);
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            } finally {
                try {
                    selector.close();
                } catch (IOException ignored) {
                    // closing at the end of a run
                }
            }
        }

        private void open(Conn c) {
            try {
                SocketChannel ch = SocketChannel.open();
                ch.configureBlocking(false);
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                c.channel = ch;
                c.in.clear();
                lost(c); // a request on its previous connection is not coming back
                if (ch.connect(new InetSocketAddress("127.0.0.1", plan.port()))) {
                    c.key = ch.register(selector, 0, c);
                    sendUnlessPaused(c);
                } else {
                    c.key = ch.register(selector, SelectionKey.OP_CONNECT, c);
                }
            } catch (IOException e) {
                connectErrors++;
                close(c);
                reconnect.add(c);
            }
        }

        private void connected(Conn c) throws IOException {
            try {
                c.channel.finishConnect();
            } catch (ConnectException e) {
                connectErrors++;
                close(c);
                reconnect.add(c);
                return;
            }
            sendUnlessPaused(c);
        }

        /** A resume's due send: unless the loops paused again, or the connection is being reopened. */
        private void sendIfIdle(Conn c) {
            if (c.idle && !paused && c.key != null) {
                try {
                    send(c);
                } catch (IOException e) {
                    failed(c, e);
                }
            }
        }

        private void sendUnlessPaused(Conn c) throws IOException {
            if (paused) {
                c.idle = true; // the next resume sends
            } else {
                send(c);
            }
        }

        private void send(Conn c) throws IOException {
            c.idle = false; // a connection reopened after the resume sends here, not again at the next
            c.out = ByteBuffer.wrap(request);
            if (c.sentAt == 0) {
                inFlight.incrementAndGet();
            }
            c.sentAt = System.nanoTime();
            write(c);
        }

        /** The connection's request, if any, is answered or lost: no longer in flight. */
        private void lost(Conn c) {
            if (c.sentAt != 0) {
                c.sentAt = 0;
                inFlight.decrementAndGet();
            }
        }

        private void write(Conn c) throws IOException {
            try {
                c.channel.write(c.out);
            } catch (IOException e) {
                writeErrors++;
                close(c);
                reconnect.add(c);
                return;
            }
            c.key.interestOps(c.out.hasRemaining() ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
        }

        private void read(Conn c) throws IOException {
            int n;
            try {
                if (!c.in.hasRemaining()) {
                    c.in = ByteBuffer.allocate(c.in.capacity() * 2).put(c.in.flip());
                }
                n = c.channel.read(c.in);
            } catch (IOException e) {
                readErrors++;
                close(c);
                reconnect.add(c);
                return;
            }
            if (n < 0) {
                // Closed by the server: an error only when a response was under way.
                if (c.in.position() > 0 || c.sentAt != 0) {
                    readErrors++;
                }
                close(c);
                reconnect.add(c);
                return;
            }
            Response r = Response.parse(c.in);
            if (r == null) {
                return; // not complete yet
            }
            long now = System.nanoTime();
            long latency = now - c.sentAt;
            if (phase == PHASE_MEASURE) {
                completed++;
                if (r.status < 200 || r.status > 299) {
                    non2xx++;
                }
                if (latency > TIMEOUT_NANOS) {
                    timeouts++;
                }
                if (latencyCount == latencies.length) {
                    latencies = Arrays.copyOf(latencies, latencyCount * 2);
                }
                latencies[latencyCount++] = latency;
                c.span.completed(now);
            }
            c.in.clear();
            lost(c); // answered
            if (r.close) {
                close(c);
                open(c);
            } else {
                sendUnlessPaused(c);
            }
        }

        private void failed(Conn c, IOException e) {
            readErrors++;
            close(c);
            reconnect.add(c);
        }

        private void close(Conn c) {
            if (c.key != null) {
                c.key.cancel();
                c.key = null;
            }
            if (c.channel != null) {
                try {
                    c.channel.close();
                } catch (IOException ignored) {
                    // already broken
                }
                c.channel = null;
            }
        }
    }

    /** One connection's state. */
    private static final class Conn {
        SocketChannel channel;
        SelectionKey key;
        ByteBuffer out;
        ByteBuffer in = ByteBuffer.allocate(4096);
        long sentAt;
        /** Open and waiting for a resume to send (the loops were paused). */
        boolean idle;
        /** Its completions in the measured parts, for the edge-free rate (decision 0850). */
        final SpanRate.Conn span = new SpanRate.Conn();
    }

    /** A complete response's status and whether the server closes the connection after it. */
    record Response(int status, boolean close) {

        /**
         * Parses the bytes read so far (buffer in write mode); null while the response is
         * incomplete.
         */
        static Response parse(ByteBuffer in) throws IOException {
            byte[] b = in.array();
            int len = in.position();
            int headEnd = indexOf(b, 0, len, CRLFCRLF);
            if (headEnd < 0) {
                return null;
            }
            if (len < 12 || b[0] != 'H') {
                throw new IOException("not an HTTP response");
            }
            int status = (b[9] - '0') * 100 + (b[10] - '0') * 10 + (b[11] - '0');
            long contentLength = -1;
            boolean chunked = false;
            boolean close = false;
            int lineStart = indexOf(b, 0, headEnd, CRLF) + 2;
            while (lineStart < headEnd) {
                int lineEnd = indexOf(b, lineStart, headEnd + 2, CRLF);
                if (startsWithIgnoreCase(b, lineStart, lineEnd, "content-length:")) {
                    contentLength = Long.parseLong(
                            new String(b, lineStart + 15, lineEnd - lineStart - 15, StandardCharsets.US_ASCII).strip());
                } else if (startsWithIgnoreCase(b, lineStart, lineEnd, "transfer-encoding:")) {
                    chunked = containsIgnoreCase(b, lineStart, lineEnd, "chunked");
                } else if (startsWithIgnoreCase(b, lineStart, lineEnd, "connection:")) {
                    close = containsIgnoreCase(b, lineStart, lineEnd, "close");
                }
                lineStart = lineEnd + 2;
            }
            int bodyStart = headEnd + 4;
            if (chunked) {
                return indexOf(b, bodyStart - 2, len, LAST_CHUNK) >= 0 ? new Response(status, close) : null;
            }
            if (contentLength < 0) {
                throw new IOException("the load generator needs a Content-Length or a chunked body");
            }
            return len >= bodyStart + contentLength ? new Response(status, close) : null;
        }

        private static final byte[] CRLF = {'\r', '\n'};
        private static final byte[] CRLFCRLF = {'\r', '\n', '\r', '\n'};
        private static final byte[] LAST_CHUNK = {'\r', '\n', '0', '\r', '\n', '\r', '\n'};

        private static int indexOf(byte[] b, int from, int to, byte[] part) {
            outer:
            for (int i = from; i <= to - part.length; i++) {
                for (int j = 0; j < part.length; j++) {
                    if (b[i + j] != part[j]) {
                        continue outer;
                    }
                }
                return i;
            }
            return -1;
        }

        private static boolean startsWithIgnoreCase(byte[] b, int from, int to, String prefix) {
            if (to - from < prefix.length()) {
                return false;
            }
            for (int i = 0; i < prefix.length(); i++) {
                if (Character.toLowerCase((char) b[from + i]) != prefix.charAt(i)) {
                    return false;
                }
            }
            return true;
        }

        private static boolean containsIgnoreCase(byte[] b, int from, int to, String part) {
            return new String(b, from, to - from, StandardCharsets.US_ASCII)
                    .toLowerCase(java.util.Locale.ROOT)
                    .contains(part);
        }
    }
}
