package dev.weft.ring;

import clojure.lang.AFn;
import clojure.lang.IPersistentMap;
import dev.weft.limit.LimitExceededException;
import dev.weft.limit.Limiter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.BadMessageException;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.io.IdleTimeout;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request on its way through a {@link RingHandler}: the virtual thread that calls the Ring
 * handler, and the callback of the response's last write.
 *
 * <p>Implementation overview. Four parties may want to answer a request: its handler (returning
 * or calling {@code respond}/{@code raise}), the request timeout, the limiter's rejection, and
 * Jetty's report that the client went away ({@link #GONE}: nobody answers, the request is dropped).
 * The first to set {@link #CLAIMED} answers; the others drop what they have. The exchange is finished,
 * and leaves the handler's in-flight set and gives its permit back, once both {@link #RESPONDED}
 * (Jetty's callback completed) and {@link #HANDLER_DONE} (the handler returned, or an asynchronous
 * handler responded, raised or timed out) are set, whichever comes last.
 */
final class Exchange implements Runnable, Callback, java.util.function.Predicate<TimeoutException> {

    private static final Logger LOG = LoggerFactory.getLogger(RingHandler.class);

    static final int CLAIMED = 1;
    static final int RESPONDED = 2;
    static final int HANDLER_DONE = 4;
    static final int TIMED_OUT = 8;
    static final int ABANDONED = 16;
    static final int GONE = 32; // the client went away before the answer (decision 0900)
    private static final int FINISHED = RESPONDED | HANDLER_DONE;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Exchange.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final RingHandler owner;
    private final Request request;
    private final Response response;
    private final Callback callback;
    @SuppressWarnings("unused") // through STATE
    private volatile int state;
    private Thread thread; // the thread running the handler, while it does; guarded by this
    private volatile Limiter.Permit permit;
    private volatile Throwable bodyFailure; // the first failed read of the request body
    private volatile Scheduler.Task timeout;
    private volatile boolean readingBody; // the handler is inside a read of the request body
    private volatile boolean handlerFailed; // answered 500: no sample for an adaptive limit
    private volatile boolean writing; // the response's first write has begun

    Exchange(RingHandler owner, Request request, Response response, Callback callback) {
        this.owner = owner;
        this.request = request;
        this.response = response;
        this.callback = callback;
        // Jetty's idle timeout must not cut a request whose handler is still working on it (a
        // slow handler is not an idle client): with no read or write pending, Jetty asks this
        // listener, and the timeout is ignored until the exchange has finished (so a streamed
        // body may pause between writes). Pending reads and writes still time out: those are the
        // client's. A firing acted on just as a write begins would fail that write; weft's HTTP/1
        // connections ask excusesIdleTimeout() first, which closes that race (RingHttpConnection).
        request.addIdleTimeoutListener(this); // test(): no listener object of its own per request
        // Jetty reports a client that went away (an HTTP/2 stream reset, a connection it saw close).
        request.addFailureListener(this::clientFailed);
        if (request.getConnectionMetaData().getConnection() instanceof RingHttpConnection connection) {
            connection.serving(this);
        }
    }

    /** Jetty's idle-timeout listener: lets the timeout through only once the exchange has finished. */
    @Override
    public boolean test(TimeoutException timeout) {
        return ((int) STATE.getVolatile(this) & FINISHED) == FINISHED;
    }

    /**
     * Whether an idle timeout of this exchange's connection is to be ignored: the request is in
     * its handler (waiting for a turn, running, or between reads of its body), its response's
     * write has not begun, and the handler is not waiting for the body (that wait is the client's).
     */
    boolean excusesIdleTimeout() {
        return !writing && !readingBody && ((int) STATE.getVolatile(this) & FINISHED) != FINISHED;
    }

    /** The connection's endpoint, whose idle timeout a drain raises. */
    EndPoint endPoint() {
        return request.getConnectionMetaData().getConnection().getEndPoint();
    }

    /**
     * Called by the read-deadline sweep: when the handler is blocked reading a body that has not
     * arrived within the request-read timeout (counted from the request's start), answers 408 with
     * Connection: close and interrupts the handler. Returns whether it did.
     */
    boolean readDeadlinePassed(long nowNanos, long timeoutNanos) {
        if (!readingBody || nowNanos - request.getBeginNanoTime() < timeoutNanos) {
            return false;
        }
        if (bodyFailure == null) {
            bodyFailure = new TimeoutException("the request body did not arrive within the request-read timeout");
        }
        if (!claim(TIMED_OUT)) {
            return false;
        }
        LOG.debug("{} {}: the request body did not arrive within the request-read timeout; answered 408",
                request.getMethod(), path());
        writeStatus(HttpStatus.REQUEST_TIMEOUT_408, "Request Timeout: the request did not arrive in time", false, true);
        interruptHandler();
        if (owner.async) {
            set(HANDLER_DONE);
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
            if (((int) STATE.getVolatile(this) & CLAIMED) != 0) {
                return; // the request timed out, or its client went away, while waiting for a permit
            }
            if (!endPoint().isOpen()) {
                // Work for a client that has gone is not started (decision 0900).
                clientFailed(new EofException("the client went away while the request waited for its turn"));
                return;
            }
            owner.admission.admit();
            boolean body = hasBody(request);
            IPersistentMap ring = RequestMap.of(request, body
                    ? new RequestBody(Request.asInputStream(request), owner.maxBodyBytes)
                    : EmptyBody.INSTANCE);
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
                set(HANDLER_DONE);
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
            if (claim(0)) {
                owner.admission.reject();
                LOG.debug("{} {}: rejected with 503: {}", request.getMethod(), request.getHttpURI().getPath(), e.getMessage());
                writeStatus(HttpStatus.SERVICE_UNAVAILABLE_503, "Service Unavailable: the server is at its limit of requests in flight",
                        true, false);
            }
            return false;
        } catch (InterruptedException e) {
            // The request timed out (which answered it) or the server is stopping.
            if (claim(0)) {
                writeStatus(HttpStatus.SERVICE_UNAVAILABLE_503, "Service Unavailable", true, false);
            }
            return false;
        }
    }

    /** Writes the Ring response map {@code ring}, unless someone else answered first. Blocks. */
    void respond(Object ring) {
        if (!claim(0)) {
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
            body = RingResponse.apply(ring, response);
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
                Charset charset = RingResponse.charsetOf(response.getHeaders().get(HttpHeader.CONTENT_TYPE));
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
    private void upgrade(Object ring, Object listener) {
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
        LOG.debug("{} {}: a WebSocket response to a request that is not a WebSocket upgrade; answered 426",
                request.getMethod(), path());
        response.getHeaders().put(HttpHeader.UPGRADE, "websocket");
        writeStatus(HttpStatus.UPGRADE_REQUIRED_426, "Upgrade Required: this resource is a WebSocket", false, false);
    }

    private void bodyFailed(Throwable t) {
        if (!response.isCommitted()) {
            response.reset();
            answerFailure(t);
            return;
        }
        if (!clientGone(t) && !interrupted(t)) {
            // The application's body writer failed: its bug, logged with its stack; failed() counts
            // the response as lost without logging it again.
            LOG.error("{} {}: writing the response body failed after the status was sent; the connection is closed",
                    request.getMethod(), path(), t);
            lost(t, true);
        } else {
            failed(t);
        }
    }

    /** The handler threw (or raised) {@code t}. */
    private void handlerFailed(Throwable t) {
        if (claim(0)) {
            answerFailure(t);
            return;
        }
        int s = (int) STATE.getVolatile(this);
        if ((s & (TIMED_OUT | ABANDONED | GONE)) != 0 && (interrupted(t) || bodyFailure != null)) {
            LOG.debug("{} {}: the handler ended by interrupt after its request {}", request.getMethod(), path(),
                    (s & TIMED_OUT) != 0 ? "timed out" : (s & GONE) != 0 ? "lost its client" : "was abandoned by the server's stop");
        } else {
            LOG.error("{} {}: the handler failed after its request was answered", request.getMethod(), path(), t);
        }
    }

    /**
     * Answers a failure while holding the claim: when reading the request body failed, the
     * client's fault (413 over the size limit, 408 when it stopped sending, 400 for a malformed
     * body), else 500.
     */
    private void answerFailure(Throwable t) {
        Throwable body = bodyFailure;
        if (body != null) {
            int status = clientStatus(body);
            LOG.debug("{} {}: reading the request body failed; answered {}", request.getMethod(), path(), status, body);
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
            set(HANDLER_DONE); // an asynchronous handler may never call back: stop waiting for it
        }
    }

    /**
     * Jetty's failure listener: the client went away (its HTTP/2 stream was reset, or its
     * connection closed) before the request was answered. Nobody can answer it any more: the
     * request is dropped and counted, and its handler interrupted, so that one still waiting for a
     * turn or for a pool's connection starts no work for a client that has gone.
     */
    private void clientFailed(Throwable cause) {
        if (!clientGone(cause)) {
            return; // a timeout (idle, or reading the body) is answered by its own path: 408, or the request timeout's 503
        }
        if (owner.isShutdown()) {
            return; // the stop closes the connections: what is still in flight is abandoned, and counted so
        }
        if (!claim(GONE)) {
            return; // answered already: the write's callback reports what became of it
        }
        owner.admission.drop();
        LOG.debug("{} {}: the client went away before the answer ({}); dropped", request.getMethod(), path(),
                describe(cause));
        interruptHandler();
        if (owner.async) {
            set(HANDLER_DONE); // an asynchronous handler may never call back: stop waiting for it
        }
        callback.failed(cause);
        set(RESPONDED);
    }

    /** Answers a request that arrived while the server drains; runs on Jetty's thread. */
    void rejectStopping() {
        claim(0);
        writeStatus(HttpStatus.SERVICE_UNAVAILABLE_503, "Service Unavailable: the server is stopping", true, true);
        set(HANDLER_DONE);
    }

    /** Answers a request whose Content-Length is over the body limit; runs on Jetty's thread. */
    void rejectTooLarge() {
        claim(0);
        LOG.debug("{} {}: a body of {} bytes is over the limit of {}; answered 413", request.getMethod(), path(),
                request.getLength(), owner.maxBodyBytes);
        writeStatus(HttpStatus.PAYLOAD_TOO_LARGE_413, "Payload Too Large: the request body is over the limit of "
                + owner.maxBodyBytes + " bytes", false, true);
        set(HANDLER_DONE);
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

    // ---- Callback: the completion of the response's last write -------------------------------

    @Override
    public void succeeded() {
        callback.succeeded();
        set(RESPONDED);
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
    private void lost(Throwable x, boolean logged) {
        if (((int) STATE.getVolatile(this) & ABANDONED) == 0) {
            owner.countLost();
            if (!logged) {
                if (clientGone(x) || x instanceof TimeoutException) {
                    LOG.warn("{} {}: the response was lost: {}", request.getMethod(), path(), describe(x));
                } else {
                    LOG.warn("{} {}: the response was lost", request.getMethod(), path(), x);
                }
            }
        }
        callback.failed(x);
        set(RESPONDED);
    }

    private static String describe(Throwable x) {
        String m = x.getMessage();
        return x.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }

    @Override
    public InvocationType getInvocationType() {
        return callback.getInvocationType();
    }

    // ---- state --------------------------------------------------------------------------------

    /** Takes the right to answer, adding {@code extra} bits; false when someone already has it. */
    private boolean claim(int extra) {
        for (;;) {
            int s = (int) STATE.getVolatile(this);
            if ((s & CLAIMED) != 0) {
                return false;
            }
            if (STATE.compareAndSet(this, s, s | CLAIMED | extra)) {
                return true;
            }
        }
    }

    private void set(int bits) {
        for (;;) {
            int s = (int) STATE.getVolatile(this);
            int next = s | bits;
            if (s == next) {
                return;
            }
            if (STATE.compareAndSet(this, s, next)) {
                if ((next & FINISHED) == FINISHED && (s & FINISHED) != FINISHED) {
                    finish();
                }
                return;
            }
        }
    }

    private void finish() {
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
        if (abandoned || handlerFailed || bodyFailure != null || ((int) STATE.getVolatile(this) & GONE) != 0) {
            p.closeIgnored();
        } else if (((int) STATE.getVolatile(this) & TIMED_OUT) != 0) {
            p.closeDropped();
        } else {
            p.close();
        }
    }

    /**
     * Ends the connection with this response (HTTP/1 only: HTTP/2 has no Connection header, and
     * its streams end on their own).
     */
    private void closeAfterResponse() {
        if (request.getConnectionMetaData().getHttpVersion().getVersion() < 20) {
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
        }
    }

    private void writeStatus(int status, String text, boolean retryAfter, boolean close) {
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
    private void writeLast(ByteBuffer content) {
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
    private void beginWrite() {
        for (EndPoint e = endPoint(); e != null; e = e instanceof EndPoint.Wrapper w ? w.unwrap() : null) {
            if (e instanceof IdleTimeout idle) {
                idle.notIdle();
            }
        }
        writing = true;
    }

    private void dropped(String what) {
        int s = (int) STATE.getVolatile(this);
        if ((s & (TIMED_OUT | ABANDONED | GONE)) != 0) {
            LOG.debug("{} {}: the handler's {} came after the request {}; dropped", request.getMethod(), path(), what,
                    (s & TIMED_OUT) != 0 ? "timed out" : (s & GONE) != 0 ? "lost its client" : "was abandoned by the server's stop");
        } else {
            LOG.warn("{} {}: the handler answered more than once; only its first {} was sent", request.getMethod(), path(), what);
        }
    }

    private String path() {
        return request.getHttpURI().getPath();
    }

    /** The status that answers a failed read of the request body. */
    private static int clientStatus(Throwable bodyFailure) {
        for (Throwable c = bodyFailure; c != null; c = c.getCause()) {
            if (c instanceof HttpException h && h.getCode() >= 400 && h.getCode() < 500) {
                return h.getCode();
            }
            if (c instanceof TimeoutException) {
                return HttpStatus.REQUEST_TIMEOUT_408;
            }
        }
        return HttpStatus.BAD_REQUEST_400;
    }

    private static boolean interrupted(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof InterruptedException || c instanceof InterruptedIOException
                    || c instanceof ClosedByInterruptException) {
                return true;
            }
        }
        return false;
    }

    private static boolean clientGone(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof EofException || c instanceof ClosedChannelException) {
                return true;
            }
        }
        return false;
    }

    /** Runs {@code r} on a virtual thread: this one when it is one, else a new one. */
    private void onVirtualThread(Runnable r) {
        if (Thread.currentThread().isVirtual()) {
            r.run();
        } else {
            owner.threads.newThread(r).start();
        }
    }

    /**
     * Whether the request has a body: HTTP/1.1 has one only with a Content-Length above zero or a
     * Transfer-Encoding.
     */
    private static boolean hasBody(Request request) {
        long length = request.getLength();
        // get(HttpHeader) is a scan of a parsed request's field array; contains() would make an iterator.
        return length > 0 || (length < 0 && request.getHeaders().get(HttpHeader.TRANSFER_ENCODING) != null);
    }

    /**
     * The request body the handler reads: Jetty's blocking stream, holding it to the body size
     * limit (a chunked body has no length to check up front) and remembering its first failure,
     * so that a handler that fails because the client sent a bad, oversized or stalled body is
     * answered with the client's fault (4xx), not a 500.
     */
    private final class RequestBody extends InputStream {
        private final InputStream in;
        private final long limit;
        private long read;

        RequestBody(InputStream in, long limit) {
            this.in = in;
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            check();
            readingBody = true;
            try {
                int b = in.read();
                if (b >= 0) {
                    count(1);
                }
                return b;
            } catch (IOException | RuntimeException e) {
                throw failed(e);
            } finally {
                readingBody = false;
            }
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            check();
            readingBody = true;
            try {
                int n = in.read(b, off, len);
                if (n > 0) {
                    count(n);
                }
                return n;
            } catch (IOException | RuntimeException e) {
                throw failed(e);
            } finally {
                readingBody = false;
            }
        }

        @Override
        public int available() throws IOException {
            return bodyFailure != null ? 0 : in.available();
        }

        @Override
        public void close() throws IOException {
            in.close();
        }

        private void check() throws IOException {
            Throwable failure = bodyFailure;
            if (failure != null) {
                throw new IOException("reading the request body failed before", failure);
            }
        }

        private void count(int n) throws IOException {
            if (limit >= 0 && (read += n) > limit) {
                throw new IOException(new BadMessageException(HttpStatus.PAYLOAD_TOO_LARGE_413,
                        "the request body is over the limit of " + limit + " bytes"));
            }
        }

        /** Remembers the body's first failure and returns the one to throw now. */
        private IOException failed(Exception e) {
            if (bodyFailure == null) {
                bodyFailure = e;
            }
            return e instanceof IOException io ? io : new IOException(e);
        }
    }

    /** The body of a request that has none: always at its end, and closing it changes nothing. */
    private static final class EmptyBody extends InputStream {
        static final EmptyBody INSTANCE = new EmptyBody();

        @Override
        public int read() {
            return -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            java.util.Objects.checkFromIndexSize(off, len, b.length);
            return len == 0 ? 0 : -1;
        }
    }

    /** The {@code respond} function an asynchronous handler gets. */
    private final class Respond extends AFn {
        @Override
        public Object invoke(Object ring) {
            try {
                onVirtualThread(() -> respond(ring));
            } finally {
                set(HANDLER_DONE);
            }
            return null;
        }
    }

    /** The {@code raise} function an asynchronous handler gets. */
    private final class Raise extends AFn {
        @Override
        public Object invoke(Object error) {
            Throwable t = error instanceof Throwable th ? th
                    : new IllegalArgumentException("raise was called with " + RingResponse.describe(error)
                            + "; pass it the Throwable that made the request fail");
            try {
                handlerFailed(t);
            } finally {
                set(HANDLER_DONE);
            }
            return null;
        }
    }
}
