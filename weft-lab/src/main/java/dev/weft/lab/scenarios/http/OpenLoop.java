package dev.weft.lab.scenarios.http;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The lab's load generator in open loop: requests arrive at a fixed rate whatever the server does
 * (wrk, h2load and {@link LoadGenerator} are closed loops: a slow server slows its own load down,
 * which hides overload). Each request is sent at its scheduled time on an idle keep-alive
 * connection, or a new one (HTTP/1.1 has one request per connection at a time), carries its
 * client's deadline as the header {@value #DEADLINE_HEADER} (epoch milliseconds: scheduled time
 * plus the client timeout), and gives up at that deadline, closing its connection as a client
 * that has gone does.
 *
 * <p>Counted for the requests scheduled inside the measured window: 2xx within the timeout
 * and their latency from the scheduled time (so a late send counts against the server, no
 * coordinated omission), 503s (shed), other statuses, client timeouts, and errors (connect or
 * I/O failures, and requests that found no connection because {@code maxConnections} were open:
 * a bound on this JVM's file descriptors). The run waits for the window's last requests to end,
 * at most the client timeout, before it returns.
 *
 * <p>Goodput is a rate of completions: the 2xx responses within their client's timeout that
 * <em>arrived inside the window</em> (whenever their request was scheduled), per second of the
 * window. It cannot exceed what the server completes per second. Counting instead the window's
 * requests served in time would credit a short window with the backlog the server works off
 * during the client timeout after it (1.4x the capacity of a 20-connection pool in a 0.8 s window
 * with a 1 s timeout).
 *
 * <p>The window may be cut into {@code parts} of equal length, each with its own goodput (the good
 * responses that arrived in it), so that a goal can be judged on the parts' median and its
 * interval rather than on one figure that a single slow stretch of the window moves (decision 0865).
 */
public final class OpenLoop {

    /** The header carrying the client's deadline, in epoch milliseconds. */
    public static final String DEADLINE_HEADER = "x-client-deadline";

    /**
     * What to run.
     *
     * @param port           the server's port on 127.0.0.1
     * @param path           the request target
     * @param ratePerSecond  requests sent per second, whatever the server does
     * @param warmupMs       load before the window (not counted)
     * @param durationMs     the measured window
     * @param clientTimeout  how long each client waits for its response
     * @param maxConnections most connections open at once
     * @param parts          equal parts the window is cut into, each with its own goodput (1: the window whole)
     */
    public record Plan(
            int port,
            String path,
            double ratePerSecond,
            long warmupMs,
            long durationMs,
            Duration clientTimeout,
            int maxConnections,
            int parts) {
        public Plan {
            if (ratePerSecond <= 0
                    || durationMs < 1
                    || warmupMs < 0
                    || maxConnections < 1
                    || clientTimeout.isNegative()
                    || clientTimeout.isZero()) {
                throw new IllegalArgumentException(
                        "an open-loop plan needs a rate, a duration, a timeout and connections > 0; got " + this);
            }
            if (parts < 1 || parts > durationMs) {
                throw new IllegalArgumentException("an open-loop window is cut into 1 to durationMs parts (of"
                        + " at least 1 ms each); got " + parts + " parts of a " + durationMs + " ms window");
            }
        }
    }

    /**
     * What a run measured, for the requests scheduled in the window.
     *
     * @param sent          requests scheduled in the window
     * @param good          of those, 2xx responses within the client timeout
     * @param goodInWindow  2xx responses within their client's timeout that arrived inside the window,
     *                      whenever their request was scheduled (the goodput's count)
     * @param shed          503 responses
     * @param otherStatus   responses of any other status (or 2xx after the timeout, which cannot happen: the client gave up)
     * @param timeouts      requests whose client gave up at its deadline
     * @param errors        requests that failed to connect, send or read, or found no connection
     * @param seconds       the window's length
     * @param goodLatencies the latencies of the good responses, in nanoseconds, from the scheduled time
     * @param goodInParts   {@code goodInWindow} by the part of the window the response arrived in
     *                      ({@link Plan#parts()} counts, summing to {@code goodInWindow})
     * @param latencyParts  for each of {@code goodLatencies}, the part of the window its request was
     *                      scheduled in (0 to {@link Plan#parts()} - 1)
     */
    public record Result(
            long sent,
            long good,
            long goodInWindow,
            long shed,
            long otherStatus,
            long timeouts,
            long errors,
            double seconds,
            long[] goodLatencies,
            long[] goodInParts,
            int[] latencyParts) {

        /** Good responses that arrived inside the window, per second of the window. */
        public double goodput() {
            return goodInWindow / seconds;
        }

        /** Each part's goodput: the good responses that arrived in it, per second of it. */
        public List<Double> goodputByPart() {
            double partSeconds = seconds / goodInParts.length;
            return java.util.Arrays.stream(goodInParts)
                    .mapToObj(n -> n / partSeconds)
                    .toList();
        }

        /** The latency of good responses at quantile {@code q}, in milliseconds (NaN without any). */
        public double latencyMs(double q) {
            return quantileMs(goodLatencies, q);
        }

        /**
         * Each part's latency at quantile {@code q}, in milliseconds: of the good responses whose
         * requests were scheduled in that part (NaN for a part without any), so that a goal on the
         * latency can be judged on the parts' median and its interval (decision 0876), as the
         * goodput's is.
         */
        public List<Double> latencyMsByPart(double q) {
            List<Double> out = new ArrayList<>();
            for (int part = 0; part < goodInParts.length; part++) {
                int p = part;
                long[] mine = java.util.stream.IntStream.range(0, goodLatencies.length)
                        .filter(i -> latencyParts[i] == p)
                        .mapToLong(i -> goodLatencies[i])
                        .toArray();
                out.add(quantileMs(mine, q));
            }
            return out;
        }

        private static double quantileMs(long[] nanos, double q) {
            if (nanos.length == 0) {
                return Double.NaN;
            }
            long[] s = nanos.clone();
            java.util.Arrays.sort(s);
            int i = (int) Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1));
            return s[i] / 1e6;
        }
    }

    private final Plan plan;
    private final ConcurrentLinkedDeque<Socket> idle = new ConcurrentLinkedDeque<>();
    private final AtomicInteger open = new AtomicInteger();
    private final LongAdder sent = new LongAdder();
    private final LongAdder good = new LongAdder();
    private final LongAdder goodInWindow = new LongAdder();
    private final java.util.concurrent.atomic.AtomicLongArray goodInParts;
    private final LongAdder shed = new LongAdder();
    private final LongAdder other = new LongAdder();
    private final LongAdder timeouts = new LongAdder();
    private final LongAdder errors = new LongAdder();
    /** Good responses' {latency in ns, the part their request was scheduled in}. */
    private final ConcurrentLinkedQueue<long[]> latencies = new ConcurrentLinkedQueue<>();

    private final AtomicInteger outstanding = new AtomicInteger();

    private final Runnable atWindow;
    /** The window, System.nanoTime(); set before the first client starts (Thread.start publishes them). */
    private long windowStart;

    private long windowEnd;

    private OpenLoop(Plan plan, Runnable atWindow) {
        this.plan = plan;
        this.atWindow = atWindow;
        this.goodInParts = new java.util.concurrent.atomic.AtomicLongArray(plan.parts());
    }

    /**
     * Runs {@code plan}: warm-up, the measured window, then waits for the window's requests to end
     * (at most the client timeout and 0.2 s). {@code atWindow} runs on the pacer as the window opens
     * (e.g. to reset the server's own counters).
     */
    public static Result run(Plan plan, Runnable atWindow) throws InterruptedException {
        return new OpenLoop(plan, atWindow).go();
    }

    private Result go() throws InterruptedException {
        long intervalNanos = (long) (1e9 / plan.ratePerSecond());
        long start = System.nanoTime();
        windowStart = start + TimeUnit.MILLISECONDS.toNanos(plan.warmupMs());
        windowEnd = windowStart + TimeUnit.MILLISECONDS.toNanos(plan.durationMs());
        long epochOffset = System.currentTimeMillis() * 1_000_000L - start; // nanoTime to epoch, in ns
        // One pacer sends every request due, then parks until the next: a rate far above what a
        // park's precision allows is kept on average, and never slowed by the server.
        long i = 0;
        boolean windowOpen = false;
        while (true) {
            long due = start + i * intervalNanos;
            if (due >= windowEnd) {
                break;
            }
            long now = System.nanoTime();
            if (due > now) {
                LockSupport.parkNanos(due - now);
                continue;
            }
            boolean counted = due >= windowStart;
            if (counted && !windowOpen) {
                windowOpen = true;
                atWindow.run();
            }
            long scheduled = due;
            outstanding.incrementAndGet();
            Thread.ofVirtual().start(() -> {
                try {
                    one(scheduled, (scheduled + epochOffset) / 1_000_000L, counted);
                } finally {
                    outstanding.decrementAndGet();
                }
            });
            i++;
        }
        // Every client gives up at its deadline; a little more lets the last ones close their sockets.
        long waitUntil = System.nanoTime() + plan.clientTimeout().toNanos() + TimeUnit.MILLISECONDS.toNanos(200);
        while (outstanding.get() > 0 && System.nanoTime() < waitUntil) {
            Thread.sleep(10);
        }
        for (Socket s : idle) {
            closeQuietly(s);
        }
        List<long[]> l = new ArrayList<>(latencies);
        return new Result(
                sent.sum(),
                good.sum(),
                goodInWindow.sum(),
                shed.sum(),
                other.sum(),
                timeouts.sum(),
                errors.sum(),
                (windowEnd - windowStart) / 1e9,
                l.stream().mapToLong(x -> x[0]).toArray(),
                parts(),
                l.stream().mapToInt(x -> (int) x[1]).toArray());
    }

    /** One client: sends at {@code scheduled}, gives up at the deadline. */
    private void one(long scheduled, long startEpochMillis, boolean counted) {
        long timeoutNanos = plan.clientTimeout().toNanos();
        long deadlineEpochMillis = startEpochMillis + plan.clientTimeout().toMillis();
        if (counted) {
            sent.increment();
        }
        Socket s = idle.pollFirst();
        try {
            if (s == null) {
                if (open.incrementAndGet() > plan.maxConnections()) {
                    open.decrementAndGet();
                    if (counted) {
                        errors.increment();
                    }
                    return;
                }
                s = new Socket();
                s.setTcpNoDelay(true);
                s.connect(new InetSocketAddress("127.0.0.1", plan.port()), (int)
                        Math.max(1, remainingMillis(scheduled, timeoutNanos)));
            }
            OutputStream out = s.getOutputStream();
            out.write(("GET " + plan.path() + " HTTP/1.1\r\nHost: 127.0.0.1:" + plan.port() + "\r\n" + DEADLINE_HEADER
                            + ": " + deadlineEpochMillis + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            int answer = readResponse(s, scheduled, timeoutNanos);
            int status = answer & 0xffff;
            long arrived = System.nanoTime();
            long latency = arrived - scheduled;
            if (status >= 200
                    && status < 300
                    && latency <= timeoutNanos
                    && arrived - windowStart >= 0
                    && arrived - windowEnd < 0) {
                goodInWindow.increment();
                goodInParts.incrementAndGet(partOf(arrived)); // the part it arrived in
            }
            if (counted) {
                if (status >= 200 && status < 300 && latency <= timeoutNanos) {
                    good.increment();
                    latencies.add(new long[] {latency, partOf(scheduled)});
                } else if (status == 503) {
                    shed.increment();
                } else {
                    other.increment();
                }
            }
            if ((answer & CLOSE) == 0) {
                idle.addFirst(s);
                s = null;
            }
        } catch (SocketTimeoutException e) {
            if (counted) {
                timeouts.increment();
            }
        } catch (IOException e) {
            if (counted) {
                errors.increment();
            }
        } finally {
            if (s != null) {
                closeQuietly(s); // the client gives up and goes, as a real one does
                open.decrementAndGet();
            }
        }
    }

    /** The part of the window {@code nanoTime} falls in: parts of equal length, the last one closed by windowEnd. */
    private int partOf(long nanoTime) {
        return (int) ((nanoTime - windowStart) * plan.parts() / (windowEnd - windowStart));
    }

    private long[] parts() {
        long[] n = new long[goodInParts.length()];
        for (int i = 0; i < n.length; i++) {
            n[i] = goodInParts.get(i);
        }
        return n;
    }

    private static final int CLOSE = 1 << 16;

    private static long remainingMillis(long scheduled, long timeoutNanos) {
        return TimeUnit.NANOSECONDS.toMillis(scheduled + timeoutNanos - System.nanoTime());
    }

    /**
     * Reads one response (a Content-Length body, the only kind the overload servers send) and
     * returns its status, with {@link #CLOSE} set when the server closes the connection after it; a
     * read past the client's deadline throws SocketTimeoutException. Without pipelining nothing
     * follows the response, so a buffer per response loses nothing.
     */
    private static int readResponse(Socket s, long scheduled, long timeoutNanos) throws IOException {
        InputStream in = new BufferedInputStream(s.getInputStream(), 1024);
        StringBuilder head = new StringBuilder();
        int matched = 0;
        while (matched < 4) {
            long left = remainingMillis(scheduled, timeoutNanos);
            if (left <= 0) {
                throw new SocketTimeoutException("the client's deadline passed");
            }
            s.setSoTimeout((int) left);
            int b = in.read();
            if (b < 0) {
                throw new IOException("the server closed the connection");
            }
            head.append((char) b);
            matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
                    ? matched + 1
                    : (b == '\r' ? 1 : 0);
        }
        String h = head.toString();
        int status = Integer.parseInt(h.substring(9, 12));
        long length = 0;
        for (String line : h.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("content-length")) {
                length = Long.parseLong(line.substring(colon + 1).trim());
            }
        }
        in.skipNBytes(length); // EOFException (an IOException) when the body ends early
        return status | (h.toLowerCase(java.util.Locale.ROOT).contains("connection: close") ? CLOSE : 0);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing a socket the client gives up on: nothing to do about a failure
        }
    }
}
