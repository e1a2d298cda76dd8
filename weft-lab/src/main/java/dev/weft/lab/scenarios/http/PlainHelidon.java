package dev.weft.lab.scenarios.http;

import io.helidon.http.Header;
import io.helidon.http.HeaderValues;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.websocket.WsRouting;
import io.helidon.websocket.WsListener;
import io.helidon.websocket.WsSession;

/**
 * A candidate core of issue 25 as a lab reference, {@code helidon-virtual}: Helidon SE 4's
 * WebServer serving the article's handler through its own routing, with no Ring in between.
 * Helidon runs each connection, and so each of its requests, on a virtual thread of its own (it has
 * no other mode), which makes it the "built for virtual threads" shape next to plain Jetty's
 * selector-plus-dispatch one. It listens on 127.0.0.1 with the lab's listen backlog, and answers as
 * {@link PlainJetty.Hello} does: {@code 200 text/html <b>hello!</b>} on {@code /nosleep}, the same
 * after 50 ms of sleep on {@code /hello}, 404 elsewhere (Helidon's routing answers it). Its response
 * has Jetty's header lines (Helidon orders them Content-Length first). {@link #startWebSocket} is
 * Helidon's own WebSocket echo, the {@code helidon-virtual-ws} reference beside {@code jetty-virtual-ws}.
 */
final class PlainHelidon {

    private static final Header TEXT_HTML = HeaderValues.create("Content-Type", "text/html");

    private PlainHelidon() {}

    /** Starts the server on a free port of 127.0.0.1; {@link WebServer#port()} says which, {@link WebServer#stop()} ends it. */
    static WebServer start() {
        Handler hello = (request, response) -> {
            Thread.sleep(HttpScenario.SLEEP_MS);
            send(response);
        };
        Handler nosleep = (request, response) -> send(response);
        return WebServer.builder()
                .host("127.0.0.1")
                .port(0)
                .backlog(PlainJetty.BACKLOG)
                // HTTP/1.1 keeps connections alive without saying so; Jetty does not send it either.
                .addProtocol(Http1Config.builder().sendKeepAliveHeader(false).build())
                .routing(r -> r.get("/hello", hello).get("/nosleep", nosleep))
                .build()
                .start();
    }

    /**
     * Starts a second server on a free port of 127.0.0.1 whose {@code /ws} upgrades to a WebSocket
     * that sends each text message back as it came (a fragment as a fragment), with Helidon's
     * blocking send on the socket's own virtual thread, so that one echo is in flight per socket as
     * with {@link JettyWebSocketEcho} and weft-ring's echo.
     */
    static WebServer startWebSocket() {
        WsListener echo = new WsListener() {
            @Override
            public void onMessage(WsSession session, String text, boolean last) {
                session.send(text, last);
            }
        };
        return WebServer.builder()
                .host("127.0.0.1")
                .port(0)
                .backlog(PlainJetty.BACKLOG)
                .addRouting(WsRouting.builder().endpoint("/ws", echo))
                .build()
                .start();
    }

    private static void send(io.helidon.webserver.http.ServerResponse response) {
        response.header(TEXT_HTML); // status 200 is the default; send sets Content-Length
        response.send(PlainJetty.BODY);
    }
}
