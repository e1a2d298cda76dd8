package dev.weft.ring;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.server.ConnectionFactory;
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
    public RingConnector(Server server, int acceptors, int selectors, RingHandler handler, ConnectionFactory... factories) {
        super(server, acceptors, selectors, factories);
        this.handler = Objects.requireNonNull(handler, "handler");
    }

    @Override
    public CompletableFuture<Void> shutdown() {
        CompletableFuture<Void> done = super.shutdown(); // lowers every connection's idle timeout
        handler.holdOpenForDrain(getServer().getStopTimeout());
        return done;
    }
}
