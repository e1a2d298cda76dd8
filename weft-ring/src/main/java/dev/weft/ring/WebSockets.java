package dev.weft.ring;

import clojure.lang.IFn;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;

/**
 * A server's WebSocket side: Jetty's container (the upgrade, framing, limits) and the sockets open
 * now. Built by {@link RingHandler} when the server starts.
 */
final class WebSockets {

    final ThreadFactory threads;
    private final IFn protocolCaller;
    private final Duration idleTimeout;
    private final long maxMessageBytes;
    private final Set<JettyWebSocket> open = ConcurrentHashMap.newKeySet();
    private volatile ServerWebSocketContainer container;

    WebSockets(ThreadFactory threads, IFn protocolCaller, Duration idleTimeout, long maxMessageBytes) {
        this.threads = threads;
        this.protocolCaller = protocolCaller;
        this.idleTimeout = idleTimeout;
        this.maxMessageBytes = maxMessageBytes;
    }

    /** Installs Jetty's WebSocket container on {@code server}; before it starts. */
    void install(Server server) {
        ServerWebSocketContainer c = ServerWebSocketContainer.ensure(server);
        c.setIdleTimeout(idleTimeout);
        c.setMaxTextMessageSize(maxMessageBytes);
        c.setMaxBinaryMessageSize(maxMessageBytes);
        container = c;
    }

    /**
     * Upgrades {@code request} to a WebSocket served by {@code listener}; false when it is not a
     * WebSocket upgrade request (nothing was written then).
     */
    boolean upgrade(Object listener, String subProtocol, Request request, Response response, Callback callback) {
        ServerWebSocketContainer c = container;
        if (c == null) {
            throw new IllegalStateException("WebSockets are not installed on this server");
        }
        return c.upgrade(
                (upgradeRequest, upgradeResponse, cb) -> {
                    if (subProtocol != null) {
                        upgradeResponse.setAcceptedSubProtocol(subProtocol);
                    }
                    return new JettyWebSocket(this, listener, protocolCaller);
                },
                request,
                response,
                callback);
    }

    /** Whether a listener that is not a map can be called (ring-core's Listener protocol). */
    boolean acceptsListener(Object listener) {
        return protocolCaller != null && Boolean.TRUE.equals(protocolCaller.invoke(listener));
    }

    void opened(JettyWebSocket socket) {
        open.add(socket);
    }

    void closed(JettyWebSocket socket) {
        open.remove(socket);
    }

    /** WebSockets open now. */
    int openCount() {
        return open.size();
    }

    /** Closes every open socket with 1001 (going away): a stopping server keeps none open. */
    void closeAll() {
        for (JettyWebSocket socket : open) {
            socket.close(1001, "the server is stopping");
        }
    }
}
