package dev.weft.ring;

import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.IdleTimeout;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.internal.HttpConnection;

/**
 * Jetty's HTTP/1 connection, with an idle timeout that never cuts a request still in its handler.
 *
 * <p>Why. Jetty's idle timeout counts from the connection's last I/O, so while a handler slower
 * than it runs, it fires every idle period. Jetty asks the request's idle-timeout listeners only
 * when no read or write is pending; a firing decided just before the response's write began and
 * acted on during it failed the write (a lost response), and one acted on just after the response
 * was complete closed the kept-alive connection as idle. Both were seen on a loaded machine. Taking
 * the timeout off for the handler's duration (and putting it back for the write) closes those
 * races too, but costs two timer operations per request on Jetty's scheduler, about 3% of the
 * server's CPU per request without a sleep; this check costs two volatile reads, and only when
 * the timeout fires.
 *
 * <p>What. When the timeout fires, {@link #onIdleExpired} lets it through to Jetty only when it is
 * real: not while the connection's request is in its handler (waiting for a turn, running, or
 * between reads of its body), and not when the connection has seen I/O since the timeout decided
 * to fire (the response's write marks the connection active before it begins, so a write is
 * never failed by a firing decided before it). A pending read of the body, and a response the
 * client does not take, still time out: those are the client's.
 *
 * <p>On a port that also speaks h2c, a first line that is not an HTTP/1 request line (it does not
 * end in {@code HTTP/x.y}) is taken for a broken HTTP/2 connection preface, and the connection is
 * closed without an answer, as RFC 9113 3.4 requires (HTTP/1's 400 there is only a SHOULD, RFC 9112
 * 3); h2spec checks it. See {@link PrefaceCheck}.
 */
final class RingHttpConnection extends HttpConnection {

    /** The exchange of the request this connection serves now, or the last one; null before the first. */
    private volatile Exchange exchange;

    /** The last request's remote address and its text (see {@link #remoteAddr}); null before the first. */
    private Remote remote;

    /** The last request's server port (see {@link #serverPort}); null before the first. */
    private Integer port;

    /** Jetty's request handler, kept by {@link #newRequestHandler} (which Jetty's constructor calls) for the parser. */
    private RequestHandler requestHandler;

    RingHttpConnection(HttpConfiguration config, Connector connector, EndPoint endPoint) {
        super(config, connector, endPoint);
    }

    @Override
    protected RequestHandler newRequestHandler() {
        // Called by Jetty's constructor, before newHttpParser: this field has no initializer, so
        // the value set here stays.
        requestHandler = super.newRequestHandler();
        return requestHandler;
    }

    @Override
    protected HttpParser newHttpParser(HttpCompliance compliance) {
        if (!getConnector().getProtocols().contains("h2c")) {
            return super.newHttpParser(compliance);
        }
        HttpConfiguration config = getHttpConfiguration();
        HttpParser parser = new PrefaceCheck(requestHandler, config.getRequestHeaderSize(), compliance);
        parser.setHeaderCacheSize(config.getHeaderCacheSize());
        parser.setHeaderCacheCaseSensitive(config.isHeaderCacheCaseSensitive());
        return parser;
    }

    /**
     * Jetty's HTTP/1 parser, closing the connection without an answer when a request's first line
     * is whole in the first bytes read and does not end in {@code HTTP/x.y}. A first line split
     * across reads is left to Jetty (a 400 or 505, as on a port without h2c).
     */
    private final class PrefaceCheck extends HttpParser {
        PrefaceCheck(RequestHandler handler, int maxHeaderBytes, HttpCompliance compliance) {
            super(handler, maxHeaderBytes, compliance);
        }

        @Override
        public boolean parseNext(ByteBuffer buffer) {
            if (isStart() && notHttp1(buffer)) {
                buffer.position(buffer.limit());
                getEndPoint().close();
                return false;
            }
            return super.parseNext(buffer);
        }
    }

