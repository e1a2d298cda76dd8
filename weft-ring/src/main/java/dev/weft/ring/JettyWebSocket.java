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
 * one virtual thread at a time (started when none runs), so the listener's calls keep their order
 * and never run at once. Jetty reads the next frame only on explicit demand, asked for once the
 * listener has returned from the previous message: the flow control {@link RingWebSocket} promises.
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
        deliver(() -> deliverMessage(message), true);
    }

    @Override
    public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
        events.add(() -> {
            try {
                deliverMessage(payload);
            } finally {
                callback.succeed();
                demand();
            }
        });
        drain();
    }

    @Override
    public void onWebSocketPing(ByteBuffer payload) {
        session.sendPong(copy(payload), Callback.NOOP);
        demand();
    }

    @Override
    public void onWebSocketPong(ByteBuffer payload) {
        ByteBuffer copy = copy(payload);
        deliver(() -> deliverPong(copy), true);
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

    private void deliver(Runnable call, boolean thenDemand) {
        events.add(() -> {
            try {
                call.run();
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
}
