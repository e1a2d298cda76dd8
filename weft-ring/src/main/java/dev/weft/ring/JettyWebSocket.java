package dev.weft.ring;

import clojure.lang.IFn;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;

/**
 * A {@link RingWebSocket} on Jetty's WebSocket session: weft-ring's core. Jetty calls its
 * {@link Session.Listener} methods on its own threads; each event is queued and the queue is run by
 * one virtual thread at a time, so the listener's calls keep their order and never run at once.
 * Jetty reads the next frame only on explicit demand, asked for once the listener has returned from
 * the previous message: the flow control {@link RingWebSocket} promises.
 *
 * <p>Which virtual thread runs the queue: a message or a pong that Jetty hands over on a virtual
 * thread (weft-ring's own, the executor Jetty reads with) is run right there when no other thread
 * is running the queue, since that thread may block and Jetty needs it for nothing else until the
 * next demand; otherwise, and always for the open, error and close events (which Jetty calls from
 * inside its upgrade and close handling), a new virtual thread of weft-ring's starts to run it.
 * Starting a thread per message was the largest part of what weft-ring's echo cost over Jetty's
 * own (decision 0883).
 *
 * <p>Public only because Jetty calls a listener's methods through method handles, which need a
 * public class; applications use the socket as a {@link RingWebSocket} and cannot make one.
 */
public final class JettyWebSocket extends RingWebSocket implements Session.Listener {

    private final WebSockets owner;
    private final ConcurrentLinkedQueue<Runnable> events = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean draining = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Session session;

    JettyWebSocket(WebSockets owner, Object listener, IFn protocolCaller) {
        super(listener, protocolCaller);
        this.owner = owner;
    }

    // ---- the transport ------------------------------------------------------------------------

    @Override
    protected boolean transportOpen() {
        Session s = session;
        return s != null && s.isOpen();
    }

    @Override
    protected void transmit(Object message, Written done) {
        Session s = requireSession();
        if (message instanceof String text) {
            s.sendText(text, telling(done));
        } else {
            s.sendBinary((ByteBuffer) message, telling(done));
        }
    }

    @Override
    protected void transmitPing(ByteBuffer data, Written done) {
        requireSession().sendPing(data, telling(done));
    }

    @Override
    protected void transmitPong(ByteBuffer data, Written done) {
        requireSession().sendPong(data, telling(done));
    }

    @Override
    protected void closeTransport(int code, String reason) {
        Session s = session;
        if (s != null) {
            s.close(code, reason, Callback.NOOP);
        }
    }

    @Override
    protected SocketAddress transportRemoteAddress() {
        return requireSession().getRemoteSocketAddress();
    }

    /** Jetty's callback for a write, telling {@code done}: one object per write. */
    private static Callback telling(Written done) {
        return new Callback() {
            @Override
            public void succeed() {
                done.succeeded();
            }

            @Override
            public void fail(Throwable x) {
                done.failed(x);
            }
        };
    }

    private Session requireSession() {
        Session s = session;
        if (s == null) {
            throw new IllegalStateException("the WebSocket is not open yet");
        }
        return s;
    }

    // ---- Jetty's session events: each becomes a listener call, in order, on a virtual thread ----

    @Override
    public void onWebSocketOpen(Session session) {
        this.session = session;
        owner.opened(this);
        deliver(this::deliverOpen, true);
    }

    @Override
    public void onWebSocketText(String message) {
        deliverHere(() -> deliverMessage(message));
    }

    @Override
    public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
        deliverHere(() -> {
            try {
                deliverMessage(payload);
            } finally {
                callback.succeed(); // Jetty's buffer goes back before the next frame is demanded
            }
        });
    }

    @Override
    public void onWebSocketPing(ByteBuffer payload) {
        session.sendPong(copy(payload), Callback.NOOP);
        demand();
    }

    @Override
    public void onWebSocketPong(ByteBuffer payload) {
        ByteBuffer copy = copy(payload);
        deliverHere(() -> deliverPong(copy));
    }

    @Override
    public void onWebSocketError(Throwable cause) {
        deliver(() -> deliverError(cause), false);
    }

    @Override
    public void onWebSocketClose(int statusCode, String reason) {
        if (closed.compareAndSet(false, true)) {
            owner.closed(this);
            deliver(() -> deliverClose(statusCode, reason), false);
        }
    }

    /** {@code payload}'s bytes in a buffer of their own: Jetty reuses its buffer once the event returns. */
    private static ByteBuffer copy(ByteBuffer payload) {
        return ByteBuffer.allocate(payload.remaining()).put(payload.duplicate()).flip();
    }

    /** Queues {@code call} and has a new virtual thread run the queue unless one is running it. */
    private void deliver(Runnable call, boolean thenDemand) {
        enqueue(call, thenDemand);
        drain();
    }

    /**
     * Queues a frame's {@code call}, followed by a demand for the next frame, and runs the queue on
     * this thread when it is virtual and no thread is running it (Jetty handed the frame over on
     * it), else as {@link #deliver}. A listener that blocks then blocks this thread, which Jetty
     * does not need again before the next demand.
     */
    private void deliverHere(Runnable call) {
        enqueue(call, true);
        if (!Thread.currentThread().isVirtual()) {
            drain();
        } else if (draining.compareAndSet(false, true)) {
            runEvents();
        }
    }

    /** Queues {@code call}, followed by a demand for the next frame when {@code thenDemand}. */
    private void enqueue(Runnable call, boolean thenDemand) {
        events.add(() -> {
            try {
                call.run();
            } finally {
                if (thenDemand) {
                    demand();
                }
            }
        });
    }

    private void demand() {
        Session s = session;
        if (s != null && s.isOpen()) {
            s.demand();
        }
    }

    /** Runs the queued events one at a time on a new virtual thread, when no thread is running them. */
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
}
