package dev.weft.lab.scenarios.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;

/**
 * The scenario's baselines: the article's handler written against Jetty 12's own API, with no Ring
 * in between. {@code jetty-50-threads} runs it on a 50-thread pool (Jetty's acceptor and selector
 * threads come out of the 50, as in every Jetty deployment); {@code jetty-4-threads} on 4 handler
 * threads plus one acceptor and one selector (http-kit's default pool of 4, article 003's 29x); {@code jetty-virtual} lets Jetty run
 * each blocking handler call on a new virtual thread (its thread pool's virtual-threads executor,
 * unbounded). Both listen on 127.0.0.1 with the same listen backlog as weft-ring. {@link #startWebSocket()}
 * is the WebSocket reference, {@code jetty-virtual-ws}: Jetty 12's own WebSocket echo on {@code /ws},
 * on virtual threads the same way.
 */
final class PlainJetty {

    static final byte[] BODY = "<b>hello!</b>".getBytes(StandardCharsets.UTF_8);
    static final int BACKLOG = 1024;

    private PlainJetty() {}

    /**
     * Starts the baseline and returns its server: on virtual threads when {@code handlerThreads} is
     * 0, else on a pool of that many platform threads for the handler, on top of one acceptor and
     * one selector thread (with {@code 50}, the pool's total is 50, Jetty's default deployment).
     */
    static Server start(int handlerThreads) throws Exception {
        return start(handlerThreads, new Hello());
    }

    /**
     * Starts plain Jetty on virtual threads serving its own WebSocket echo on {@code /ws} (and 404
     * elsewhere), a server of its own: the HTTP baseline's handler stays without the upgrade
     * handler in front of it, as its figures were measured.
     */
    static Server startWebSocket() throws Exception {
        Server server = start(0, null); // configured, not started
        WebSocketUpgradeHandler ws = WebSocketUpgradeHandler.from(
                server,
                container -> container.addMapping("/ws", (request, response, callback) -> new JettyWebSocketEcho()));
        server.setHandler(ws);
        server.start();
        return server;
    }

    /** Configures the server; starts it when {@code handler} is given. */
    private static Server start(int handlerThreads, Handler handler) throws Exception {
        boolean virtual = handlerThreads == 0;
        QueuedThreadPool pool;
        if (virtual) {
            pool = new QueuedThreadPool();
            pool.setVirtualThreadsExecutor(Executors.newVirtualThreadPerTaskExecutor());
        } else if (handlerThreads == 50) {
            pool = new QueuedThreadPool(50);
        } else {
            pool = new QueuedThreadPool(handlerThreads + 2, handlerThreads + 2); // + acceptor + selector
        }
        pool.setName(virtual ? "jetty-virtual" : "jetty-" + handlerThreads);
        Server server = new Server(pool);
        HttpConfiguration config = new HttpConfiguration();
        config.setSendServerVersion(false);
        ServerConnector connector = virtual || handlerThreads == 50
                ? new ServerConnector(server, new HttpConnectionFactory(config))
                : new ServerConnector(server, 1, 1, new HttpConnectionFactory(config));
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        connector.setAcceptQueueSize(BACKLOG);
        server.addConnector(connector);
        if (handler != null) {
            server.setHandler(handler);
            server.start();
        }
        return server;
    }

    /** The article's handler: 50 ms of sleep on /hello, none on /nosleep, then {@code <b>hello!</b>}. */
    static final class Hello extends Handler.Abstract { // blocking: Jetty runs it where it may block
        @Override
        public boolean handle(Request request, Response response, Callback callback) throws Exception {
            String path = request.getHttpURI().getPath();
            if ("/hello".equals(path)) {
                Thread.sleep(HttpScenario.SLEEP_MS);
            } else if (!"/nosleep".equals(path)) {
                return false; // Jetty answers 404
            }
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/html");
            response.write(true, ByteBuffer.wrap(BODY), callback);
            return true;
        }
    }
}
