package dev.weft.ring;

import java.io.IOException;
import java.io.InputStream;
import org.eclipse.jetty.http.BadMessageException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;

/**
 * The request body a Ring handler reads ({@code :body}): Jetty's blocking stream, held to the body
 * size limit (a chunked body has no length to check up front), remembering its first failure, and
 * telling when the handler is blocked in a read.
 *
 * <p>Why. A handler that fails because the client sent a bad, oversized or stalled body is the
 * client's fault: its {@link Exchange} answers with the status {@link #failure()} calls for (4xx,
 * see {@link Failures#clientStatus}), not a 500. A handler blocked in {@link #read} waits for the
 * client, so the idle timeout may cut it and the read deadline watches it ({@link #reading()}).
 *
 * <p>Protocol: the handler's thread reads; the read-deadline sweep may {@link #fail} the body from
 * another thread (then interrupts the reader). {@code failure} is set once, by whichever comes
 * first, and every later read throws with it as the cause. {@code reading} is true only inside a
 * read.
 */
final class RequestBody extends InputStream {

    private final InputStream in;
    private final long limit;
    private long read;
    private volatile Throwable failure;
    private volatile boolean reading;

    RequestBody(InputStream in, long limit) {
        this.in = in;
        this.limit = limit;
    }

    /**
     * The body of {@code request} for its handler: a {@link RequestBody} of at most {@code limit}
     * bytes (-1: no limit), or {@link #EMPTY} when the request has none.
     */
    static InputStream of(Request request, long limit) {
        return hasBody(request) ? new RequestBody(Request.asInputStream(request), limit) : EMPTY;
    }

    /**
     * Whether the request has a body: HTTP/1.1 has one only with a Content-Length above zero or a
     * Transfer-Encoding.
     */
    private static boolean hasBody(Request request) {
        long length = request.getLength();
        // get(HttpHeader) is a scan of a parsed request's field array; contains() would make an iterator.
        return length > 0 || (length < 0 && request.getHeaders().get(HttpHeader.TRANSFER_ENCODING) != null);
    }

    /** The first failure of a read of this body, or null. */
    Throwable failure() {
        return failure;
    }

    /** Whether the handler is inside a read of this body now. */
    boolean reading() {
        return reading;
    }

    /** Records {@code t} as the body's failure unless it already has one. */
    void fail(Throwable t) {
        if (failure == null) {
            failure = t;
        }
    }

    @Override
    public int read() throws IOException {
        check();
        reading = true;
        try {
            int b = in.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        } catch (IOException | RuntimeException e) {
            throw failed(e);
        } finally {
            reading = false;
        }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        check();
        reading = true;
        try {
            int n = in.read(b, off, len);
            if (n > 0) {
                count(n);
            }
            return n;
        } catch (IOException | RuntimeException e) {
            throw failed(e);
        } finally {
            reading = false;
        }
    }

    @Override
    public int available() throws IOException {
        return failure != null ? 0 : in.available();
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    private void check() throws IOException {
        Throwable f = failure;
        if (f != null) {
            throw new IOException("reading the request body failed before", f);
        }
    }

    private void count(int n) throws IOException {
        if (limit >= 0 && (read += n) > limit) {
            throw new IOException(new BadMessageException(
                    HttpStatus.PAYLOAD_TOO_LARGE_413, "the request body is over the limit of " + limit + " bytes"));
        }
    }

    /** Remembers the body's first failure and returns the one to throw now. */
    private IOException failed(Exception e) {
        fail(e);
        return e instanceof IOException io ? io : new IOException(e);
    }

    /** The body of a request that has none: always at its end, and closing it changes nothing. */
    static final InputStream EMPTY = new InputStream() {
        @Override
        public int read() {
            return -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            java.util.Objects.checkFromIndexSize(off, len, b.length);
            return len == 0 ? 0 : -1;
        }
    };
}
