package dev.weft.lab.scenarios.fanout;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.weft.lab.ChildJvm;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The endpoint of the {@code fanout} scenario: an HTTP server on 127.0.0.1 that waits before it
 * answers, and counts the requests it holds at once. It runs in a JVM of its own (the lab starts
 * it with {@code ScenarioContext.startJvm} and ends it by PID), so its threads never count in the
 * client's figures.
 *
 * <p>{@code GET /wait?ms=1000} waits that long on a virtual thread of its own, then answers 200.
 * {@code GET /stats} answers {@code <max in flight> <requests served> <connections> <new connections>}
 * since the last {@code GET /stats?reset}, which also starts a new count: the connections are those
 * the served requests came on, told apart by the client's port, and the new ones those that served
 * no request in the count before (so a client that reuses its connections shows none). The listen backlog is 16,384 (the
 * kernel caps it at {@code net.core.somaxconn}), so that 10,000 connections opened at once are
 * not refused.
 *
 * <p>Usage: {@code WaitServer <max-seconds>}, as a {@link ChildJvm}: says {@code listening <port>}
 * once it accepts connections, and exits at the end of its input or after {@code max-seconds},
 * whichever comes first, so a lab that dies cannot leave it behind.
 */
public final class WaitServer {

    static final int BACKLOG = 16_384;

    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    private final AtomicLong served = new AtomicLong();
    private volatile Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();
    private volatile Set<Integer> earlierPorts = Set.of();

    private WaitServer() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: WaitServer <max-seconds>");
            System.exit(2);
        }
        long maxSeconds = Long.parseLong(args[0]);
        WaitServer state = new WaitServer();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), BACKLOG);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/wait", state::waitThenAnswer);
        server.createContext("/stats", state::stats);
        server.start();

        System.out.println(
                "listening on 127.0.0.1:" + server.getAddress().getPort() + " for at most " + maxSeconds + " s");
        Thread.ofPlatform().daemon(true).name("wait-server-lifetime").start(() -> {
            try {
                Thread.sleep(maxSeconds * 1000);
            } catch (InterruptedException e) {
                return;
            }
            System.out.println("max lifetime reached; exiting");
            System.exit(0);
        });
        ChildJvm.tell("listening", Integer.toString(server.getAddress().getPort()));
        for (String ignored : ChildJvm.commands()) {
            // no commands: the input only ends
        }
        System.exit(0);
    }

    private void waitThenAnswer(HttpExchange exchange) throws IOException {
        int now = inFlight.incrementAndGet();
        maxInFlight.accumulateAndGet(now, Math::max);
        try {
            Thread.sleep(waitMillis(exchange.getRequestURI().getRawQuery()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            inFlight.decrementAndGet();
        }
        served.incrementAndGet();
        clientPorts.add(exchange.getRemoteAddress().getPort());
        answer(exchange, 200, "ok");
    }

    private void stats(HttpExchange exchange) throws IOException {
        Set<Integer> ports = clientPorts;
        long fresh = ports.stream().filter(port -> !earlierPorts.contains(port)).count();
        String body = maxInFlight.get() + " " + served.get() + " " + ports.size() + " " + fresh;
        if ("reset".equals(exchange.getRequestURI().getRawQuery())) {
            maxInFlight.set(inFlight.get());
            served.set(0);
            earlierPorts = ports;
            clientPorts = ConcurrentHashMap.newKeySet();
        }
        answer(exchange, 200, body);
    }

    /** The {@code ms} query parameter, default 1000; bounded to 60 s so that a typo cannot hold a connection for ever. */
    static long waitMillis(String query) {
        if (query != null) {
            for (String pair : query.split("&")) {
                if (pair.startsWith("ms=")) {
                    try {
                        return Math.min(60_000, Math.max(0, Long.parseLong(pair.substring(3))));
                    } catch (NumberFormatException e) {
                        return 1000;
                    }
                }
            }
        }
        return 1000;
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
