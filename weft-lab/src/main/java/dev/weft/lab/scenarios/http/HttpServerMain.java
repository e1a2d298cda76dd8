package dev.weft.lab.scenarios.http;

import clojure.java.api.Clojure;
import dev.weft.lab.Memory;
import dev.weft.lab.MemoryMeter;
import dev.weft.lab.report.Json;
import dev.weft.scheduler.SchedulerSampler;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Server;

/**
 * A server JVM of the {@code http} scenario: {@code HttpServerMain <kind> <port-file>}, kind
 * {@code jetty-50-threads}, {@code jetty-4-threads}, {@code jetty-virtual} or {@code weft-ring}. It listens on a free port of
 * 127.0.0.1, writes the port to the port file (atomically), and samples its scheduler. {@code weft-ring}
 * starts two servers: its defaults (HTTP/1.1, and WebSockets on {@code /ws}) and one with HTTP/2 on
 * (h2c), and writes both ports, {@code <port> <h2c-port>}. Each line
 * {@code report <file>} on standard input writes what the scheduler did since the last report (or
 * the start) to that file and starts a new sample; {@code reset} only starts a new one, and marks
 * the start of a variant's memory window; {@code memory <file>} writes the JVM's {@link Memory} since
 * that mark (collector pauses, heap peak, allocated bytes); {@code alloc <file> <from-ms> <to-ms>}
 * writes {@code {"bytes": n}}, the bytes the JVM allocated between two wall-clock times (a load
 * window's bounds, read from an {@link AllocationTimeline}; -1 when not covered). It exits at the end
 * of its input; the lab also ends it by PID.
 */
public final class HttpServerMain {

    private HttpServerMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: HttpServerMain <jetty-50-threads|jetty-4-threads|jetty-virtual|weft-ring> <port-file>");
        }
        String port = switch (args[0]) {
            case "jetty-50-threads" -> port(PlainJetty.start(50));
            case "jetty-4-threads" -> port(PlainJetty.start(HttpScenario.SMALL_POOL_THREADS));
            case "jetty-virtual" -> port(PlainJetty.start(0));
            case "weft-ring" -> {
                Clojure.var("clojure.core", "require").invoke(Clojure.read("weft.lab.http"));
                yield Clojure.var("weft.lab.http", "start!").invoke() + " "
                        + Clojure.var("weft.lab.http", "start-h2c!").invoke();
            }
            default -> throw new IllegalArgumentException("unknown server kind " + args[0]
                    + "; expected jetty-50-threads, jetty-4-threads, jetty-virtual or weft-ring");
        };
        Path portFile = Path.of(args[1]);
        Path tmp = portFile.resolveSibling(portFile.getFileName() + ".tmp");
        Files.writeString(tmp, port);
        Files.move(tmp, portFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        System.out.println(args[0] + " listening on 127.0.0.1:" + port);

        SchedulerSampler sampler = SchedulerSampler.start(Duration.ofMillis(50));
        AllocationTimeline allocations = AllocationTimeline.start();
        MemoryMeter.Mark memory = MemoryMeter.mark();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.strip().split(" ", 2);
            switch (f[0]) {
                case "reset" -> {
                    sampler.stop();
                    sampler = SchedulerSampler.start(Duration.ofMillis(50));
                    memory = MemoryMeter.mark();
                }
                case "report" -> {
                    write(Path.of(f[1]), sampler.stop().toMap());
                    sampler = SchedulerSampler.start(Duration.ofMillis(50));
                }
                case "memory" -> write(Path.of(f[1]), memory.since(args[0]));
                case "alloc" -> {
                    String[] a = f[1].split(" ");
                    long bytes = -1;
                    // The window may have closed less than one reading ago: wait for the next one.
                    for (int i = 0; allocations != null && bytes < 0 && i < 10; i++) {
                        bytes = allocations.bytesBetween(Long.parseLong(a[1]), Long.parseLong(a[2]));
                        if (bytes < 0) {
                            Thread.sleep(2L * AllocationTimeline.PERIOD_MS);
                        }
                    }
                    write(Path.of(a[0]), java.util.Map.of("bytes", bytes));
                }
                default -> System.err.println("unknown command: " + line);
            }
        }
        System.exit(0);
    }

    /** Writes {@code value} as JSON to {@code file} atomically: the scenario waits for the file to appear. */
    private static void write(Path file, Object value) throws java.io.IOException {
        Path part = file.resolveSibling(file.getFileName() + ".tmp");
        Json.write(part, value);
        Files.move(part, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static String port(Server server) {
        return Integer.toString(((NetworkConnector) server.getConnectors()[0]).getLocalPort());
    }
}
