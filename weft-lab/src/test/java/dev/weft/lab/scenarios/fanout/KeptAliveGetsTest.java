package dev.weft.lab.scenarios.fanout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The fanout scenario's client against the JDK's HTTP server, the server WaitServer runs on. */
class KeptAliveGetsTest {

    private HttpServer server;
    private final Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();
    private final AtomicInteger held = new AtomicInteger();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/text", exchange -> answer(exchange, 200, "1 2 3"));
        server.createContext("/missing", exchange -> answer(exchange, 404, "no such thing"));
        server.createContext("/hold", exchange -> {
            held.incrementAndGet();
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            answer(exchange, 200, "ok");
        });
        server.createContext("/chunked", exchange -> {
            exchange.sendResponseHeaders(200, 0); // 0: chunked, which the client does not read
            try (OutputStream out = exchange.getResponseBody()) {
                out.write("ok".getBytes(StandardCharsets.ISO_8859_1));
            }
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void answer(HttpExchange exchange, int status, String body) throws IOException {
        clientPorts.add(exchange.getRemoteAddress().getPort());
        byte[] bytes = body.getBytes(StandardCharsets.ISO_8859_1);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private int port() {
        return server.getAddress().getPort();
    }

    @Test
    void callsOneAfterAnotherReuseOneConnection() throws IOException {
        try (KeptAliveGets client = new KeptAliveGets(port())) {
            for (int i = 0; i < 5; i++) {
                assertEquals(200, client.get("/hold"));
            }
            assertEquals("1 2 3", client.getText("/text"));
            assertEquals(1, client.opened());
            assertEquals(1, clientPorts.size(), "every call came on the same connection");
        }
    }

    @Test
    void callsAtOnceOpenAConnectionEachAndLaterCallsReuseThem() throws Exception {
        int n = 20;
        try (KeptAliveGets client = new KeptAliveGets(port())) {
            for (int round = 0; round < 2; round++) {
                List<Thread> threads = new ArrayList<>();
                List<Integer> statuses = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    threads.add(Thread.startVirtualThread(() -> {
                        try {
                            int status = client.get("/hold");
                            synchronized (statuses) {
                                statuses.add(status);
                            }
                        } catch (IOException e) {
                            throw new RuntimeException(e);
                        }
                    }));
                }
                for (Thread t : threads) {
                    t.join();
                }
                assertEquals(n, statuses.stream().filter(s -> s == 200).count(), "round " + round);
            }
            // the second round's calls found the first round's connections idle in the pool
            assertTrue(client.opened() <= n, "opened " + client.opened() + " for " + n + " calls at once");
            assertEquals(client.opened(), clientPorts.size());
            assertEquals(2 * n, held.get());
        }
    }

    @Test
    void aStatusOtherThan200IsReturnedByGetAndAnErrorForGetText() throws IOException {
        try (KeptAliveGets client = new KeptAliveGets(port())) {
            assertEquals(404, client.get("/missing"));
            IOException e = assertThrows(IOException.class, () -> client.getText("/missing"));
            assertTrue(e.getMessage().contains("404"), e.getMessage());
            assertEquals(1, client.opened(), "an answer read to its end keeps its connection");
        }
    }

    @Test
    void anAnswerWithoutContentLengthFailsAndItsConnectionIsNotReused() throws IOException {
        try (KeptAliveGets client = new KeptAliveGets(port())) {
            IOException e = assertThrows(IOException.class, () -> client.get("/chunked"));
            assertTrue(e.getMessage().contains("Content-Length"), e.getMessage());
            assertEquals(200, client.get("/text"));
            assertEquals(2, client.opened(), "the failed connection was closed, so the next call opened one");
        }
    }

    @Test
    void aClosedClientRefusesCalls() throws IOException {
        KeptAliveGets client = new KeptAliveGets(port());
        assertEquals(200, client.get("/text"));
        client.close();
        client.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> client.get("/text"));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }

    @Test
    void aPortOutOfRangeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new KeptAliveGets(0));
        assertThrows(IllegalArgumentException.class, () -> new KeptAliveGets(65_536));
    }

    @Test
    void readsAHeadAndItsBodyAndRefusesWhatItCannotDelimit() throws IOException {
        assertEquals(
                204,
                KeptAliveGets.readAnswer(stream("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n"), false)
                        .status());
        KeptAliveGets.Answer answer =
                KeptAliveGets.readAnswer(stream("HTTP/1.1 200 OK\r\ncontent-length:  5\r\nX: y\r\n\r\n1 2 3"), true);
        assertEquals("1 2 3", new String(answer.body(), StandardCharsets.ISO_8859_1));
        assertThrows(
                EOFException.class,
                () -> KeptAliveGets.readAnswer(stream("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort"), false));
        IOException notHttp = assertThrows(
                IOException.class, () -> KeptAliveGets.readAnswer(stream("SSH-2.0-OpenSSH\r\n\r\n"), false));
        assertTrue(notHttp.getMessage().contains("status line"), notHttp.getMessage());
        IOException cut = assertThrows(
                IOException.class, () -> KeptAliveGets.readAnswer(stream("HTTP/1.1 200 OK\r\nContent-Le"), false));
        assertTrue(cut.getMessage().contains("ended before"), cut.getMessage());
    }

    private static ByteArrayInputStream stream(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.ISO_8859_1));
    }
}
