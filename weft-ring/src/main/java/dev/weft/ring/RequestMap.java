package dev.weft.ring;

import clojure.lang.IPersistentMap;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;
import clojure.lang.PersistentHashMap;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.server.Request;

/**
 * Builds the Ring request map (Ring SPEC 1.5) of a Jetty request.
 *
 * <p>Keys: {@code :server-port} (Integer), {@code :server-name}, {@code :remote-addr}, {@code :uri}
 * (the raw, still percent-encoded path), {@code :query-string} (nil when the URI has none),
 * {@code :scheme} ({@code :http} or {@code :https}), {@code :request-method} (a lowercase keyword),
 * {@code :protocol} ({@code "HTTP/1.1"}, or {@code "HTTP/2"}), {@code :headers} and {@code :body} (an InputStream,
 * empty when the request has no content). The deprecated keys {@code :content-type},
 * {@code :content-length} and {@code :character-encoding} are left out; their values are in
 * {@code :headers}.
 *
 * <p>Header names are lowercased; a header that appears more than once becomes one string, its
 * values joined with {@code ","}, except {@code cookie}, joined with {@code "; "} (the form of a
 * single Cookie header, RFC 6265 section 4.2.1).
 */
final class RequestMap {

    static final Keyword SERVER_PORT = Keyword.intern("server-port");
    static final Keyword SERVER_NAME = Keyword.intern("server-name");
    static final Keyword REMOTE_ADDR = Keyword.intern("remote-addr");
    static final Keyword URI = Keyword.intern("uri");
    static final Keyword QUERY_STRING = Keyword.intern("query-string");
    static final Keyword SCHEME = Keyword.intern("scheme");
    static final Keyword REQUEST_METHOD = Keyword.intern("request-method");
    static final Keyword PROTOCOL = Keyword.intern("protocol");
    static final Keyword HEADERS = Keyword.intern("headers");
    static final Keyword BODY = Keyword.intern("body");

    private static final Keyword HTTP = Keyword.intern("http");
    private static final Keyword HTTPS = Keyword.intern("https");
    private static final Keyword GET = Keyword.intern("get");
    private static final Keyword POST = Keyword.intern("post");
    private static final Keyword PUT = Keyword.intern("put");
    private static final Keyword DELETE = Keyword.intern("delete");
    private static final Keyword HEAD = Keyword.intern("head");
    private static final Keyword OPTIONS = Keyword.intern("options");
    private static final Keyword PATCH = Keyword.intern("patch");

    /**
     * The class of the fields Jetty parses a request's head into (package-private in Jetty): an
     * array whose {@code getField(int)} is an index, where the interface's default walks an iterator.
     */
    private static final Class<?> PARSED_FIELDS =
            HttpFields.build().add("a", "b").asImmutable().getClass();

    /** Above this many header fields, duplicates are found with a hash map instead of a scan. */
    private static final int SCAN_LIMIT = 16;

    private RequestMap() {}

    /**
     * The Ring request map of {@code request}, with {@code body} as its {@code :body}. It is an
     * array map (ten keyword keys, compared by identity): building it hashes nothing, and the
     * first {@code assoc} of a middleware turns it into a hash map, as for any map of its size.
     * {@code connection} is the request's HTTP/1 connection, which keeps what its requests share
     * (the client's address as text, the port), or null (HTTP/2: computed for each request).
     */
    static IPersistentMap of(Request request, InputStream body, RingHttpConnection connection) {
        HttpURI uri = request.getHttpURI();
        String path = uri.getPath();
        return new PersistentArrayMap(new Object[] {
            SERVER_PORT, serverPort(request, connection),
            SERVER_NAME, Request.getServerName(request),
            REMOTE_ADDR, remoteAddr(request, connection),
            URI, path == null || path.isEmpty() ? "/" : path,
            QUERY_STRING, uri.getQuery(),
            SCHEME, request.isSecure() ? HTTPS : HTTP,
            REQUEST_METHOD, method(request.getMethod()),
            PROTOCOL, protocol(request),
            HEADERS, headers(request.getHeaders()),
            BODY, body
        });
    }

    /** The request's server port; an HTTP/1 connection's requests to the same port share the Integer. */
    private static Integer serverPort(Request request, RingHttpConnection connection) {
        return connection != null ? connection.serverPort(request) : Request.getServerPort(request);
    }

    /** The client's address as text; an HTTP/1 connection formats it once for all its requests. */
    private static String remoteAddr(Request request, RingHttpConnection connection) {
        return connection != null ? connection.remoteAddr(request) : Request.getRemoteAddr(request);
    }

    /** "HTTP/1.1", "HTTP/1.0", or "HTTP/2" (not Jetty's "HTTP/2.0": the protocol has no minor version). */
    static String protocol(Request request) {
        var meta = request.getConnectionMetaData();
        return meta.getHttpVersion() == org.eclipse.jetty.http.HttpVersion.HTTP_2 ? "HTTP/2" : meta.getProtocol();
    }

    /** The lowercase keyword of an HTTP method, without interning the common ones again. */
    static Keyword method(String method) {
        return switch (method) {
            case "GET" -> GET;
            case "POST" -> POST;
            case "PUT" -> PUT;
            case "DELETE" -> DELETE;
            case "HEAD" -> HEAD;
            case "OPTIONS" -> OPTIONS;
            case "PATCH" -> PATCH;
            default -> Keyword.intern(method.toLowerCase(Locale.ROOT));
        };
    }

    /** Lowercased names to values, repeated headers joined as the SPEC says. */
    static IPersistentMap headers(HttpFields fields) {
        int n = fields.size();
        if (n > SCAN_LIMIT) {
            return manyHeaders(fields);
        }
        // Few fields (the usual case): a flat array, duplicates found by a scan, an array map.
        // A request's fields as Jetty parsed them are an array: read by index, no iterator.
        Object[] kvs = new Object[2 * n];
        int len = 0;
        if (fields.getClass() == PARSED_FIELDS) {
            for (int f = 0; f < n; f++) {
                len = put(kvs, len, fields.getField(f));
            }
        } else {
            for (HttpField field : fields) {
                len = put(kvs, len, field);
            }
        }
        if (len < kvs.length) {
            kvs = java.util.Arrays.copyOf(kvs, len);
        }
        return new PersistentArrayMap(kvs);
    }

    /** Adds {@code field} to the first {@code len} slots of {@code kvs}, joining a repeated name; returns the new length. */
    private static int put(Object[] kvs, int len, HttpField field) {
        String name = field.getLowerCaseName();
        String value = value(field);
        int i = 0;
        while (i < len && !name.equals(kvs[i])) {
            i += 2;
        }
        if (i < len) {
            kvs[i + 1] = join(name, (String) kvs[i + 1], value);
            return len;
        }
        kvs[len] = name;
        kvs[len + 1] = value;
        return len + 2;
    }

    private static IPersistentMap manyHeaders(HttpFields fields) {
        Map<String, String> merged = new HashMap<>();
        for (HttpField field : fields) {
            String name = field.getLowerCaseName();
            merged.merge(name, value(field), (a, b) -> join(name, a, b));
        }
        return PersistentHashMap.create(merged);
    }

    private static String value(HttpField field) {
        String v = field.getValue();
        return v == null ? "" : v;
    }

    private static String join(String name, String first, String next) {
        return first + ("cookie".equals(name) ? "; " : ",") + next;
    }
}
