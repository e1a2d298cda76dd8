package dev.weft.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import clojure.lang.AFn;
import clojure.lang.IFn;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The core-independent part of weft-ring's WebSocket, {@link RingWebSocket}, on a core whose writes
 * end when the test says so: what a send blocks for and throws, the bound on pending
 * asynchronous sends, the messages it refuses, and the listener calls (a failing one closes the
 * socket with 1011). Jetty's side is tested over real WebSockets by weft.ring.websocket-test, and a
 * Helidon one by the lab's RingWebSocketOnHelidonTest.
 */
class RingWebSocketTest {

    /** A core whose every write waits in {@link #writes} until the test completes it. */
    static final class HeldWrites extends RingWebSocket {
        final BlockingQueue<CompletableFuture<Void>> writes = new LinkedBlockingQueue<>();
        final List<Object> written = new CopyOnWriteArrayList<>();
        final List<String> closes = new CopyOnWriteArrayList<>();

        HeldWrites(Object listener) {
            super(listener, null);
        }

        @Override
        protected boolean transportOpen() {
            return closes.isEmpty();
        }

        @Override
        protected void transmit(Object message, Written done) {
            written.add(message);
            CompletableFuture<Void> write = new CompletableFuture<>();
            write.whenComplete((ok, x) -> {
                if (x == null) {
                    done.succeeded();
                } else {
                    done.failed(x);
                }
            });
            writes.add(write);
        }

        @Override
        protected void transmitPing(ByteBuffer data, Written done) {
            transmit(data, done);
        }

        @Override
        protected void transmitPong(ByteBuffer data, Written done) {
            transmit(data, done);
        }

        @Override
        protected void closeTransport(int code, String reason) {
            closes.add(code + " " + reason);
        }

        @Override
        protected SocketAddress transportRemoteAddress() {
            return new InetSocketAddress("127.0.0.1", 1);
        }

        CompletableFuture<Void> nextWrite() throws InterruptedException {
            CompletableFuture<Void> w = writes.poll(30, TimeUnit.SECONDS);
            assertTrue(w != null, "no write was started within 30 s");
            return w;
        }
    }

    private static Object listener(Object... kvs) {
        return PersistentArrayMap.createAsIfByAssoc(kvs);
    }

    private static Keyword k(String name) {
        return Keyword.intern(name);
    }

