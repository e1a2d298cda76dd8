package dev.weft.lab.scenarios.http;

import clojure.java.api.Clojure;
import dev.weft.lab.ChildJvm;
import dev.weft.lab.Memory;
import dev.weft.lab.MemoryMeter;
import dev.weft.lab.report.Json;
import dev.weft.scheduler.SchedulerSampler;
import java.time.Duration;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Server;

/**
 * A server JVM of the {@code http} scenario, a {@link ChildJvm}: {@code HttpServerMain <kind>}, kind
 * {@code jetty-50-threads}, {@code jetty-4-threads}, {@code jetty-virtual}, {@code helidon-virtual}
 * ({@link PlainHelidon}), {@code netty-virtual} ({@link PlainNetty}), {@code weft-ring-helidon}
 * (the lab's Ring handler on Helidon, {@link RingOnHelidon}) or {@code weft-ring}. It listens on a free port of
 * 127.0.0.1, says {@code listening <port>}, and samples its scheduler. {@code weft-ring}
 * starts two servers: its defaults (HTTP/1.1, and WebSockets on {@code /ws}) and one with HTTP/2 on
 * (h2c), and says both ports, {@code listening <port> <h2c-port>}; {@code jetty-virtual} starts a
 * second plain Jetty serving Jetty's own WebSocket echo on {@code /ws} and says
 * {@code listening <port> 0 <ws-port>}, {@code helidon-virtual} a second Helidon with its own echo, and
 * {@code weft-ring-helidon} a second Helidon serving the Ring handler's WebSocket listener ({@link RingWebSocketOnHelidon}). Commands, one per line: {@code report}
 * answers {@code report <json>}, what the scheduler did since the last report (or the start), and
 * starts a new sample; {@code reset} only starts a new one, and marks the start of a variant's
 * memory window; {@code memory} answers {@code memory <json>}, the JVM's {@link Memory} since that
 * mark (collector pauses, heap peak, allocated bytes); {@code alloc <from-ms> <to-ms>} answers
 * {@code alloc {"bytes": n}}, the bytes the JVM allocated between two wall-clock times (a load
 * window's bounds, read from an {@link AllocationTimeline}; -1 when not covered). It exits at the end
 * of its input; the lab also ends it by PID.
 */
public final class HttpServerMain {

    private HttpServerMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            throw new IllegalArgumentException(
                    "usage: HttpServerMain <jetty-50-threads|jetty-4-threads|jetty-virtual|helidon-virtual|netty-virtual|weft-ring-helidon|weft-ring>");
        }
        String port = switch (args[0]) {
            case "jetty-50-threads" -> port(PlainJetty.start(50));
            case "jetty-4-threads" -> port(PlainJetty.start(HttpScenario.SMALL_POOL_THREADS));
            // Its WebSocket echo (jetty-virtual-ws) on a server of its own: "<port> 0 <ws-port>".
            case "jetty-virtual" -> port(PlainJetty.start(0)) + " 0 " + port(PlainJetty.startWebSocket());
            // Its WebSocket echo (helidon-virtual-ws) on a server of its own, as plain Jetty's.
            case "helidon-virtual" ->
                PlainHelidon.start().port() + " 0 "
                        + PlainHelidon.startWebSocket().port();
            case "netty-virtual" -> Integer.toString(PlainNetty.start().port());
            case "weft-ring-helidon" -> {
                Clojure.var("clojure.core", "require").invoke(Clojure.read("weft.lab.http"));
                var handler = (clojure.lang.IDeref) Clojure.var("weft.lab.http", "handler");
                var ring = (clojure.lang.IFn) handler.deref();
                // Its WebSocket side (weft-ring-helidon-ws) on a server of its own, as Helidon's echo.
                yield RingOnHelidon.start(ring).port() + " 0 "
                        + RingOnHelidon.startWebSocket(ring).port();
            }
            case "weft-ring" -> {
                Clojure.var("clojure.core", "require").invoke(Clojure.read("weft.lab.http"));
                yield Clojure.var("weft.lab.http", "start!").invoke() + " "
                        + Clojure.var("weft.lab.http", "start-h2c!").invoke();
            }
            default ->
                throw new IllegalArgumentException("unknown server kind " + args[0]
                        + "; expected jetty-50-threads, jetty-4-threads, jetty-virtual, helidon-virtual, netty-virtual,"
                        + " weft-ring-helidon or weft-ring");
        };
        System.out.println(args[0] + " listening on 127.0.0.1:" + port);

        SchedulerSampler sampler = SchedulerSampler.start(Duration.ofMillis(50));
        AllocationTimeline allocations = AllocationTimeline.start();
        MemoryMeter.Mark memory = MemoryMeter.mark();
        ChildJvm.tell(LISTENING, port);
        for (String line : ChildJvm.commands()) {
            String[] f = line.strip().split(" ", 2);
            switch (f[0]) {
                case "reset" -> {
                    sampler.stop();
                    sampler = SchedulerSampler.start(Duration.ofMillis(50));
                    memory = MemoryMeter.mark();
                }
                case "report" -> {
                    ChildJvm.tell("report", Json.line(sampler.stop().toMap()));
                    sampler = SchedulerSampler.start(Duration.ofMillis(50));
                }
                case "memory" -> ChildJvm.tell("memory", Json.line(memory.since(args[0])));
                case "alloc" -> {
                    String[] a = f[1].split(" ");
                    long bytes = -1;
                    // The window may have closed less than one reading ago: wait for the next one.
                    for (int i = 0; allocations != null && bytes < 0 && i < 10; i++) {
                        bytes = allocations.bytesBetween(Long.parseLong(a[0]), Long.parseLong(a[1]));
                        if (bytes < 0) {
                            Thread.sleep(2L * AllocationTimeline.PERIOD_MS);
                        }
                    }
                    ChildJvm.tell("alloc", Json.line(java.util.Map.of("bytes", bytes)));
                }
                default -> System.err.println("unknown command: " + line);
            }
        }
        System.exit(0);
    }

    /** The message a server sends once it accepts connections: its port (weft-ring: two). */
    static final String LISTENING = "listening";

    private static String port(Server server) {
        return Integer.toString(((NetworkConnector) server.getConnectors()[0]).getLocalPort());
    }
}
