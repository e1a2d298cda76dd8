package dev.weft.lab.scenarios.http;

import clojure.lang.IFn;
import clojure.lang.IPersistentMap;
import clojure.lang.Keyword;
import dev.weft.ring.RingWebSocket;
import io.helidon.common.buffers.BufferData;
import io.helidon.common.socket.SocketContext;
import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.websocket.WsListener;
import io.helidon.websocket.WsSession;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Optional;

/**
 * Issue 25's prototype of weft-ring's WebSocket on Helidon SE 4.5 (decision 0880): one
 * connection's Helidon {@link WsListener}, which asks the Ring handler for the connection's Ring
 * listener and drives weft-ring's own socket value, {@link RingWebSocket}, so that the listener and
 * {@code weft.ring.websocket/send} run unchanged. It is the {@code weft-ring-helidon} server's
 * {@code /ws} ({@link RingOnHelidon#startWebSocket}), measured as {@code weft-ring-helidon-ws}.
 *
 * <p>Helidon already keeps the promises {@link RingWebSocket} makes about delivery: it reads a
 * connection's frames on the connection's virtual thread and calls this listener there, one event at
 * a time and in order, reading the next frame only once the call returned. So each event is
 * delivered on that thread directly, with no queue and no thread of its own (weft-ring on Jetty
 * starts a virtual thread per burst of events, {@code JettyWebSocket}). A fragmented message is
 * joined and delivered whole, as Ring's spec wants; a ping is answered with a pong here, since
 * Helidon leaves that to the listener.
 *
 * <p>What the prototype leaves out, as {@link RingOnHelidon} does: the upgrade is accepted on the
 * route before the handler is asked (Helidon's upgrade callback has no peer addresses for the
 * request map), so a handler that answers {@code /ws} without a {@code :ring.websocket/listener}
 * gets its socket closed with 1011 instead of its HTTP response sent; listeners are maps only (not
 * ring-core's protocol); subprotocols, size and idle limits, the count of open sockets and
 * {@code stop-server!}'s closing are not carried; and a send blocks until written (Helidon's sends
 * are blocking), so {@code sendAsync} completes before it returns.
 */
final class RingWebSocketOnHelidon implements WsListener {

    private static final Keyword LISTENER = Keyword.intern("ring.websocket", "listener");

    private final IFn handler;
    // Each touched only on the connection's virtual thread, the one Helidon calls every event on.
    private Headers upgradeHeaders;
    private Socket socket;
    private StringBuilder textSoFar;
    private ByteArrayOutputStream binarySoFar;

    /** A connection's listener, whose Ring listener {@code handler} (a Ring handler) will name. */
    RingWebSocketOnHelidon(IFn handler) {
        this.handler = handler;
    }

    @Override
    public Optional<Headers> onHttpUpgrade(HttpPrologue prologue, Headers headers) {
        this.upgradeHeaders = headers;
        return Optional.empty();
    }

    @Override
    public void onOpen(WsSession session) {
        SocketContext peers = session.socketContext();
        IPersistentMap request = RingOnHelidon.requestMap(
                session.prologue(),
                upgradeHeaders,
                peers.localPeer(),
                peers.remotePeer(),
                peers.isSecure(),
                upgradeHeaders.first(HeaderNames.HOST).orElse(null),
                InputStream.nullInputStream());
        Object listener;
        try {
            listener = handler.invoke(request) instanceof Map<?, ?> answer ? answer.get(LISTENER) : null;
        } catch (RuntimeException e) {
            e.printStackTrace();
            session.close(1011, "server error");
            return;
        }
        if (!(listener instanceof IPersistentMap)) {
            System.err.println(
                    "the Ring handler answered the WebSocket upgrade of " + request.valAt(Keyword.intern("uri"))
                            + " without a :ring.websocket/listener map; the socket is closed with 1011");
            session.close(1011, "no WebSocket listener");
            return;
        }
        socket = new Socket(listener, session);
        socket.opened();
    }

