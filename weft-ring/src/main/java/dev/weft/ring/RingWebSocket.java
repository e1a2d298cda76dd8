package dev.weft.ring;

import clojure.lang.IFn;
import clojure.lang.IPersistentMap;
import clojure.lang.Keyword;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WebSocket connection of a Ring handler (Ring's WebSocket spec, Ring 1.11+): the socket value
 * its listener gets, and the calls of that listener. What moves the frames is the server's core, a
 * subclass: weft-ring's is Jetty's ({@code JettyWebSocket}); issue 25's lab prototypes put the same
 * socket on other cores. Applications use the socket through {@code weft.ring.websocket} (or
 * ring-core's {@code ring.websocket}) and never subclass it.
 *
 * <p>Delivery. A core delivers every event of one connection (open, each message, pong, error,
 * close) to the listener through the {@code deliver...} methods, one at a time and in order, on a
 * virtual thread, so a listener may block; it reads the next message from the network only once the
 * listener has returned from the previous one, so a slow listener holds the client back through
 * TCP's own flow control instead of queueing messages in the server. Text messages arrive as
 * Strings, binary ones as ByteBuffers (valid only during the call). Pings are answered with a pong by
 * the core.
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
public abstract class RingWebSocket {

    private static final Logger LOG = LoggerFactory.getLogger(RingWebSocket.class);

    /** The most asynchronous sends that may be pending on one socket; more block the caller. */
    public static final int MAX_PENDING_ASYNC = 64;

    static final Keyword ON_OPEN = Keyword.intern("on-open");
    static final Keyword ON_MESSAGE = Keyword.intern("on-message");
    static final Keyword ON_PONG = Keyword.intern("on-pong");
    static final Keyword ON_ERROR = Keyword.intern("on-error");
    static final Keyword ON_CLOSE = Keyword.intern("on-close");

    private final Object listener;
    private final IFn protocolCaller; // (fn [listener event socket a b]) for non-map listeners
    private final IPersistentMap map; // the listener when it is a plain map (not a record), else null
    private final Semaphore asyncSends = new Semaphore(MAX_PENDING_ASYNC);

    /**
     * A socket whose events go to {@code listener}: a map of functions, or (with
     * {@code protocolCaller}, {@code (fn [listener event socket a b])}) a value ring-core's Listener
     * protocol calls.
     *
     * @throws IllegalArgumentException if {@code listener} is not a plain map and no
     *     {@code protocolCaller} is given
     */
    protected RingWebSocket(Object listener, IFn protocolCaller) {
        this.listener = Objects.requireNonNull(listener, "listener");
        this.protocolCaller = protocolCaller;
        this.map = isPlainMap(listener) ? (IPersistentMap) listener : null;
        if (map == null && protocolCaller == null) {
            throw new IllegalArgumentException("a WebSocket listener must be a map of :on-open, :on-message, :on-pong,"
                    + " :on-error and :on-close functions (or satisfy ring-core's Listener protocol with ring-core on"
                    + " the class path); got " + RingResponse.describe(listener));
        }
    }

    /** A map of functions, not a record (a record may implement ring-core's Listener itself). */
    static boolean isPlainMap(Object listener) {
        return listener instanceof IPersistentMap && !(listener instanceof clojure.lang.IRecord);
    }

    // ---- the socket value ---------------------------------------------------------------------

    /** Whether the connection is open. */
    public final boolean isOpen() {
        return transportOpen();
    }

    /**
     * Sends {@code message} (a CharSequence as a text message; a ByteBuffer or byte array as a
     * binary one) and blocks until it is written.
     *
     * @throws IOException if the connection failed or closed before it was written
     * @throws IllegalArgumentException if the message is of another type
     * @throws IllegalStateException if the socket is not open yet
     */
    public final void send(Object message) throws IOException {
        Awaited done = new Awaited();
        transmit(payload(message), done);
        done.await();
    }

    /**
     * Sends {@code message} without waiting for it to be written: {@code succeed} (no arguments) is
     * called once it is, {@code fail} (with the exception) if it cannot be. Blocks only while
     * {@link #MAX_PENDING_ASYNC} sends are already pending on this socket.
     *
     * @throws IllegalArgumentException if the message is of another type
     * @throws IllegalStateException if the socket is not open yet
     */
    public final void sendAsync(Object message, IFn succeed, IFn fail) throws InterruptedException {
        Object payload = payload(message);
        asyncSends.acquire();
        try {
            transmit(payload, new Written() {
                @Override
                public void succeeded() {
                    asyncSends.release();
                    if (succeed != null) {
                        succeed.invoke();
                    }
                }

                @Override
                public void failed(Throwable x) {
                    asyncSends.release();
                    if (fail != null) {
                        fail.invoke(x);
                    }
                }
            });
        } catch (RuntimeException e) {
            asyncSends.release();
            throw e;
        }
    }

    /** Sends a ping with {@code data} (a ByteBuffer, byte array or nil) and blocks until it is written. */
    public final void ping(Object data) throws IOException {
        Awaited done = new Awaited();
        transmitPing(bytes(data), done);
        done.await();
    }

    /** Sends an unsolicited pong with {@code data} (a ByteBuffer, byte array or nil); blocks until written. */
    public final void pong(Object data) throws IOException {
        Awaited done = new Awaited();
        transmitPong(bytes(data), done);
        done.await();
    }

    /**
     * Closes the connection with status {@code code} (e.g. 1000, normal) and {@code reason}; the
     * listener's {@code :on-close} runs once the close completes. Does not block.
     */
    public final void close(int code, String reason) {
        closeTransport(code, reason);
    }

    /** The address of the client. */
    public final SocketAddress remoteAddress() {
        return transportRemoteAddress();
    }

    // ---- what a core provides --------------------------------------------------------------------

    /** Whether the core's connection is open (false before it opened). */
    protected abstract boolean transportOpen();

    /**
     * What a core tells once a write ends: exactly one of the two, once, on any thread (on the
     * caller's when the write completed at once). One object per write, so a send costs no more
     * than the core's own callback.
     */
    protected interface Written {
        /** The frame is written. */
        void succeeded();

        /** The frame cannot be written: {@code x} says why (an IOException when the connection failed). */
        void failed(Throwable x);
    }

    /**
     * Starts writing {@code message}, a String as a text message or a ByteBuffer as a binary one,
     * and tells {@code done} when it ends.
     *
     * @throws IllegalStateException if the connection is not open yet (then {@code done} is not told)
     */
    protected abstract void transmit(Object message, Written done);

    /** Starts writing a ping with {@code data}; tells {@code done} as {@link #transmit} does. */
    protected abstract void transmitPing(ByteBuffer data, Written done);

    /** Starts writing a pong with {@code data}; tells {@code done} as {@link #transmit} does. */
    protected abstract void transmitPong(ByteBuffer data, Written done);

    /** Starts closing the connection with {@code code} and {@code reason}, if it is open; does not block. */
    protected abstract void closeTransport(int code, String reason);

    /**
     * The client's address.
     *
     * @throws IllegalStateException if the connection is not open yet
     */
    protected abstract SocketAddress transportRemoteAddress();

    // ---- the listener's events: a core calls each in order, one at a time, on a virtual thread ----

    /** Calls the listener's {@code :on-open}. */
    protected final void deliverOpen() {
        call(ON_OPEN, null, null);
    }

    /** Calls the listener's {@code :on-message} with {@code message}: a String, or a ByteBuffer. */
    protected final void deliverMessage(Object message) {
        call(ON_MESSAGE, message, null);
    }

    /** Calls the listener's {@code :on-pong} with {@code data}. */
    protected final void deliverPong(ByteBuffer data) {
        call(ON_PONG, data, null);
    }

    /** Calls the listener's {@code :on-error} with {@code cause}. */
    protected final void deliverError(Throwable cause) {
        call(ON_ERROR, cause, null);
    }

    /** Calls the listener's {@code :on-close} with the status {@code code} (a long, as Clojure's numbers are) and {@code reason}. */
    protected final void deliverClose(int code, String reason) {
        call(ON_CLOSE, (long) code, reason);
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

    // ---- messages ---------------------------------------------------------------------------------

    /** {@code message} as {@link #transmit} takes it: a String, or a ByteBuffer. */
    private static Object payload(Object message) {
        if (message instanceof CharSequence text) {
            return text.toString();
        }
        if (message instanceof ByteBuffer || message instanceof byte[]) {
            return bytes(message);
        }
        throw new IllegalArgumentException("a WebSocket message must be a String (text) or a ByteBuffer or byte array"
                + " (binary); got " + RingResponse.describe(message));
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

    /** A write that a blocking send waits for. */
    private static final class Awaited extends CompletableFuture<Void> implements Written {
        @Override
        public void succeeded() {
            complete(null);
        }

        @Override
        public void failed(Throwable x) {
            completeExceptionally(x);
        }

        void await() throws IOException {
            try {
                get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while sending on the WebSocket");
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                throw c instanceof IOException io ? io : new IOException("the WebSocket send failed: " + c, c);
            }
        }
    }
}
