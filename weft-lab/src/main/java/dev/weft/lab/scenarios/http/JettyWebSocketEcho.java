package dev.weft.lab.scenarios.http;

import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.api.StatusCode;

/**
 * The {@code jetty-virtual-ws} reference's endpoint: Jetty 12's own WebSocket echo, written as
 * Jetty's documentation writes one. Each text message goes back with an asynchronous send, and the
 * next frame is demanded once that send completed, so one echo is in flight per socket, as with
 * weft-ring's blocking send on the socket's virtual thread. Public because Jetty reaches its
 * listener methods through method handles.
 */
public final class JettyWebSocketEcho extends Session.Listener.Abstract {

    /** Demands the first frame (this listener demands each next one itself). */
    @Override
    public void onWebSocketOpen(Session session) {
        super.onWebSocketOpen(session);
        session.demand();
    }

    /** Sends {@code message} back; demands the next frame once sent, or closes the socket if the send failed. */
    @Override
    public void onWebSocketText(String message) {
        Session session = getSession();
        session.sendText(
                message,
                Callback.from(
                        session::demand,
                        failure -> session.close(StatusCode.SERVER_ERROR, "echo failed", Callback.NOOP)));
    }
}