    @Override
    public void onMessage(WsSession session, String text, boolean last) {
        if (socket == null) {
            return;
        }
        if (last && textSoFar == null) {
            socket.message(text);
            return;
        }
        if (textSoFar == null) {
            textSoFar = new StringBuilder(text);
        } else {
            textSoFar.append(text);
        }
        if (last) {
            String whole = textSoFar.toString();
            textSoFar = null;
            socket.message(whole);
        }
    }

    @Override
    public void onMessage(WsSession session, BufferData buffer, boolean last) {
        if (socket == null) {
            return;
        }
        byte[] bytes = bytes(buffer);
        if (last && binarySoFar == null) {
            socket.message(ByteBuffer.wrap(bytes));
            return;
        }
        if (binarySoFar == null) {
            binarySoFar = new ByteArrayOutputStream();
        }
        binarySoFar.writeBytes(bytes);
        if (last) {
            ByteBuffer whole = ByteBuffer.wrap(binarySoFar.toByteArray());
            binarySoFar = null;
            socket.message(whole);
        }
    }

    @Override
    public void onPing(WsSession session, BufferData buffer) {
        session.pong(BufferData.create(bytes(buffer)));
    }

    @Override
    public void onPong(WsSession session, BufferData buffer) {
        if (socket != null) {
            socket.ponged(ByteBuffer.wrap(bytes(buffer)));
        }
    }

    @Override
    public void onClose(WsSession session, int status, String reason) {
        if (socket != null) {
            socket.closed(status, reason);
        }
    }

    @Override
    public void onError(WsSession session, Throwable t) {
        if (socket != null) {
            socket.failed(t);
        }
    }

    private static byte[] bytes(BufferData buffer) {
        byte[] bytes = new byte[buffer.available()];
        buffer.read(bytes);
        return bytes;
    }

    /** weft-ring's socket value on a Helidon session. */
    private static final class Socket extends RingWebSocket {

        private final WsSession session;
        private volatile boolean open = true;

        Socket(Object listener, WsSession session) {
            super(listener, null);
            this.session = session;
        }

        void opened() {
            deliverOpen();
        }

        void message(Object message) {
            deliverMessage(message);
        }

        void ponged(ByteBuffer data) {
            deliverPong(data);
        }

        void failed(Throwable t) {
            deliverError(t);
        }

        void closed(int status, String reason) {
            open = false;
            deliverClose(status, reason);
        }

        @Override
        protected boolean transportOpen() {
            return open;
        }

        @Override
        protected void transmit(Object message, Written done) {
            try {
                if (message instanceof String text) {
                    session.send(text, true);
                } else {
                    session.send(BufferData.create(array((ByteBuffer) message)), true);
                }
            } catch (RuntimeException e) {
                done.failed(ioException(e));
                return;
            }
            done.succeeded();
        }

        @Override
        protected void transmitPing(ByteBuffer data, Written done) {
            control(true, data, done);
        }

        @Override
        protected void transmitPong(ByteBuffer data, Written done) {
            control(false, data, done);
        }

        /** Writes a ping (or else a pong) with {@code data}. */
        private void control(boolean ping, ByteBuffer data, Written done) {
            try {
                BufferData bytes = BufferData.create(array(data));
                if (ping) {
                    session.ping(bytes);
                } else {
                    session.pong(bytes);
                }
            } catch (RuntimeException e) {
                done.failed(ioException(e));
                return;
            }
            done.succeeded();
        }

        @Override
        protected void closeTransport(int code, String reason) {
            if (open) {
                session.close(code, reason);
            }
        }

        @Override
        protected SocketAddress transportRemoteAddress() {
            return session.socketContext().remotePeer().address();
        }

        private static byte[] array(ByteBuffer b) {
            byte[] a = new byte[b.remaining()];
            b.duplicate().get(a);
            return a;
        }

        /** A send Helidon refused, as the IOException {@link RingWebSocket#send} promises. */
        private static IOException ioException(RuntimeException e) {
            return e.getCause() instanceof IOException io ? io : new IOException("the WebSocket send failed: " + e, e);
        }
    }
}
