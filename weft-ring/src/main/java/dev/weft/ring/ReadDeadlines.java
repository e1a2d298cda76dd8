package dev.weft.ring;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request-read deadline: a client must send a request's head, and the body its handler is
 * waiting to read, within the timeout, counted from the request's start. Jetty's idle timeout
 * does not cover this (every byte resets it, so a client trickling one byte a second holds its
 * connection for ever); a sweep on Jetty's scheduler, every quarter of the timeout, answers such
 * a request 408 and closes its connection.
 *
 * <p>Heads are found by their parser's state (a head in progress has left the parser's start
 * state); the time a head started is the first sweep that saw it, so a head is cut between one
 * and one and a half times the timeout after its first byte. Bodies are the exchanges' own: an
 * exchange whose handler is blocked in a read of its body past the deadline answers 408 itself
 * ({@link Exchange#readDeadlinePassed}). A handler that never reads its body is not the client's
 * delay and is left alone.
 */
final class ReadDeadlines implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(RingHandler.class);

    private static final byte[] TIMEOUT_408 = ("HTTP/1.1 408 Request Timeout\r\n"
                    + "Content-Type: text/plain;charset=utf-8\r\nContent-Length: 54\r\nConnection: close\r\n\r\n"
                    + "Request Timeout: the request did not arrive in time.\r\n")
            .getBytes(StandardCharsets.ISO_8859_1);

    private final Set<Exchange> inFlight;
    private final long timeoutNanos;
    private final long periodNanos;
    private Map<Connection, long[]> heads = new HashMap<>(); // only the sweep (one at a time) touches it
    private volatile Server server;
    private volatile Scheduler.Task task;

    ReadDeadlines(Set<Exchange> inFlight, long timeoutNanos) {
        this.inFlight = inFlight;
        this.timeoutNanos = timeoutNanos;
        this.periodNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(20), timeoutNanos / 4);
    }

    void start(Server server) {
        this.server = server;
        schedule();
    }

    void stop() {
        Server s = server;
        server = null;
        Scheduler.Task t = task;
        if (t != null) {
            t.cancel();
        }
        if (s != null) {
            heads = new HashMap<>();
        }
    }

    private void schedule() {
        Server s = server;
        if (s != null) {
            task = s.getScheduler().schedule(this, periodNanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void run() {
        try {
            Server s = server;
            if (s != null) {
                sweep(s, System.nanoTime());
            }
        } catch (Throwable t) {
            LOG.warn(
                    "the request-read deadline check failed; it runs again in {} ms",
                    TimeUnit.NANOSECONDS.toMillis(periodNanos),
                    t);
        } finally {
            schedule();
        }
    }

    private void sweep(Server s, long now) {
        for (Exchange exchange : inFlight) {
            exchange.readDeadlinePassed(now, timeoutNanos);
        }
        Map<Connection, long[]> seen = new HashMap<>();
        for (Connector connector : s.getConnectors()) {
            for (EndPoint endPoint : connector.getConnectedEndPoints()) {
                Connection connection = endPoint.getConnection();
                if (connection instanceof SslConnection ssl) {
                    connection = ssl.getSslEndPoint().getConnection();
                }
                if (!(connection instanceof HttpConnection http)) {
                    continue; // HTTP/2 and WebSocket connections have limits of their own
                }
                HttpParser parser = http.getParser();
                if (parser.isStart() || !parser.inHeaderState()) {
                    continue;
                }
                long messages = http.getMessagesIn();
                long[] before = heads.get(connection);
                long since = before != null && before[0] == messages ? before[1] : now;
                if (now - since >= timeoutNanos) {
                    timeOut(http.getEndPoint());
                } else {
                    seen.put(connection, new long[] {messages, since});
                }
            }
        }
        heads = seen;
    }

    /** Answers a head that did not arrive in time: 408, then the connection is closed. */
    private static void timeOut(EndPoint endPoint) {
        LOG.debug(
                "a request head did not arrive within the request-read timeout from {}; answered 408",
                endPoint.getRemoteSocketAddress());
        endPoint.write(Callback.from(endPoint::close, endPoint::close), ByteBuffer.wrap(TIMEOUT_408));
    }
}