    @Test
    void sendBlocksUntilWrittenAndThrowsWhatTheWriteFailedWith() throws Exception {
        HeldWrites socket = new HeldWrites(listener());
        CompletableFuture<Throwable> sending = CompletableFuture.supplyAsync(() -> {
            try {
                socket.send("hello");
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        CompletableFuture<Void> write = socket.nextWrite();
        assertFalse(sending.isDone(), "send returned before its message was written");
        write.complete(null);
        assertEquals(null, sending.get(30, TimeUnit.SECONDS));
        assertEquals(List.of("hello"), socket.written, "a CharSequence goes as a String: a text message");

        IOException cause = new IOException("connection reset");
        CompletableFuture<Throwable> failing = CompletableFuture.supplyAsync(() -> {
            try {
                socket.send(new byte[] {1, 2});
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        socket.nextWrite().completeExceptionally(cause);
        assertSame(cause, failing.get(30, TimeUnit.SECONDS));
        assertTrue(socket.written.get(1) instanceof ByteBuffer, "bytes go as a ByteBuffer: a binary message");
    }

    @Test
    void atMost64AsyncSendsArePendingAndEachCompletionCallsBack() throws Exception {
        HeldWrites socket = new HeldWrites(listener());
        AtomicInteger succeeded = new AtomicInteger();
        BlockingQueue<Object> failed = new LinkedBlockingQueue<>();
        IFn succeed = new AFn() {
            @Override
            public Object invoke() {
                return succeeded.incrementAndGet();
            }
        };
        IFn fail = new AFn() {
            @Override
            public Object invoke(Object x) {
                failed.add(x);
                return null;
            }
        };
        for (int i = 0; i < RingWebSocket.MAX_PENDING_ASYNC; i++) {
            socket.sendAsync("m" + i, succeed, fail); // returns at once: nothing is written yet
        }
        CountDownLatch sixtyFifthReturned = new CountDownLatch(1);
        Thread sender = Thread.ofVirtual().start(() -> {
            try {
                socket.sendAsync("one too many", succeed, fail);
                sixtyFifthReturned.countDown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertFalse(sixtyFifthReturned.await(200, TimeUnit.MILLISECONDS), "a 65th pending send did not block");
        IOException cause = new IOException("the peer went away");
        socket.nextWrite().completeExceptionally(cause);
        assertTrue(sixtyFifthReturned.await(30, TimeUnit.SECONDS), "a completed send did not free its place");
        assertSame(cause, failed.poll(30, TimeUnit.SECONDS), "fail gets the write's exception itself");
        for (int i = 1; i <= RingWebSocket.MAX_PENDING_ASYNC; i++) {
            socket.nextWrite().complete(null);
        }
        sender.join();
        assertEquals(RingWebSocket.MAX_PENDING_ASYNC, succeeded.get());
        assertEquals("one too many", socket.written.getLast());
    }

    @Test
    void refusesWhatIsNotAMessageAndWritesNothing() {
        HeldWrites socket = new HeldWrites(listener());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> socket.send(42L));
        assertTrue(e.getMessage().contains("java.lang.Long"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> socket.sendAsync(List.of("a"), null, null));
        assertThrows(IllegalArgumentException.class, () -> socket.ping("text is not ping data"));
        assertTrue(socket.written.isEmpty());
    }

    @Test
    void aPingWithoutDataSendsAnEmptyOne() throws Exception {
        HeldWrites socket = new HeldWrites(listener());
        Thread pinging = Thread.ofVirtual().start(() -> {
            try {
                socket.ping(null);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        socket.nextWrite().complete(null);
        pinging.join();
        assertEquals(0, ((ByteBuffer) socket.written.getFirst()).remaining());
    }

    @Test
    void deliversEachEventToItsFunctionWithTheSocket() {
        List<String> calls = new CopyOnWriteArrayList<>();
        Object[] seenSocket = new Object[1];
        HeldWrites socket = new HeldWrites(listener(
                k("on-open"),
                        new AFn() {
                            @Override
                            public Object invoke(Object s) {
                                seenSocket[0] = s;
                                return calls.add("open");
                            }
                        },
                k("on-message"),
                        new AFn() {
                            @Override
                            public Object invoke(Object s, Object m) {
                                return calls.add("message "
                                        + (m instanceof ByteBuffer b ? StandardCharsets.UTF_8.decode(b) : m));
                            }
                        },
                k("on-close"),
                        new AFn() {
                            @Override
                            public Object invoke(Object s, Object code, Object reason) {
                                return calls.add(
                                        "close " + code + " (" + code.getClass().getSimpleName() + ") " + reason);
                            }
                        }));
        socket.deliverOpen();
        socket.deliverMessage("text");
        socket.deliverMessage(ByteBuffer.wrap("bytes".getBytes(StandardCharsets.UTF_8)));
        socket.deliverPong(ByteBuffer.allocate(0)); // no :on-pong: nothing happens
        socket.deliverClose(1000, "bye");
        assertSame(socket, seenSocket[0]);
        assertEquals(List.of("open", "message text", "message bytes", "close 1000 (Long) bye"), calls);
        assertTrue(socket.closes.isEmpty());
    }

    @Test
    void aListenerThatThrowsClosesTheSocketWith1011ButNotFromItsOwnClose() {
        IFn boom = new AFn() {
            @Override
            public Object invoke(Object s, Object m) {
                throw new IllegalStateException("the listener failed");
            }

            @Override
            public Object invoke(Object s, Object code, Object reason) {
                throw new IllegalStateException("on-close failed");
            }
        };
        HeldWrites socket = new HeldWrites(listener(k("on-message"), boom, k("on-close"), boom));
        socket.deliverMessage("m");
        assertEquals(List.of("1011 server error"), socket.closes);
        socket.deliverClose(1011, "server error"); // logged, not thrown, and no second close
        assertEquals(List.of("1011 server error"), socket.closes);
    }

    @Test
    void aListenerMustBeAMapWhenRingCoresProtocolCannotCallIt() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> new HeldWrites("not a listener"));
        assertTrue(e.getMessage().contains("java.lang.String"), e.getMessage());
        assertThrows(NullPointerException.class, () -> new HeldWrites(null));
    }
}
