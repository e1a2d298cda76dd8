package dev.weft.ring;

import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.IdleTimeout;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writing the answer of an {@link Exchange}: the Ring response map, a WebSocket upgrade, or a
 * status of weft's own (503, 408, 413, 500 ...), and the callback of the response's last write.
 *
 * <p>Protocol. Whoever answers first {@link #claim claims} the answer (see {@link ExchangeState}),
 * then writes with {@link #respond} or {@link #writeStatus}; the write's completion comes back to
 * {@link #succeeded} or {@link #failed} (this object is the last write's callback), which completes
 * the exchange's RESPONDED. A failed write is a lost response: counted once, logged once.
 *
 * <p>Invariants: exactly one last write per request (only the claimant writes); {@link #writing}
 * is set, and the connection marked active, before any byte of the response is handed to Jetty,
 * so a firing of the idle timeout decided before it is stale (see {@link RingHttpConnection});
 * Jetty's callback is completed exactly once, by {@link #succeeded} or {@link #lost}.
 */
abstract class ExchangeResponse extends ExchangeState implements Callback {

    private static final Logger LOG = LoggerFactory.getLogger(RingHandler.class);

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    final RingHandler owner;
    final Request request;
    final Response response;
    private final Callback callback;
    /** The response's first write has begun. */
    volatile boolean writing;
    /**
     * The first Content-Type value of the Ring response being applied (see
     * {@link RingResponse#apply}), or null; read on the thread that applied it.
     */
    String contentType;

    ExchangeResponse(RingHandler owner, Request request, Response response, Callback callback) {
        this.owner = owner;
        this.request = request;
        this.response = response;
        this.callback = callback;
    }

    /**
     * Answers {@code t} while holding the claim: the client's fault when reading the request body
     * failed, else the handler's (500).
     */
    abstract void answerFailure(Throwable t);

    /** The connection's endpoint, whose idle timeout a drain raises. */
    final EndPoint endPoint() {
        return request.getConnectionMetaData().getConnection().getEndPoint();
    }

    /** Writes the Ring response map {@code ring}, unless someone else answered first. Blocks. */
    final void respond(Object ring) {
        if (!claim(NO_REASON)) {
            dropped("response");
            return;
        }
        Object listener = RingResponse.webSocketListener(ring);
        if (listener != null) {
            upgrade(ring, listener);
            return;
        }
        Object body;
        try {
            body = RingResponse.apply(ring, this);
        } catch (Throwable t) {
            response.reset();
            answerFailure(t);
            return;
        }
        if (owner.isShutdown()) {
            closeAfterResponse();
        }
        try {
            if (body == null) {
                writeLast(EMPTY);
            } else if (body instanceof String s) {
                Charset charset = RingResponse.charsetOf(contentType); // what apply() added, not looked up again
                writeLast(ByteBuffer.wrap(s.getBytes(charset)));
            } else if (body instanceof byte[] bytes) {
                writeLast(ByteBuffer.wrap(bytes));
            } else {
                OutputStream out = Content.Sink.asOutputStream((last, chunk, cb) -> {
                    beginWrite();
                    response.write(last, chunk, cb);
                });
                owner.bodyWriter.invoke(body, ring, out);
                out.close();
                succeeded();
            }
        } catch (Throwable t) {
            bodyFailed(t);
        }
    }

    /** Answers a WebSocket response: upgrades the connection, or says why it cannot. */
    final void upgrade(Object ring, Object listener) {
        beginWrite();
        WebSockets ws = owner.webSockets;
        try {
            if (ws == null) {
                throw new IllegalStateException("this server does not serve WebSockets");
            }
            RingResponse.checkListener(listener, ws);
            if (ws.upgrade(listener, RingResponse.webSocketProtocol(ring), request, response, this)) {
                return;
            }
        } catch (Throwable t) {
            response.reset();
            answerFailure(t);
            return;
        }
        LOG.debug(
                "{} {}: a WebSocket response to a request that is not a WebSocket upgrade; answered 426",
                request.getMethod(),
                path());
        response.getHeaders().put(HttpHeader.UPGRADE, "websocket");
        writeStatus(HttpStatus.UPGRADE_REQUIRED_426, "Upgrade Required: this resource is a WebSocket", false, false);
    }

    final void bodyFailed(Throwable t) {
        if (!response.isCommitted()) {
            response.reset();
            answerFailure(t);
            return;
        }
        if (!Failures.clientGone(t) && !Failures.interrupted(t)) {
            // The application's body writer failed: its bug, logged with its stack; failed() counts
            // the response as lost without logging it again.
            LOG.error(
                    "{} {}: writing the response body failed after the status was sent; the connection is closed",
                    request.getMethod(),
                    path(),
                    t);
            lost(t, true);
        } else {
            failed(t);
        }
    }

    @Override
    public void succeeded() {
        callback.succeeded();
        complete(RESPONDED);
    }

    @Override
    public void failed(Throwable x) {
        lost(x, false);
    }

    /**
     * The response could not be written (the client went away, the connection timed out or was
     * closed, or the body failed): it is counted as lost, in the server's statistics and in the
     * result of a drain under way, and logged once at WARN unless {@code logged}. A request the
     * server's stop abandoned is counted as abandoned instead.
     */
    final void lost(Throwable x, boolean logged) {
        if (!any(ABANDONED | GONE)) {
            owner.countLost();
            if (!logged) {
                if (Failures.clientGone(x) || x instanceof TimeoutException) {
                    LOG.warn("{} {}: the response was lost: {}", request.getMethod(), path(), Failures.describe(x));
                } else {
                    LOG.warn("{} {}: the response was lost", request.getMethod(), path(), x);
                }
            }
        }
        callback.failed(x);
        complete(RESPONDED);
    }

    @Override
    public InvocationType getInvocationType() {
        return callback.getInvocationType();
    }

    /**
     * Ends the connection with this response (HTTP/1 only: HTTP/2 has no Connection header, and
     * its streams end on their own).
     */
    final void closeAfterResponse() {
        if (request.getConnectionMetaData().getHttpVersion().getVersion() < 20) {
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
        }
    }

    final void writeStatus(int status, String text, boolean retryAfter, boolean close) {
        response.setStatus(status);
        HttpFields.Mutable headers = response.getHeaders();
        headers.put(HttpHeader.CONTENT_TYPE, "text/plain;charset=utf-8");
        if (retryAfter) {
            headers.put(HttpHeader.RETRY_AFTER, owner.retryAfterSeconds);
        }
        if (close || owner.isShutdown()) {
            closeAfterResponse();
        }
        writeLast(ByteBuffer.wrap((text + "\n").getBytes(StandardCharsets.UTF_8)));
    }

    /** Writes the response's last (here: only) content, completing this callback. */
    final void writeLast(ByteBuffer content) {
        beginWrite();
        response.write(true, content, this);
    }

    /**
     * Marks the connection active as a write of the response begins, then the exchange as writing:
     * from here on the idle timeout measures the client, and a write fails only when the client
     * has taken none of it for a whole idle timeout. Jetty fails a write that is pending when the
     * idle timeout expires, however briefly it has been pending: the mark makes a firing decided
     * before the write stale, and {@link RingHttpConnection} ignores a stale one (the order, mark
     * first, is what lets it tell). The mark goes to every endpoint down to the socket's (under TLS).
     */
    final void beginWrite() {
        for (EndPoint e = endPoint(); e != null; e = e instanceof EndPoint.Wrapper w ? w.unwrap() : null) {
            if (e instanceof IdleTimeout idle) {
                idle.notIdle();
            }
        }
        writing = true;
    }

    final void dropped(String what) {
        if (any(TIMED_OUT | ABANDONED | GONE)) {
            LOG.debug(
                    "{} {}: the handler's {} came after the request {}; dropped",
                    request.getMethod(),
                    path(),
                    what,
                    any(TIMED_OUT)
                            ? "timed out"
                            : any(GONE) ? "lost its client" : "was abandoned by the server's stop");
        } else {
            LOG.warn(
                    "{} {}: the handler answered more than once; only its first {} was sent",
                    request.getMethod(),
                    path(),
                    what);
        }
    }

    final String path() {
        return request.getHttpURI().getPath();
    }
}
