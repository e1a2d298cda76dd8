package dev.weft.ring;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http2.BufferingFlowControlStrategy;
import org.eclipse.jetty.http2.ErrorCode;
import org.eclipse.jetty.http2.HTTP2Session;
import org.eclipse.jetty.http2.api.Session;
import org.eclipse.jetty.http2.api.Stream;
import org.eclipse.jetty.http2.api.server.ServerSessionListener;
import org.eclipse.jetty.http2.frames.DataFrame;
import org.eclipse.jetty.http2.frames.Frame;
import org.eclipse.jetty.http2.frames.HeadersFrame;
import org.eclipse.jetty.http2.frames.ResetFrame;
import org.eclipse.jetty.http2.frames.SettingsFrame;
import org.eclipse.jetty.http2.hpack.HpackException;
import org.eclipse.jetty.http2.server.AbstractHTTP2ServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's HTTP/2 (h2 and h2c), with the two stream errors RFC 9113 requires where Jetty 12.1 is
 * lenient. h2spec, the HTTP/2 conformance suite, checks both (weft-ring's h2spec test).
 *
 * <p><b>Malformed requests</b> (RFC 9113 8.1.1, 8.2, 8.3): a missing, duplicated, empty or unknown
 * pseudo-header, a response pseudo-header in a request, a connection-specific header, {@code TE}
 * other than {@code trailers}, an upper-case header name. Jetty's HPACK decoder finds each and,
 * since 12.1, answers the stream with a 400 followed by a RST_STREAM of NO_ERROR; the RFC makes such
 * a request a stream error of type PROTOCOL_ERROR. The session listener here resets the stream
 * with PROTOCOL_ERROR instead (a client learns its request was malformed, not answered). Either
 * way the handler is never called.
 *
 * <p><b>Frames on a stream the client has closed</b> (RFC 9113 5.1): DATA after the client's
 * END_STREAM or RST_STREAM is a STREAM_CLOSED error. Jetty drops DATA for a stream it has already
 * forgotten (it cannot tell whether the client closed it, or the server reset it and DATA was in
 * flight, which must be ignored). {@link PeerClosedStreams} remembers the streams the client
 * closed, and answers DATA on one that Jetty has forgotten with RST_STREAM(STREAM_CLOSED); DATA
 * on a stream Jetty still holds is Jetty's to judge, as before.
 *
 * <p><b>The SETTINGS acknowledgement first</b> (RFC 9113 6.5.3): a client that raises
 * SETTINGS_INITIAL_WINDOW_SIZE while a response waits for window gets the SETTINGS ACK, then the
 * DATA the larger window allows. Jetty applies the new window as it reads the frame and queues the
 * ACK after, so the DATA it releases can be written first (seen over TLS, where writes are slower):
 * a client waiting for its ACK before counting DATA (h2spec does) misses it. {@link AckFirstWindow}
 * applies a raised initial window once the ACK is written; a lowered one at once, as before.
 *
 * <p>Invariants: nothing here runs for a well-formed request but one map read per stream the
 * client ends (to remember it); no frame Jetty would process is withheld from it; the session's
 * flow-control window is Jetty's (the DATA still reaches Jetty, which credits its bytes); a stream
 * never sends beyond the window the client allows (only a raise waits).
 */
final class Http2Conformance {

    private Http2Conformance() {}

    // The two factories repeat one override: Jetty's session listener is a protected inner class
    // of HTTP2ServerConnectionFactory, so only code inside a subclass of each can extend it.

    /** h2 (HTTP/2 over TLS, chosen by ALPN) with these checks. */
    static HTTP2ServerConnectionFactory h2(HttpConfiguration config) {
        return checked(new HTTP2ServerConnectionFactory(config) {
            @Override
            protected ServerSessionListener newSessionListener(Connector connector, EndPoint endPoint) {
                return new HTTPServerSessionListener(endPoint) {
                    @Override
                    public void onStreamFailure(Stream stream, Throwable failure, Callback callback) {
                        if (!resetMalformed(stream, failure, callback)) {
                            super.onStreamFailure(stream, failure, callback);
                        }
                    }
                };
            }
        });
    }

    /** h2c (cleartext HTTP/2, by prior knowledge or Upgrade) with these checks. */
    static HTTP2CServerConnectionFactory h2c(HttpConfiguration config) {
        return checked(new HTTP2CServerConnectionFactory(config) {
            @Override
            protected ServerSessionListener newSessionListener(Connector connector, EndPoint endPoint) {
                return new HTTPServerSessionListener(endPoint) {
                    @Override
                    public void onStreamFailure(Stream stream, Throwable failure, Callback callback) {
                        if (!resetMalformed(stream, failure, callback)) {
                            super.onStreamFailure(stream, failure, callback);
                        }
                    }
                };
            }
        });
    }

    private static <F extends AbstractHTTP2ServerConnectionFactory> F checked(F factory) {
        // Jetty adds the factory's event listeners to every session it makes.
        factory.addEventListener(new PeerClosedStreams());
        factory.addEventListener(new AckWritten());
        // Jetty's default strategy (a BufferingFlowControlStrategy of ratio 0.5), one per session.
        factory.setFlowControlStrategyFactory(() -> new AckFirstWindow(0.5f));
        return factory;
    }

    /**
     * Jetty's flow control, applying a raise of the client's initial stream window only once the
     * SETTINGS ACK for it is written ({@link AckWritten} calls {@link #acknowledged}).
     *
     * <p>Protocol: the session's reading thread calls {@link #updateInitialStreamWindow} for each
     * SETTINGS from the client; the flusher's thread calls {@link #acknowledged} as it writes an ACK.
     * {@code pending} holds the raise not yet applied (or {@link #NONE}); a newer setting, raise or
     * not, replaces it (the newest value wins, as in Jetty), and whichever thread takes it applies
     * it. Before the ACK the streams keep the smaller window, which is always safe to send within.
     */
    static final class AckFirstWindow extends BufferingFlowControlStrategy {

        private static final int NONE = Integer.MIN_VALUE;

        private final AtomicInteger pending = new AtomicInteger(NONE);

        AckFirstWindow(float bufferRatio) {
            super(bufferRatio);
        }

        @Override
        public void updateInitialStreamWindow(Session session, int initialStreamWindow, boolean local) {
            if (!local && initialStreamWindow > getInitialStreamSendWindow()) {
                pending.set(initialStreamWindow);
                return;
            }
            if (!local) {
                pending.set(NONE);
            }
            super.updateInitialStreamWindow(session, initialStreamWindow, local);
        }

        /** Called as a SETTINGS ACK is written to the client: applies the raise it acknowledged. */
        void acknowledged(Session session) {
            int window = pending.getAndSet(NONE);
            if (window != NONE) {
                super.updateInitialStreamWindow(session, window, false);
            }
        }
    }

    /** Tells a session's {@link AckFirstWindow} when a SETTINGS ACK is being written. */
    static final class AckWritten implements HTTP2Session.FrameListener {
        @Override
        public void onOutgoingFrame(Session session, Frame frame) {
            if (frame instanceof SettingsFrame settings
                    && settings.isReply()
                    && session instanceof HTTP2Session http2
                    && http2.getFlowControlStrategy() instanceof AckFirstWindow window) {
                window.acknowledged(session);
            }
        }
    }

    /**
     * Resets {@code stream} with PROTOCOL_ERROR when {@code failure} is Jetty's verdict on a
     * malformed request (a 400 caused by the HPACK decoder's stream error); false otherwise.
     */
    static boolean resetMalformed(Stream stream, Throwable failure, Callback callback) {
        if (failure instanceof HttpException.RuntimeException bad
                && bad.getCode() == 400
                && bad.getCause() instanceof HpackException.StreamException) {
            stream.reset(new ResetFrame(stream.getId(), ErrorCode.PROTOCOL_ERROR.code), callback);
            return true;
        }
        return false;
    }

    /**
     * Remembers, per session, the streams the client closed (END_STREAM or RST_STREAM), and
     * answers DATA on one that Jetty has already forgotten with RST_STREAM(STREAM_CLOSED).
     *
     * <p>Protocol: one instance serves every session of a connection factory; each session's
     * record is made when it opens and dropped when it closes. A session's incoming frames are
     * parsed one at a time, in order, by whichever thread reads its connection (Jetty hands the
     * connection from thread to thread with a happens-before edge), so a record is only ever
     * touched by one thread at a time and needs no lock.
     *
     * <p>Bounded: a record keeps the last {@value #REMEMBERED} streams the client closed. DATA on an
     * older one is left to Jetty, which drops it: a client that breaks the rule on a stream
     * closed that long ago is only not told so.
     */
    static final class PeerClosedStreams implements HTTP2Session.FrameListener, HTTP2Session.LifeCycleListener {

        static final int REMEMBERED = 64;

        private final Map<Session, int[]> sessions = new ConcurrentHashMap<>();

        @Override
        public void onOpen(Session session) {
            // Slot 0 is the next index to write (1..REMEMBERED); 0 never names a client stream.
            sessions.put(session, new int[REMEMBERED + 1]);
        }

        @Override
        public void onClose(Session session) {
            sessions.remove(session);
        }

        @Override
        public void onIncomingFrame(Session session, Frame frame) {
            switch (frame.getType()) {
                case HEADERS -> {
                    HeadersFrame headers = (HeadersFrame) frame;
                    if (headers.isEndStream()) {
                        remember(session, headers.getStreamId());
                    }
                }
                case RST_STREAM -> remember(session, ((ResetFrame) frame).getStreamId());
                case DATA -> {
                    DataFrame data = (DataFrame) frame;
                    int id = data.getStreamId();
                    if (session.getStream(id) == null
                            && closedByClient(session, id)
                            && session instanceof HTTP2Session http2) {
                        // With no stream, this only sends the RST_STREAM; Jetty then drops the
                        // DATA as before, crediting its bytes to the session's window.
                        http2.onStreamFailure(id, ErrorCode.STREAM_CLOSED_ERROR.code, "frame_after_close");
                    } else if (data.isEndStream()) {
                        remember(session, id);
                    }
                }
                default -> {}
            }
        }

        private void remember(Session session, int streamId) {
            int[] ids = sessions.get(session);
            if (ids != null) {
                int next = ids[0];
                ids[next + 1] = streamId;
                ids[0] = (next + 1) % REMEMBERED;
            }
        }

        private boolean closedByClient(Session session, int streamId) {
            int[] ids = sessions.get(session);
            if (ids == null) {
                return false;
            }
            for (int i = 1; i < ids.length; i++) {
                if (ids[i] == streamId) {
                    return true;
                }
            }
            return false;
        }
    }
}
