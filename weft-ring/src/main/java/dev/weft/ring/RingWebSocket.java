package dev.weft.ring;

import clojure.lang.IFn;
import clojure.lang.IPersistentMap;
import clojure.lang.Keyword;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WebSocket connection of a Ring handler (Ring's WebSocket spec, Ring 1.11+): the socket value
 * its listener gets, and the bridge from Jetty's WebSocket session to that listener.
 *
 * <p>Delivery. Every event of one connection (open, each message, pong, error, close) is handed to
 * the listener on a virtual thread, one at a time and in order, so a listener may block. A message
 * is read from the network only once the listener has returned from the previous one (Jetty's
 * explicit demand): a slow listener holds the client back through TCP's own flow control instead
 * of queueing messages in the server. Text messages arrive as Strings, binary ones as ByteBuffers
 * (valid only during the call). Pings are answered with a pong by the server.
 *
 * <p>Sending. {@link #send} blocks until the message is written, so a sender cannot outrun a slow
 * client; {@link #sendAsync} returns at once but lets at most {@link #MAX_PENDING_ASYNC} sends be
 * pending per socket, and blocks the caller beyond that: nothing queues without bound (the
 * failure of http-kit #180).
 *
 * <p>Listeners are maps of {@code :on-open}, {@code :on-message}, {@code :on-pong},
 * {@code :on-error} and {@code :on-close} functions (each optional), or, when ring-core is on the
 * class path, any value that satisfies {@code ring.websocket.protocols/Listener}; {@code weft.ring}
 * passes the function that calls the latter.
 */
public final class RingWebSocket implements Session.Listener {

    private static final Logger LOG = LoggerFactory.getLogger(RingWebSocket.class);

    /** The most asynchronous sends that may be pending on one socket; more block the caller. */
    public static final int MAX_PENDING_ASYNC = 64;

    static final Keyword ON_OPEN = Keyword.intern("on-open");
    static final Keyword ON_MESSAGE = Keyword.intern("on-message");
    static final Keyword ON_PONG = Keyword.intern("on-pong");
    static final Keyword ON_ERROR = Keyword.intern("on-error");
    static final Keyword ON_CLOSE = Keyword.intern("on-close");

    private final WebSockets owner;
    private final Object listener;
    private final IFn protocolCaller; // (fn [listener event socket a b]) for non-map listeners
    private final IPersistentMap map; // the listener when it is a plain map (not a record), else null
    private final Semaphore asyncSends = new Semaphore(MAX_PENDING_ASYNC);
    private final ConcurrentLinkedQueue<Runnable> events = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean draining = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Session session;

    RingWebSocket(WebSockets owner, Object listener, IFn protocolCaller) {
        this.owner = owner;
        this.listener = Objects.requireNonNull(listener, "listener");
        this.protocolCaller = protocolCaller;
        this.map = isPlainMap(listener) ? (IPersistentMap) listener : null;
    }

    /** A map of functions, not a record (a record may implement ring-core's Listener itself). */
    static boolean isPlainMap(Object listener) {
        return listener instanceof IPersistentMap && !(listener instanceof clojure.lang.IRecord);
    }

    // ---- the socket value ---------------------------------------------------------------------

    /** Whether the connection is open. */
    public boolean isOpen() {
        Session s = session;
        return s != null && s.isOpen();
    }

    /**
     * Sends {@code message} (a CharSequence as a text message; a ByteBuffer or byte array as a
     * binary one) and blocks until it is written.
     *
     * @throws IOException if the connection failed or closed before it was written
     * @throws IllegalArgumentException if the message is of another type
     */
    public void send(Object message) throws IOException {
        CompletableFuture<Void> done = new CompletableFuture<>();
        write(message, Callback.from(() -> done.complete(null), done::completeExceptionally));
        await(done);
    }

    /**
     * Sends {@code message} without waiting for it to be written: {@code succeed} (no arguments) is
     * called once it is, {@code fail} (with the exception) if it cannot be. Blocks only while
     * {@link #MAX_PENDING_ASYNC} sends are already pending on this socket.
     *
     * @throws IllegalArgumentException if the message is of another type
     */
    public void sendAsync(Object message, IFn succeed, IFn fail) throws InterruptedException {
        checkMessage(message);
        asyncSends.acquire();
        write(
                message,
                Callback.from(
                        () -> {
                            asyncSends.release();
                            if (succeed != null) {
                                succeed.invoke();
                            }
                        },
                        x -> {
                            asyncSends.release();
                            if (fail != null) {
                                fail.invoke(x);
                            }
                        }));
    }

    /** Sends a ping with {@code data} (a ByteBuffer, byte array or nil) and blocks until it is written. */
    public void ping(Object data) throws IOException {
        CompletableFuture<Void> done = new CompletableFuture<>();
        requireSession().sendPing(bytes(data), Callback.from(() -> done.complete(null), done::completeExceptionally));
        await(done);
    }

    /** Sends an unsolicited pong with {@code data} (a ByteBuffer, byte array or nil); blocks until written. */
    public void pong(Object data) throws IOException {
        CompletableFuture<Void> done = new CompletableFuture<>();
        requireSession().sendPong(bytes(data), Callback.from(() -> done.complete(null), done::completeExceptionally));
        await(done);
    }

    /**
     * Closes the connection with status {@code code} (e.g. 1000, normal) and {@code reason}; the
     * listener's {@code :on-close} runs once the close completes. Does not block.
     */
    public void close(int code, String reason) {
        Session s = session;
        if (s != null) {
            s.close(code, reason, Callback.NOOP);
        }
    }

    /** The address of the client. */
    public java.net.SocketAddress remoteAddress() {
        return requireSession().getRemoteSocketAddress();
    }

    private void write(Object message, Callback callback) {
        Session s = requireSession();
        if (message instanceof CharSequence text) {
            s.sendText(text.toString(), callback);
        } else if (message instanceof ByteBuffer || message instanceof byte[]) {
            s.sendBinary(bytes(message), callback);
        } else {
            checkMessage(message);
        }
    }

    private static void checkMessage(Object message) {
        if (!(message instanceof CharSequence || message instanceof ByteBuffer || message instanceof byte[])) {
            throw new IllegalArgumentException(
                    "a WebSocket message must be a String (text) or a ByteBuffer or byte array" + " (binary); got "
                            + RingResponse.describe(message));
        }
    }

    private static ByteBuffer bytes(Object data) {
        if (data == null) {
            return ByteBuffer.allocate(0);
        }
        if (data instanceof ByteBuffer b) {
            return b.slice();
        }
        if (data instanceof byte[] a) {
            return ByteBuffer.wrap(a);
        }
        throw new IllegalArgumentException(
                "WebSocket data must be a ByteBuffer or byte array; got " + RingResponse.describe(data));
    }

    private Session requireSession() {
        Session s = session;
        if (s == null) {
            throw new IllegalStateException("the WebSocket is not open yet");
        }
        return s;
    }

    private static void await(CompletableFuture<Void> done) throws IOException {
        try {
            done.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while sending on the WebSocket");
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw c instanceof IOException io ? io : new IOException("the WebSocket send failed: " + c, c);
        }
    }

    // ---- Jetty's session events: each becomes a listener call, in order, on a virtual thread ----

    @Override
    public void onWebSocketOpen(Session session) {
        this.session = session;
        owner.opened(this);
        deliver(ON_OPEN, null, null, true);
    }

    @Override
    public void onWebSocketText(String message) {
        deliver(ON_MESSAGE, message, null, true);
    }

    @Override
    public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
        events.add(() -> {
            try {
                call(ON_MESSAGE, payload, null);
            } finally {
                callback.succeed();
                demand();
            }
        });
        drain();
    }

    @Override
    public void onWebSocketPing(ByteBuffer payload) {
        ByteBuffer copy = ByteBuffer.allocate(payload.remaining())
                .put(payload.duplicate())
                .flip();
        session.sendPong(copy, Callback.NOOP);
        demand();
    }

    @Override
    public void onWebSocketPong(ByteBuffer payload) {
        ByteBuffer copy = ByteBuffer.allocate(payload.remaining())
                .put(payload.duplicate())
                .flip();
        deliver(ON_PONG, copy, null, true);
    }

    @Override
    public void onWebSocketError(Throwable cause) {
        deliver(ON_ERROR, cause, null, false);
    }

    @Override
    public void onWebSocketClose(int statusCode, String reason) {
        if (closed.compareAndSet(false, true)) {
            owner.closed(this);
            deliver(ON_CLOSE, (long) statusCode, reason, false);
        }
    }

    private void deliver(Keyword event, Object a, Object b, boolean thenDemand) {
        events.add(() -> {
            try {
                call(event, a, b);
            } finally {
                if (thenDemand) {
                    demand();
                }
            }
        });
        drain();
    }

    private void demand() {
        Session s = session;
        if (s != null && s.isOpen()) {
            s.demand();
        }
    }

    /** Runs the queued events one at a time on a virtual thread, started when none is running. */
    private void drain() {
        if (draining.compareAndSet(false, true)) {
            owner.threads.newThread(this::runEvents).start();
        }
    }

    private void runEvents() {
        for (; ; ) {
            Runnable r;
            while ((r = events.poll()) != null) {
                r.run();
            }
            draining.set(false);
            if (events.isEmpty() || !draining.compareAndSet(false, true)) {
                return;
            }
        }
    }

    private void call(Keyword event, Object a, Object b) {
        try {
            if (map != null) {
                Object f = map.valAt(event);
                if (f == null) {
                    return;
                }
                IFn fn = (IFn) f;
                if (event == ON_OPEN) {
                    fn.invoke(this);
                } else if (event == ON_CLOSE) {
                    fn.invoke(this, a, b);
                } else {
                    fn.invoke(this, a);
                }
            } else {
                protocolCaller.invoke(listener, event, this, a, b);
            }
        } catch (Throwable t) {
            if (event == ON_ERROR || event == ON_CLOSE) {
                LOG.error("the WebSocket listener's {} failed", event, t);
            } else {
                // Ring's listeners get their own failures through on-error; the socket closes with 1011.
                LOG.error("the WebSocket listener's {} failed; the socket is closed with 1011", event, t);
                close(1011, "server error");
            }
        }
    }
}
