package dev.weft.ring;

import clojure.lang.IFn;
import dev.weft.limit.Limiter;
import dev.weft.thread.ThreadPolicy;
import dev.weft.thread.WeftThreads;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.component.Graceful;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Jetty 12 handler that serves a Ring handler, calling it on a new virtual thread for every
 * request. {@code weft.ring/run-server} builds one; Java code may use it directly.
 *
 * <p>Model. The handler is blocking, so Jetty's few acceptor and selector threads never run it:
 * given {@link #virtualThreads()} as its pool's virtual-threads executor, Jetty reads, parses and
 * handles each request on a new virtual thread named {@code weft-ring-<n>}, and {@link #handle}
 * calls the Ring handler right there (called on a platform thread, it starts such a thread
 * itself). On the virtual thread the request waits for a permit of the optional
 * {@link Limiter} (rejected requests get 503 with {@code Retry-After}), becomes a Ring request map,
 * and goes to the handler; the response map it returns (or passes to {@code respond}, for an
 * asynchronous handler) is written on a virtual thread too, so bodies may block. Exactly one
 * response is sent per request: the handler's, a 500 when the handler throws or returns something
 * that is not a valid response map, a 503 when the limiter rejects the request or the optional
 * request timeout fires first, or the status of a bad request body the handler ran into (e.g.
 * 413 from a body size limit). A handler's exception is logged once, through SLF4J, and never sent
 * to the client.
 *
 * <p>Timeout. With a request timeout, a request whose handler has not returned (or called
 * {@code respond} or {@code raise}) within it gets a 503, and its handler thread is interrupted;
 * what the handler returns afterwards is dropped. The time counts from the moment Jetty hands over
 * the request, so time spent waiting for a permit counts too. Writing the body is not covered:
 * Jetty's idle timeout guards slow clients.
 *
 * <p>Connections. Serve it through a {@link RingConnector} whose HTTP/1.1 factory is
 * {@link RingConnector#http1}: the connector keeps the connections of requests in flight open
 * for a drain, and the factory's connections keep Jetty's idle timeout off a request still in its
 * handler (with another factory, a timeout that fires as a slow handler's response begins can
 * fail that response).
 *
 * <p>Drain. The handler is {@link Graceful}: when the server stops with a stop timeout, new requests
 * (on connections that are still open) get 503 with {@code Connection: close}, and the stop waits
 * until every request in flight has its response written and its handler returned. Whatever is
 * still in flight when the server stops is abandoned: its handler thread is interrupted, and
 * {@link #abandoned()} counts it.
 *
 * <p>Memory consistency effects: Jetty's actions before calling {@link #handle} happen-before the
 * handler's call on its virtual thread; the handler's actions before returning its response (or
 * calling {@code respond}) happen-before the response is written.
 */
public final class RingHandler extends Handler.Abstract implements Graceful {

    private static final Logger LOG = LoggerFactory.getLogger(RingHandler.class);

    final IFn handler;
    final boolean async;
    final Limiter limiter;
    final long timeoutNanos;
    final String retryAfterSeconds;
    final IFn bodyWriter;
    final long maxBodyBytes;
    final ThreadFactory threads = WeftThreads.factory("ring", ThreadPolicy.VIRTUAL);

    private final Set<Exchange> inFlight = ConcurrentHashMap.newKeySet();
    private final Shutdown shutdown = new Shutdown(this) {
        @Override
        public boolean isShutdownDone() {
            return inFlight.isEmpty();
        }
    };
    private volatile int abandoned;
    private final java.util.concurrent.atomic.LongAdder lost = new java.util.concurrent.atomic.LongAdder();
    final Admission admission = new Admission();
    private volatile long lostBeforeDrain = -1; // lost() when the current drain began, or -1
    private volatile long lostInDrain;
    final long readTimeoutNanos;
    private final ReadDeadlines readDeadlines;
    volatile WebSockets webSockets;

    /**
     * A handler serving {@code handler}.
     *
     * @param handler           the Ring handler: a function of a request map (or, when {@code async},
     *                          of a request map, {@code respond} and {@code raise})
     * @param async             whether to call the 3-argument (asynchronous) arity
     * @param limiter           bounds the requests in flight and those waiting, or null for no bound
     * @param requestTimeout    the longest a request waits for its handler, or null for no limit
     * @param retryAfterSeconds the {@code Retry-After} of a 503 sent when the server is full or stopping
     * @param maxBodyBytes      the largest request body, or -1 for no limit: a larger Content-Length
     *                          is answered 413 without calling the handler; a chunked body that grows
     *                          past it fails the handler's read, and the request is answered 413
     * @param bodyWriter        writes a response body that is not a String, byte array or nil to an
     *                          OutputStream: {@code (fn [body response-map output-stream])}, in weft
     *                          the {@code weft.ring.protocols/write-body-to-stream} var
     * @param requestReadTimeout the longest a client may take to send a request's head, and its body
     *                          (counted from the request's first byte) while the handler waits to read
     *                          it; then it gets 408 and the connection is closed. Checked every quarter
     *                          of it, so the cut comes within 1.5 times it. Null for no deadline.
     * @throws IllegalArgumentException if a timeout is not positive, or retryAfterSeconds or
     *                                  maxBodyBytes (other than -1) is negative
     */
    public RingHandler(
            IFn handler,
            boolean async,
            Limiter limiter,
            Duration requestTimeout,
            int retryAfterSeconds,
            long maxBodyBytes,
            IFn bodyWriter,
            Duration requestReadTimeout) {
        this.handler = Objects.requireNonNull(handler, "handler");
        this.async = async;
        this.limiter = limiter;
        if (requestTimeout != null && (requestTimeout.isZero() || requestTimeout.isNegative())) {
            throw new IllegalArgumentException("the request timeout must be positive; got " + requestTimeout);
        }
        this.timeoutNanos = requestTimeout == null ? 0 : requestTimeout.toNanos();
        if (retryAfterSeconds < 0) {
            throw new IllegalArgumentException(
                    "Retry-After must be a number of seconds >= 0; got " + retryAfterSeconds);
        }
        this.retryAfterSeconds = Integer.toString(retryAfterSeconds);
        if (maxBodyBytes < -1) {
            throw new IllegalArgumentException(
                    "the body limit must be a number of bytes >= 0, or -1 for none; got " + maxBodyBytes);
        }
        this.maxBodyBytes = maxBodyBytes;
        this.bodyWriter = Objects.requireNonNull(bodyWriter, "bodyWriter");
        if (requestReadTimeout != null && (requestReadTimeout.isZero() || requestReadTimeout.isNegative())) {
            throw new IllegalArgumentException("the request-read timeout must be positive; got " + requestReadTimeout);
        }
        this.readTimeoutNanos = requestReadTimeout == null ? 0 : requestReadTimeout.toNanos();
        this.readDeadlines = readTimeoutNanos > 0 ? new ReadDeadlines(inFlight, readTimeoutNanos) : null;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        Exchange exchange = new Exchange(this, request, response, callback);
        // Counted before the shutdown check, so that a drain never misses a request it let in.
        inFlight.add(exchange);
        if (shutdown.isShutdown()) {
            exchange.rejectStopping();
            return true;
        }
        if (maxBodyBytes >= 0 && request.getLength() > maxBodyBytes) {
            exchange.rejectTooLarge();
            return true;
        }
        try {
            if (timeoutNanos > 0) {
                exchange.scheduleTimeout(getServer().getScheduler(), timeoutNanos);
            }
            if (Thread.currentThread().isVirtual()) {
                exchange.run(); // Jetty already runs this request on a virtual thread of ours
            } else {
                threads.newThread(exchange).start();
            }
        } catch (Throwable t) {
            exchange.cancelTimeout();
            inFlight.remove(exchange);
            throw t;
        }
        return true;
    }

    /**
     * The executor to give Jetty's thread pool as its virtual-threads executor: every task on a new
     * virtual thread named {@code weft-ring-<n>}. With it, Jetty reads, parses and handles each
     * request on such a thread, and {@link #handle} calls the Ring handler right there.
     */
    public java.util.concurrent.Executor virtualThreads() {
        return task -> threads.newThread(task).start();
    }

    /** Called by an exchange once its response is complete and its handler has returned. */
    void finished(Exchange exchange) {
        inFlight.remove(exchange);
        if (shutdown.isShutdown()) {
            shutdown.check();
        }
    }

    /** Requests in flight now: let in, and not yet both answered and returned from their handler. */
    public int inFlight() {
        return inFlight.size();
    }

    /**
     * Requests that were still in flight when the server stopped: their handler threads were
     * interrupted and their responses, if any, were not sent.
     */
    public int abandoned() {
        return abandoned;
    }

    /**
     * Responses that could not be written since the server started: the client went away, its
     * connection timed out or was closed, or the body failed after the status was sent. Requests
     * abandoned by a stop are counted by {@link #abandoned()} instead.
     */
    public long lost() {
        return lost.sum();
    }

    /** Responses lost while the last drain ran (see {@link #lost()}); 0 before any stop. */
    public long lostInDrain() {
        return lostInDrain;
    }

    /** Counts one lost response. */
    void countLost() {
        lost.increment();
    }

    /**
     * Keeps the connections of the requests in flight open for the drain: Jetty's connectors lower
     * every connection's idle timeout to their shutdown idle timeout when a stop begins (so that
     * idle connections close soon); a connection whose request is still being handled or written
     * gets the drain's whole timeout instead. Called by the connector right after it lowered them.
     */
    public void holdOpenForDrain(long drainMillis) {
        if (drainMillis <= 0) {
            return;
        }
        for (Exchange exchange : inFlight) {
            var endPoint = exchange.endPoint();
            if (endPoint.getIdleTimeout() < drainMillis) {
                endPoint.setIdleTimeout(drainMillis);
            }
        }
    }

    /**
     * Serves WebSockets on {@code server} (Ring's WebSocket spec): a response map with
     * {@code :ring.websocket/listener} to a WebSocket upgrade request upgrades the connection. Call
     * before the server starts.
     *
     * @param listenerCaller     calls a listener that is not a map:
     *                           {@code (fn ([listener] valid?) ([listener event socket a b]))}, in weft
     *                           the function over ring-core's {@code ring.websocket.protocols/Listener},
     *                           or null when ring-core is absent (then listeners must be maps)
     * @param idleTimeout        closes a socket idle this long
     * @param maxMessageBytes    the largest text or binary message; a larger one closes the socket
     *                           with 1009 (message too big)
     */
    public void enableWebSockets(
            org.eclipse.jetty.server.Server server, IFn listenerCaller, Duration idleTimeout, long maxMessageBytes) {
        WebSockets ws = new WebSockets(threads, listenerCaller, idleTimeout, maxMessageBytes);
        ws.install(server);
        webSockets = ws;
    }

    /** WebSockets open now (0 when WebSockets are not enabled). */
    public int openWebSockets() {
        WebSockets ws = webSockets;
        return ws == null ? 0 : ws.openCount();
    }

    /**
     * Requests this server let past its limiter since it started (all requests handed to the
     * handler's thread, without a limiter).
     */
    public long admitted() {
        return admission.admitted();
    }

    /** Requests this server shed with 503 because its limiter was full, since it started. */
    public long shed() {
        return admission.shed();
    }

    /**
     * Requests dropped since the server started because their request timeout passed or their
     * client went away before they were answered: waiting for a turn, or in a handler that was
     * then interrupted (so a handler waiting for a pool's connection borrows none).
     */
    public long dropped() {
        return admission.dropped();
    }

    /** The limiter bounding requests in flight, or null. */
    public Limiter limiter() {
        return limiter;
    }

    @Override
    public CompletableFuture<Void> shutdown() {
        if (!shutdown.isShutdown()) {
            lostBeforeDrain = lost.sum();
        }
        WebSockets ws = webSockets;
        if (ws != null) {
            ws.closeAll(); // a drain waits for requests, not for sockets that stay open for ever
        }
        return shutdown.shutdown();
    }

    @Override
    public boolean isShutdown() {
        return shutdown.isShutdown();
    }

    @Override
    protected void doStart() throws Exception {
        shutdown.cancel();
        abandoned = 0;
        lostBeforeDrain = -1;
        lostInDrain = 0;
        super.doStart();
        if (readDeadlines != null) {
            readDeadlines.start(getServer());
        }
    }

    @Override
    protected void doStop() throws Exception {
        // Jetty stops the connectors before its handlers: whatever is left can no longer be answered.
        int left = 0;
        for (Exchange exchange : inFlight) {
            exchange.abandon();
            left++;
        }
        inFlight.clear();
        abandoned = left;
        long before = lostBeforeDrain;
        lostInDrain = before < 0 ? 0 : lost.sum() - before;
        if (readDeadlines != null) {
            readDeadlines.stop();
        }
        if (left > 0) {
            LOG.warn(
                    "stopped with {} request{} still in flight; {} handler thread{} interrupted and {} response{} not sent",
                    left,
                    left == 1 ? "" : "s",
                    left == 1 ? "its" : "their",
                    left == 1 ? " was" : "s were",
                    left == 1 ? "its" : "their",
                    left == 1 ? "" : "s");
        }
        super.doStop();
    }
}
