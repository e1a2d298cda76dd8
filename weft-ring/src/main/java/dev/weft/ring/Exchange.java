package dev.weft.ring;

import clojure.lang.AFn;
import clojure.lang.IPersistentMap;
import dev.weft.limit.LimitExceededException;
import dev.weft.limit.Limiter;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request on its way through a {@link RingHandler}: the virtual thread that calls the Ring
 * handler, the parties that may answer instead of it, and the callback of the response's last write.
 *
 * <p>Protocol. Jetty calls {@link RingHandler#handle} on a virtual thread, which creates the
 * exchange and runs it ({@link #run}): wait for a turn under the limiter, build the Ring request
 * (its body a {@link RequestBody}), call the handler, write its response. Meanwhile the request
 * timeout ({@link #timedOut}, on Jetty's scheduler), the read-deadline sweep
 * ({@link #readDeadlinePassed}) or a stop ({@link #abandon}, {@link #rejectStopping}) may answer
 * instead. Which party answers, and when the exchange is finished, is {@link ExchangeState}'s: the
 * first to claim the answer writes it, and the exchange finishes (gives its permit back, leaves
 * the in-flight set) once the response is written and the handler is done, in either order.
 *
 * <p>Invariants: exactly one response is written per request, by the party that claimed it; the
 * handler's thread is interrupted only while it runs the handler ({@link #thread} is set then,
 * under this object's monitor, and cleared with any pending interrupt before the thread goes back
 * to Jetty); the permit is given back once, with a sample that says what the request showed of the
 * load (see {@link #releasePermit}); an idle timeout never cuts a request in its handler
 * ({@link #test}, {@link #excusesIdleTimeout}).
 */
final class Exchange extends ExchangeResponse
        implements Runnable, java.util.function.Predicate<TimeoutException>, java.util.function.Consumer<Throwable> {

    private static final Logger LOG = LoggerFactory.getLogger(RingHandler.class);

    private Thread thread; // the thread running the handler, while it does; guarded by this
    private volatile Limiter.Permit permit;
    private volatile RequestBody body; // the request's body, once the handler has it; null without one
    private volatile Scheduler.Task timeout;
    private volatile boolean handlerFailed; // answered 500: no sample for an adaptive limit
    private final RingHttpConnection connection; // the request's HTTP/1 connection, or null (HTTP/2)

    Exchange(RingHandler owner, Request request, Response response, Callback callback) {
        super(owner, request, response, callback);
        // Jetty's idle timeout must not cut a request whose handler is still working on it (a
        // slow handler is not an idle client): with no read or write pending, Jetty asks this
        // listener, and the timeout is ignored until the exchange has finished (so a streamed
        // body may pause between writes). Pending reads and writes still time out: those are the
        // client's. A firing acted on just as a write begins would fail that write; weft's HTTP/1
        // connections ask excusesIdleTimeout() first, which closes that race (RingHttpConnection).
        request.addIdleTimeoutListener(this); // test(): no listener object of its own per request
        // Jetty reports a client that went away (an HTTP/2 stream reset, a connection it saw close):
        // accept(), no listener object of its own per request either.
        request.addFailureListener(this);
        if (request.getConnectionMetaData().getConnection() instanceof RingHttpConnection http1) {
            http1.serving(this);
            connection = http1;
        } else {
            connection = null;
        }
    }

    /** Jetty's failure listener: see {@link #clientFailed}. */
    @Override
    public void accept(Throwable failure) {
        clientFailed(failure);
    }

    /** Jetty's idle-timeout listener: lets the timeout through only once the exchange has finished. */
    @Override
    public boolean test(TimeoutException timeout) {
        return isFinished();
    }

    /**
     * Whether an idle timeout of this exchange's connection is to be ignored: the request is in
     * its handler (waiting for a turn, running, or between reads of its body), its response's
     * write has not begun, and the handler is not waiting for the body (that wait is the client's).
     */
    boolean excusesIdleTimeout() {
        return !writing && !readingBody() && !isFinished();
    }

    /**
     * Called by the read-deadline sweep: when the handler is blocked reading a body that has not
     * arrived within the request-read timeout (counted from the request's start), answers 408 with
     * Connection: close and interrupts the handler. Returns whether it did.
     */
    boolean readDeadlinePassed(long nowNanos, long timeoutNanos) {
        RequestBody b = body;
        if (b == null || !b.reading() || nowNanos - request.getBeginNanoTime() < timeoutNanos) {
            return false;
        }
        b.fail(new TimeoutException("the request body did not arrive within the request-read timeout"));
        if (!claim(TIMED_OUT)) {
            return false;
        }
        LOG.debug(
                "{} {}: the request body did not arrive within the request-read timeout; answered 408",
                request.getMethod(),
                path());
        writeStatus(HttpStatus.REQUEST_TIMEOUT_408, "Request Timeout: the request did not arrive in time", false, true);
        interruptHandler();
        if (owner.async) {
            complete(HANDLER_DONE);
        }
        return true;
    }

    // ---- the handler's virtual thread ------------------------------------------------------

    @Override
    public void run() {
        synchronized (this) {
            thread = Thread.currentThread();
        }
        boolean handedOff = false;
        try {
            if (owner.limiter != null && !acquire()) {
                return;
            }
            if (any(ANSWERED)) {
                return; // the request timed out, or its client went away, while waiting for a permit
            }
            if (!endPoint().isOpen()) {
                // Work for a client that has gone is not started (decision 0900).
                clientFailed(new EofException("the client went away while the request waited for its turn"));
                return;
            }
            owner.admission.admit();
            InputStream in = RequestBody.of(request, owner.maxBodyBytes);
            if (in instanceof RequestBody b) {
                body = b;
            }
            IPersistentMap ring = RequestMap.of(request, in, connection);
            if (owner.async) {
                owner.handler.invoke(ring, new Respond(), new Raise());
                handedOff = true;
            } else {
                respond(owner.handler.invoke(ring));
            }
        } catch (Throwable t) {
            handlerFailed(t);
        } finally {
            detach();
            if (!handedOff) {
                complete(HANDLER_DONE);
            }
        }
    }

    /**
     * Ends the window in which a timeout or a stop may interrupt this thread. The thread goes on
     * running Jetty's code (the next request of the connection, say), so an interrupt meant for
     * the handler must not arrive later, nor stay pending.
     */
    private void detach() {
        synchronized (this) {
            thread = null;
        }
        Thread.interrupted();
    }

    /** Interrupts the handler, if it is still running. */
    private synchronized void interruptHandler() {
        if (thread != null) {
            thread.interrupt();
        }
    }

    private boolean acquire() {
        try {
            permit = owner.limiter.acquire();
            return true;
        } catch (LimitExceededException e) {
            if (claim(NO_REASON)) {
                owner.admission.reject();
                LOG.debug(
                        "{} {}: rejected with 503: {}",
                        request.getMethod(),
                        request.getHttpURI().getPath(),
                        e.getMessage());
                writeStatus(
                        HttpStatus.SERVICE_UNAVAILABLE_503,
                        "Service Unavailable: the server is at its limit of requests in flight",
                        true,
                        false);
            }
            return false;
        } catch (InterruptedException e) {
            // The request timed out (which answered it) or the server is stopping.
            if (claim(NO_REASON)) {
                writeStatus(HttpStatus.SERVICE_UNAVAILABLE_503, "Service Unavailable", true, false);
            }
            return false;
        }
    }

    /** The handler threw (or raised) {@code t}. */
    private void handlerFailed(Throwable t) {
        if (claim(NO_REASON)) {
            answerFailure(t);
            return;
        }
        if (any(TIMED_OUT | ABANDONED | GONE) && (Failures.interrupted(t) || bodyFailure() != null)) {
            LOG.debug(
                    "{} {}: the handler ended by interrupt after its request {}",
                    request.getMethod(),
                    path(),
                    any(TIMED_OUT)
                            ? "timed out"
                            : any(GONE) ? "lost its client" : "was abandoned by the server's stop");
        } else {
            LOG.error("{} {}: the handler failed after its request was answered", request.getMethod(), path(), t);
        }
    }

    /**
     * Answers a failure while holding the claim: when reading the request body failed, the
     * client's fault (413 over the size limit, 408 when it stopped sending, 400 for a malformed
     * body), else 500.
     */
    @Override
    void answerFailure(Throwable t) {
        Throwable failure = bodyFailure();
        if (failure != null) {
            int status = Failures.clientStatus(failure);
            LOG.debug(
                    "{} {}: reading the request body failed; answered {}",
                    request.getMethod(),
                    path(),
                    status,
                    failure);
            writeStatus(status, HttpStatus.getMessage(status), false, true);
        } else {
            handlerFailed = true;
            LOG.error("{} {}: the handler failed; answered 500", request.getMethod(), path(), t);
            writeStatus(HttpStatus.INTERNAL_SERVER_ERROR_500, "Internal Server Error", false, false);
        }
    }

    // ---- the other parties ------------------------------------------------------------------

    void scheduleTimeout(Scheduler scheduler, long nanos) {
        timeout = scheduler.schedule(this::timedOut, nanos, TimeUnit.NANOSECONDS);
    }

    void cancelTimeout() {
        Scheduler.Task t = timeout;
        if (t != null) {
            t.cancel();
        }
    }

    private void timedOut() {
        if (!claim(TIMED_OUT)) {
            return;
        }
        owner.admission.drop();
        LOG.debug("{} {}: no response within the request timeout; answered 503", request.getMethod(), path());
        writeStatus(HttpStatus.SERVICE_UNAVAILABLE_503, "Service Unavailable: the request timed out", false, false);
        interruptHandler();
        if (owner.async) {
            complete(HANDLER_DONE); // an asynchronous handler may never call back: stop waiting for it
        }
    }

    /**
     * Jetty's failure listener: the client went away (its HTTP/2 stream was reset, or its
     * connection closed) before the request was answered. Nobody can answer it any more: the
     * request is dropped and counted, and its handler interrupted, so that one still waiting for a
     * turn or for a pool's connection starts no work for a client that has gone (decision 0900).
     */
    private void clientFailed(Throwable cause) {
        if (!Failures.clientGone(cause)) {
            return; // a timeout (idle, or reading the body) is answered by its own path: 408, or the request timeout's
            // 503
        }
        if (owner.isShutdown()) {
            return; // the stop closes the connections: what is still in flight is abandoned, and counted so
        }
        if (!claim(GONE)) {
            return; // answered already: the write's callback reports what became of it
        }
        owner.admission.drop();
        LOG.debug(
                "{} {}: the client went away before the answer ({}); dropped",
                request.getMethod(),
                path(),
                Failures.describe(cause));
        interruptHandler();
        if (owner.async) {
            complete(HANDLER_DONE); // an asynchronous handler may never call back: stop waiting for it
        }
        lost(cause, true); // fails Jetty's callback; GONE keeps it out of the lost count
    }

    /** Answers a request that arrived while the server drains; runs on Jetty's thread. */
    void rejectStopping() {
        claim(NO_REASON);
        writeStatus(HttpStatus.SERVICE_UNAVAILABLE_503, "Service Unavailable: the server is stopping", true, true);
        complete(HANDLER_DONE);
    }

    /** Answers a request whose Content-Length is over the body limit; runs on Jetty's thread. */
    void rejectTooLarge() {
        claim(NO_REASON);
        LOG.debug(
                "{} {}: a body of {} bytes is over the limit of {}; answered 413",
                request.getMethod(),
                path(),
                request.getLength(),
                owner.maxBodyBytes);
        writeStatus(
                HttpStatus.PAYLOAD_TOO_LARGE_413,
                "Payload Too Large: the request body is over the limit of " + owner.maxBodyBytes + " bytes",
                false,
                true);
        complete(HANDLER_DONE);
    }

    /**
     * The server stopped with this request still in flight: nobody answers it any more (its
     * connection is closed); interrupt its handler and free its permit.
     */
    void abandon() {
        claim(ABANDONED);
        interruptHandler();
        cancelTimeout();
        releasePermit(true);
    }

    // ---- finishing ------------------------------------------------------------------------

    /** The request body's first failure, or null (none, or no body). */
    private Throwable bodyFailure() {
        RequestBody b = body;
        return b == null ? null : b.failure();
    }

    /** Whether the handler is blocked reading the request body (a wait for the client). */
    private boolean readingBody() {
        RequestBody b = body;
        return b != null && b.reading();
    }

    @Override
    void finished() {
        cancelTimeout();
        releasePermit(false);
        owner.finished(this);
    }

    /**
     * Gives the permit back (once: closing is idempotent). For an adaptive limit this is the
     * request's sample: a request timeout is a drop (overload); a stop, a handler failure or a
     * bad request body says nothing about the load; anything else is a completed call.
     */
    private void releasePermit(boolean abandoned) {
        Limiter.Permit p = permit;
        if (p == null) {
            return;
        }
        if (abandoned || handlerFailed || bodyFailure() != null || any(GONE)) {
            p.closeIgnored();
        } else if (any(TIMED_OUT)) {
            p.closeDropped();
        } else {
            p.close();
        }
    }

    /** Runs {@code r} on a virtual thread: this one when it is one, else a new one. */
    private void onVirtualThread(Runnable r) {
        if (Thread.currentThread().isVirtual()) {
            r.run();
        } else {
            owner.threads.newThread(r).start();
        }
    }

    /** The {@code respond} function an asynchronous handler gets. */
    private final class Respond extends AFn {
        @Override
        public Object invoke(Object ring) {
            try {
                onVirtualThread(() -> respond(ring));
            } finally {
                complete(HANDLER_DONE);
            }
            return null;
        }
    }

    /** The {@code raise} function an asynchronous handler gets. */
    private final class Raise extends AFn {
        @Override
        public Object invoke(Object error) {
            Throwable t = error instanceof Throwable th
                    ? th
                    : new IllegalArgumentException("raise was called with " + RingResponse.describe(error)
                            + "; pass it the Throwable that made the request fail");
            try {
                handlerFailed(t);
            } finally {
                complete(HANDLER_DONE);
            }
            return null;
        }
    }
}