    /**
     * True when {@code buffer} holds a whole first line (after any empty lines, which RFC 9112
     * lets a server skip) that does not end in {@code " HTTP/" DIGIT "." DIGIT}. Reads only.
     */
    static boolean notHttp1(ByteBuffer buffer) {
        int start = buffer.position();
        int limit = buffer.limit();
        while (start < limit && (buffer.get(start) == '\r' || buffer.get(start) == '\n')) {
            start++;
        }
        for (int i = start; i < limit; i++) {
            if (buffer.get(i) == '\n') {
                int end = i > start && buffer.get(i - 1) == '\r' ? i - 1 : i;
                return !endsWithVersion(buffer, start, end);
            }
        }
        return false;
    }

    private static boolean endsWithVersion(ByteBuffer b, int start, int end) {
        int v = end - 9; // " HTTP/1.1"
        return v >= start
                && b.get(v) == ' '
                && b.get(v + 1) == 'H'
                && b.get(v + 2) == 'T'
                && b.get(v + 3) == 'T'
                && b.get(v + 4) == 'P'
                && b.get(v + 5) == '/'
                && Character.isDigit(b.get(v + 6))
                && b.get(v + 7) == '.'
                && Character.isDigit(b.get(v + 8));
    }

    /** Called as a request of this connection enters the handler. */
    void serving(Exchange exchange) {
        this.exchange = exchange;
    }

    /**
     * The {@code :remote-addr} of a request of this connection: {@link Request#getRemoteAddr}, kept
     * for the connection's next requests. Jetty formats the client's address anew for every request
     * (a StringBuilder and a String, about 100 bytes); a kept-alive connection's client does not
     * change. Reused only while the request's remote socket address is the same object as the one it
     * was made from, so a request customizer that reports another address is still honoured.
     */
    String remoteAddr(Request request) {
        SocketAddress address = request.getConnectionMetaData().getRemoteSocketAddress();
        Remote r = remote;
        if (r == null || r.address != address) {
            r = new Remote(address, Request.getRemoteAddr(request));
            remote = r;
        }
        return r.text;
    }

    /**
     * The {@code :server-port} of a request of this connection, {@link Request#getServerPort}, as
     * the Integer the Ring map holds: the last one is kept, so a connection's requests to the same
     * port share one (a port above 127 is a new Integer each time otherwise).
     */
    Integer serverPort(Request request) {
        int port = Request.getServerPort(request);
        Integer p = this.port;
        if (p == null || p != port) {
            p = port;
            this.port = p;
        }
        return p;
    }

    /** A remote socket address and its text; immutable, so a reader on another thread sees both. */
    private record Remote(SocketAddress address, String text) {}

    @Override
    public boolean onIdleExpired(TimeoutException timeout) {
        Exchange e = exchange;
        // Read before the activity check: a write marks the connection active before it says it
        // is writing, so an exchange seen writing has its mark seen too.
        if (e != null && e.excusesIdleTimeout()) {
            return false;
        }
        if (activeSinceFiring()) {
            return false;
        }
        return super.onIdleExpired(timeout);
    }

    /**
     * Whether the connection has seen I/O within its idle timeout, i.e. since this firing was
     * decided: the timer that fires is the socket's, under any TLS endpoints.
     */
    private boolean activeSinceFiring() {
        EndPoint endPoint = getEndPoint();
        while (endPoint instanceof EndPoint.Wrapper w) {
            endPoint = w.unwrap();
        }
        return endPoint instanceof IdleTimeout idle && idle.getIdleFor() < idle.getIdleTimeout();
    }

    /** The HTTP/1.1 connection factory whose connections are {@link RingHttpConnection}s. */
    static final class Factory extends HttpConnectionFactory {
        Factory(HttpConfiguration config) {
            super(config);
        }

        @Override
        public Connection newConnection(Connector connector, EndPoint endPoint) {
            RingHttpConnection connection = new RingHttpConnection(getHttpConfiguration(), connector, endPoint);
            connection.setTransferEncodingChunkMaxLength(getTransferEncodingChunkMaxLength());
            return configure(connection, connector, endPoint);
        }
    }
}
