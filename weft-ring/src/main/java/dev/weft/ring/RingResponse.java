package dev.weft.ring;

import clojure.lang.AFn;
import clojure.lang.IKVReduce;
import clojure.lang.ILookup;
import clojure.lang.Keyword;
import clojure.lang.RT;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.util.Map;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.server.Response;

/**
 * Reading a Ring response map (Ring SPEC 1.5): its status, its headers and the charset its
 * {@code Content-Type} names. Everything that is not a valid response map is refused with an
 * {@link IllegalArgumentException} whose message names the problem and the fix; the server turns it
 * into a 500 and logs that message.
 */
public final class RingResponse {

    static final Keyword STATUS = Keyword.intern("status");
    static final Keyword HEADERS = Keyword.intern("headers");
    static final Keyword BODY = Keyword.intern("body");
    static final Keyword WS_LISTENER = Keyword.intern("ring.websocket", "listener");
    static final Keyword WS_PROTOCOL = Keyword.intern("ring.websocket", "protocol");

    private RingResponse() {}

    /**
     * Sets the status and headers of {@code exchange}'s response from the Ring response map
     * {@code ring} and returns its {@code :body}; the first {@code Content-Type} value it adds is
     * left in {@code exchange.contentType} (null when none), so that a String body's charset is found
     * without looking the header up again.
     *
     * @throws IllegalArgumentException if {@code ring} is not a map, its {@code :status} is not an
     *                                  integer from 100 to 599, or its {@code :headers} is not a map
     *                                  of string names to a string or a collection of strings
     */
    static Object apply(Object ring, ExchangeResponse exchange) {
        Response response = exchange.response;
        exchange.contentType = null;
        if (!(ring instanceof Map<?, ?>)) {
            throw new IllegalArgumentException("the handler returned " + describe(ring)
                    + "; a Ring handler must return a response map such as {:status 200, :headers {}, :body \"ok\"}");
        }
        ILookup lookup = ring instanceof ILookup l ? l : null;
        response.setStatus(status(get(lookup, ring, STATUS)));
        Object headers = get(lookup, ring, HEADERS);
        if (headers != null) {
            if (!(headers instanceof Map<?, ?> map)) {
                throw new IllegalArgumentException("the response's :headers is " + describe(headers)
                        + "; it must be a map of header names to values, e.g. {\"content-type\" \"text/plain\"}");
            }
            if (headers instanceof IKVReduce kv) {
                kv.kvreduce(ADD_HEADER, exchange); // a Clojure map's entries without an iterator or entry objects
            } else {
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    addHeader(exchange, e.getKey(), e.getValue());
                }
            }
        }
        return get(lookup, ring, BODY);
    }

    /** Adds one Ring header (name, value) to the response of the ExchangeResponse it is reduced over. */
    private static final AFn ADD_HEADER = new AFn() {
        @Override
        public Object invoke(Object exchange, Object name, Object value) {
            addHeader((ExchangeResponse) exchange, name, value);
            return exchange;
        }
    };

    /** The {@code :ring.websocket/listener} of a response map, or null (for anything else too). */
    static Object webSocketListener(Object ring) {
        return ring instanceof ILookup l ? l.valAt(WS_LISTENER) : null;
    }

    /** The {@code :ring.websocket/protocol} of a WebSocket response: the subprotocol to accept, or null. */
    static String webSocketProtocol(Object ring) {
        Object p = RT.get(ring, WS_PROTOCOL);
        if (p != null && !(p instanceof String)) {
            throw new IllegalArgumentException("the response's :ring.websocket/protocol is " + describe(p)
                    + "; it must be the name of the subprotocol to accept, a string");
        }
        return (String) p;
    }

    /** Refuses a WebSocket listener that is neither a map nor a ring-core Listener. */
    static void checkListener(Object listener, WebSockets ws) {
        if (RingWebSocket.isPlainMap(listener) || ws.acceptsListener(listener)) {
            return;
        }
        throw new IllegalArgumentException("the response's :ring.websocket/listener is " + describe(listener)
                + "; it must be a map of :on-open, :on-message, :on-pong, :on-error and :on-close functions,"
                + " or (with ring-core on the class path) satisfy ring.websocket.protocols/Listener");
    }

    /** A key of a Clojure map through its ILookup, or of any other java.util.Map. */
    private static Object get(ILookup lookup, Object map, Keyword key) {
        return lookup != null ? lookup.valAt(key) : ((Map<?, ?>) map).get(key);
    }

    private static int status(Object status) {
        if (status instanceof Long || status instanceof Integer || status instanceof Short) {
            long code = ((Number) status).longValue();
            if (code >= 100 && code <= 599) {
                return (int) code;
            }
        }
        throw new IllegalArgumentException(
                "the response's :status is " + describe(status) + "; it must be an integer from 100 to 599, e.g. 200");
    }

    private static void addHeader(ExchangeResponse exchange, Object name, Object value) {
        if (!(name instanceof String header)) {
            throw new IllegalArgumentException("the response header name " + describe(name)
                    + " is not a string; write it as a string, e.g. \"content-type\"");
        }
        HttpFields.Mutable fields = exchange.response.getHeaders();
        if (value instanceof String s) {
            fields.add(header, s);
            if (exchange.contentType == null && header.equalsIgnoreCase("content-type")) {
                exchange.contentType = s;
            }
            return;
        }
        if (value instanceof Iterable<?> values) {
            for (Object v : values) {
                if (!(v instanceof String s)) {
                    throw new IllegalArgumentException("the response header \"" + header + "\" has the value "
                            + describe(v) + " in its collection; each value must be a string");
                }
                fields.add(header, s);
                if (exchange.contentType == null && header.equalsIgnoreCase("content-type")) {
                    exchange.contentType = s;
                }
            }
            return;
        }
        throw new IllegalArgumentException("the response header \"" + header + "\" has the value " + describe(value)
                + "; a header value must be a string or a collection of strings, e.g. \"42\" or [\"a=1\" \"b=2\"]");
    }

    /**
     * The charset named by the {@code charset} parameter of the Ring response map's
     * {@code Content-Type} header (its name matched in any case), or UTF-8 when there is none. This
     * is how String and ISeq bodies are encoded.
     *
     * @throws IllegalArgumentException if the header names a charset this JVM does not know
     */
    public static Charset charset(Object ring) {
        Object headers = RT.get(ring, HEADERS);
        if (!(headers instanceof Map<?, ?> map)) {
            return StandardCharsets.UTF_8;
        }
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (e.getKey() instanceof String name && name.equalsIgnoreCase("content-type")) {
                Object v = e.getValue();
                if (v instanceof Iterable<?> values) {
                    var it = values.iterator();
                    v = it.hasNext() ? it.next() : null;
                }
                return v instanceof String contentType ? charsetOf(contentType) : StandardCharsets.UTF_8;
            }
        }
        return StandardCharsets.UTF_8;
    }

    /**
     * The charset a Content-Type value names, UTF-8 when it names none (or is null).
     *
     * @throws IllegalArgumentException if it names a charset this JVM does not know
     */
    static Charset charsetOf(String contentType) {
        if (contentType == null || contentType.indexOf(';') < 0) {
            return StandardCharsets.UTF_8; // the usual case, decided without a scan
        }
        int i = indexOfIgnoreCase(contentType, "charset=");
        if (i < 0) {
            return StandardCharsets.UTF_8;
        }
        int start = i + "charset=".length();
        int end = contentType.indexOf(';', start);
        String name = (end < 0 ? contentType.substring(start) : contentType.substring(start, end)).strip();
        if (name.length() >= 2 && name.startsWith("\"") && name.endsWith("\"")) {
            name = name.substring(1, name.length() - 1);
        }
        try {
            return Charset.forName(name);
        } catch (IllegalCharsetNameException | UnsupportedCharsetException e) {
            throw new IllegalArgumentException(
                    "the response's Content-Type \"" + contentType
                            + "\" names a charset this JVM does not know; use one such as utf-8",
                    e);
        }
    }

    private static int indexOfIgnoreCase(String s, String part) {
        int n = s.length() - part.length();
        for (int i = 0; i <= n; i++) {
            if (s.regionMatches(true, i, part, 0, part.length())) {
                return i;
            }
        }
        return -1;
    }

    /**
     * A value and its type, short enough for a message. Only scalars are printed: printing a
     * collection could realize an infinite lazy seq.
     */
    static String describe(Object v) {
        if (v == null) {
            return "nil";
        }
        if (!(v instanceof CharSequence
                || v instanceof Number
                || v instanceof Boolean
                || v instanceof Character
                || v instanceof clojure.lang.Named)) {
            return "a " + v.getClass().getName();
        }
        String text = RT.printString(v);
        if (text.length() > 80) {
            text = text.substring(0, 77) + "...";
        }
        return text + " (a " + v.getClass().getName() + ")";
    }
}
