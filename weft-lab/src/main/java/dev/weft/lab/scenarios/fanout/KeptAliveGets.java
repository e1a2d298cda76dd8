package dev.weft.lab.scenarios.fanout;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@code fanout} scenario's HTTP client: blocking HTTP/1.1 GETs to one server on 127.0.0.1, each
 * on a kept-alive connection taken from a pool, or on a new one when the pool has none free.
 *
 * <p>Why not {@code java.net.http.HttpClient} (decision 0878): the scenario measures what N blocking
 * calls cost under each way of running them, and the client's own CPU per call is noise common to every
 * variant. Against {@link WaitServer}'s 1 s wait on this 2-core machine, 1,000 calls at once through a
 * primed {@code HttpClient} took 1,080-1,330 ms and were still getting faster after 16 runs (its
 * asynchronous stages and its one selector thread compile slowly); through Apache HttpClient 4.5,
 * clj-http's engine, 1,040-1,180 ms; through this client 1,025-1,075 ms, flat after the first run. A
 * call here is what the article's clj-http call is: a request written to a socket and a blocking read
 * of the answer, which on a virtual thread parks it.
 *
 * <p>Only what {@link WaitServer} answers is understood: a status line, headers, and a body of
 * {@code Content-Length} bytes. A connection that fails, or whose answer is not of that form, is
 * closed and the call throws; only a connection whose answer was read to its end goes back to the
 * pool. Thread-safe: any number of threads may call {@link #get} at once.
 */
public final class KeptAliveGets implements AutoCloseable {

    private static final int MAX_HEAD_BYTES = 8192;
    private static final byte[] NO_BODY = new byte[0];

    private final int port;
    private final ConcurrentLinkedQueue<Connection> idle = new ConcurrentLinkedQueue<>();
    private final List<Connection> all = new ArrayList<>(); // every connection opened, closed ones too
    private final AtomicBoolean closed = new AtomicBoolean();

    private record Connection(Socket socket, InputStream in, OutputStream out) {}

    /** A client of the server on 127.0.0.1:{@code port}; it opens no connection until a call needs one. */
    public KeptAliveGets(int port) {
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("a TCP port is 1 to 65535; got " + port);
        }
        this.port = port;
    }

    /**
     * Sends {@code GET <pathAndQuery>} and blocks until the whole answer is read; returns its status
     * code.
     *
     * @throws IOException when the connection fails or the answer is not a status line, headers and
     *     a {@code Content-Length} body; that connection is closed
     * @throws IllegalStateException after {@link #close}
     */
    public int get(String pathAndQuery) throws IOException {
        return exchange(pathAndQuery, false).status();
    }

    /**
     * Sends {@code GET <pathAndQuery>} and returns the answer's body as ISO-8859-1 text.
     *
     * @throws IOException as {@link #get} does, and when the status is not 200
     */
    public String getText(String pathAndQuery) throws IOException {
        Answer answer = exchange(pathAndQuery, true);
        String body = new String(answer.body(), StandardCharsets.ISO_8859_1);
        if (answer.status() != 200) {
            throw new IOException("GET " + pathAndQuery + " answered " + answer.status() + ": " + body);
        }
        return body;
    }

    /** An answer: its status and, when asked for, its body (else empty). */
    record Answer(int status, byte[] body) {}

    private Answer exchange(String pathAndQuery, boolean keepBody) throws IOException {
        if (closed.get()) {
            throw new IllegalStateException("this client is closed; make a new KeptAliveGets");
        }
        Connection c = idle.poll();
        if (c == null) {
            c = open();
        }
        try {
            c.out()
                    .write(("GET " + pathAndQuery + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
            c.out().flush();
            Answer answer = readAnswer(c.in(), keepBody);
            idle.add(c);
            if (closed.get()) {
                closeQuietly(c); // close() may have run while this call held it
            }
            return answer;
        } catch (IOException | RuntimeException e) {
            closeQuietly(c);
            throw e;
        }
    }

    /** The connections this client has opened so far, kept-alive ones counted once. */
    public int opened() {
        synchronized (all) {
            return all.size();
        }
    }

    /** Closes every connection; later calls throw. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            synchronized (all) {
                all.forEach(KeptAliveGets::closeQuietly);
            }
            idle.clear();
        }
    }

    private Connection open() throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setTcpNoDelay(true);
        Connection c =
                new Connection(socket, new BufferedInputStream(socket.getInputStream()), socket.getOutputStream());
        synchronized (all) {
            all.add(c);
        }
        return c;
    }

    /** Reads one answer: its head to the empty line, then its Content-Length body (kept when {@code keepBody}). */
    static Answer readAnswer(InputStream in, boolean keepBody) throws IOException {
        String head = readHead(in);
        if (!head.startsWith("HTTP/1.1 ") || head.length() < 12) {
            throw new IOException("not an HTTP/1.1 status line: " + firstLine(head));
        }
        int status;
        try {
            status = Integer.parseInt(head.substring(9, 12));
        } catch (NumberFormatException e) {
            throw new IOException("no status code in " + firstLine(head), e);
        }
        long length = -1;
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0
                    && line.substring(0, colon).strip().toLowerCase(Locale.ROOT).equals("content-length")) {
                try {
                    length = Long.parseLong(line.substring(colon + 1).strip());
                } catch (NumberFormatException e) {
                    throw new IOException("a Content-Length that is not a number: " + line, e);
                }
            }
        }
        if (length < 0) {
            throw new IOException(
                    "an answer without Content-Length, which this client cannot delimit: " + firstLine(head));
        }
        if (!keepBody) {
            in.skipNBytes(length); // throws EOFException when the body is cut short
            return new Answer(status, NO_BODY);
        }
        if (length > MAX_HEAD_BYTES) {
            throw new IOException("a body of " + length + " bytes where a short text was due");
        }
        byte[] body = in.readNBytes((int) length);
        if (body.length < length) {
            throw new IOException(
                    "the connection ended " + (length - body.length) + " bytes before the answer's body did");
        }
        return new Answer(status, body);
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder(128);
        int matched = 0; // of "\r\n\r\n"
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the connection ended before the answer's head did"
                        + (head.isEmpty() ? "" : ": " + firstLine(head.toString())));
            }
            if (head.length() >= MAX_HEAD_BYTES) {
                throw new IOException("an answer's head longer than " + MAX_HEAD_BYTES + " bytes");
            }
            head.append((char) b);
            matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
                    ? matched + 1
                    : (b == '\r' ? 1 : 0);
        }
        return head.toString();
    }

    private static String firstLine(String head) {
        int end = head.indexOf('\r');
        return end < 0 ? head : head.substring(0, end);
    }

    private static void closeQuietly(Connection c) {
        try {
            c.socket().close();
        } catch (IOException ignored) {
            // closing: nothing is left to lose
        }
    }
}
