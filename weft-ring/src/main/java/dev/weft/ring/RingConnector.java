package dev.weft.ring;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Jetty's {@link ServerConnector}, with a drain that keeps the connections of requests in flight
 * open. When a graceful stop begins, Jetty lowers every connection's idle timeout to the
 * connector's shutdown idle timeout (1 s by default) so that idle connections close soon; a
 * response written after that could fail, and be lost. This connector then gives the connections
 * whose requests are still in flight the server's whole stop timeout
 * ({@link RingHandler#holdOpenForDrain}); the others still close after the short one.
 */
public class RingConnector extends ServerConnector {

    private final RingHandler handler;

    /**
     * A connector of {@code server} serving {@code handler}'s requests.
     *
     * @param acceptors acceptor threads, or -1 for Jetty's default
     * @param selectors selector threads, or -1 for Jetty's default
     * @param factories the protocols, outermost first (e.g. TLS, then HTTP/1.1)
     */
    public RingConnector(
            Server server, int acceptors, int selectors, RingHandler handler, ConnectionFactory... factories) {
        super(server, acceptors, selectors, factories);
        this.handler = Objects.requireNonNull(handler, "handler");
    }

    /**
     * The HTTP/1.1 connection factory to give this connector (alone, under TLS, or before h2c):
     * Jetty's, with an idle timeout that never cuts a request still in its handler, while a
     * pending read of its body and a response the client does not take still time out. Without
     * it, a {@link RingHandler} falls back on Jetty's idle-timeout listener, which leaves a race:
     * a timeout that fires as a slow handler's response begins can fail that response.
     */
    public static ConnectionFactory http1(HttpConfiguration config) {
        return new RingHttpConnection.Factory(Objects.requireNonNull(config, "config"));
    }

    /**
     * The h2 (HTTP/2 over TLS, chosen by ALPN) connection factory to give this connector: Jetty's,
     * with the stream errors RFC 9113 requires where Jetty is lenient (a malformed request is reset
     * with PROTOCOL_ERROR rather than answered 400; DATA on a stream the client closed gets
     * STREAM_CLOSED), so that weft-ring passes h2spec, the HTTP/2 conformance suite.
     */
    public static ConnectionFactory h2(HttpConfiguration config) {
        return Http2Conformance.h2(Objects.requireNonNull(config, "config"));
    }

    /**
     * The h2c (cleartext HTTP/2, by prior knowledge or Upgrade) connection factory to give this
     * connector after {@link #http1}: Jetty's, with the same checks as {@link #h2}.
     */
    public static ConnectionFactory h2c(HttpConfiguration config) {
        return Http2Conformance.h2c(Objects.requireNonNull(config, "config"));
    }

    @Override
    public CompletableFuture<Void> shutdown() {
        CompletableFuture<Void> done = super.shutdown(); // lowers every connection's idle timeout
        handler.holdOpenForDrain(getServer().getStopTimeout());
        return done;
    }
}
