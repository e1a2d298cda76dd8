package dev.weft.lab.scenarios.http;

import dev.weft.lab.ChildJvm;
import dev.weft.lab.Goal;
import dev.weft.lab.Memory;
import dev.weft.lab.Mode;
import dev.weft.lab.Rounds;
import dev.weft.lab.Scenario;
import dev.weft.lab.ScenarioContext;
import dev.weft.lab.Stats;
import dev.weft.lab.report.Json;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Article 003: Ring handlers that sleep 50 ms, served by a fixed pool of 50 threads and by virtual
 * threads, measured with wrk (or the built-in generator) at 120 and 1,000 connections, and without
 * the sleep, where the server's CPU per request sets the ceiling; then weft-ring's protocols under
 * volume: HTTP/2 (h2c, h2load, 120 streams over 4 connections) and a WebSocket echo at 1,000 sockets,
 * beside plain Jetty's own ({@code jetty-virtual-ws}).
 *
 * <p>Server JVMs (Jetty on 50 and on 4 threads in full mode, plain Jetty on virtual threads,
 * weft-ring) and one load-generator JVM are started with {@link ScenarioContext#startJvm};
 * everything listens and connects on 127.0.0.1 and every load window is bounded. weft-ring and plain
 * Jetty are measured alternately while both are up, in paired rounds of alternating slices on
 * connections kept open ({@link PairedLoad}, decision 0815), so that drift on a shared machine hits
 * both alike: at 120 connections (whose rate is {@link SpanRate}'s, free of the window's edges,
 * decision 0850), at 1,000, without the sleep and for the WebSocket echo; with the 50 ms handler,
 * each slice's connections start spread over one round trip ({@link Stagger}, decision 0860), not in
 * step. For each variant:
 * requests (or messages) per second, latency, errors, and the server JVM's CPU time per request
 * (its CPU time during the window / requests completed). Before any variant, each server is primed
 * with one warm-up window of {@code /nosleep}, so that no variant pays for its JVM's first compiles,
 * and the servers of the sleeping pair with one of {@code /hello} at 1,000 connections, so that the
 * request path's compiled code already covers a handler that parks (decision 0835).
 *
 * <p>In full mode (and smoke), issue 25's candidate cores follow, plain and without the sleep, each
 * in a server JVM of its own and in paired rounds of its own with plain Jetty:
 * {@code helidon-virtual-nosleep@120} ({@link PlainHelidon}) and {@code netty-virtual-nosleep@120}
 * ({@link PlainNetty}), the Ring handler on Helidon, {@code weft-ring-helidon-nosleep@120}
 * ({@link RingOnHelidon}), Helidon's own WebSocket echo beside plain Jetty's,
 * {@code helidon-virtual-ws}, and the lab's Ring echo listener on Helidon through weft-ring's socket
 * value, {@code weft-ring-helidon-ws} ({@link RingWebSocketOnHelidon}); references for choosing weft-ring's core, without goals ({@link #REFERENCE_CORES}).
 *
 * <p>Sizes: smoke 0.3 s windows without warm-up, every variant (always the built-in generator for
 * HTTP/1.1: wrk counts whole seconds); quick 0.5 s of warm-up and 1 s measured (wrk: whole seconds) for
 * the single windows (h2c), at least 6 paired rounds of 400 ms slices (200 ms at 120 connections;
 * without the sleep, each slice in 4 parts interleaved with the other side's, decision 0825), no
 * fixed pools (it fits 44 s on 2 cores, JVM starts included);
 * full 2 s of warm-up and 10 s measured, at least 8 paired rounds of 3 s slices, and the fixed pools
 * of 50 and 4 threads (the article's wrk run). Paired rounds always use the built-in generator.
 */
public final class HttpScenario implements Scenario {

    /** The handler's sleep, the article's simulated slow call. */
    static final int SLEEP_MS = 50;

    static final double PUBLISHED_50_THREADS = 928.14;
    static final double PUBLISHED_VIRTUAL = 2208.67;
    static final int POOL_THREADS = 50;
    /** http-kit's default handler pool, behind article 003's first, retracted 29x. */
    static final int SMALL_POOL_THREADS = 4;
    /** h2c: connections and concurrent streams on each (120 streams in all). */
    static final int H2C_CONNECTIONS = 4;

    static final int H2C_STREAMS = 30;
    /** WebSockets of the echo variant (smoke mode opens fewer). */
    static final int WS_SOCKETS = 1000;

    /**
     * http-kit 2.9.0-beta4's server CPU per request on {@code /nosleep} at 120 connections as a
     * share of plain Jetty's, median of 12 paired wrk rounds measured by hand on a 2-core machine
     * (decision 0303): http-kit lives on Clojars, which the lab cannot use, so its stretch goal is
     * judged through plain Jetty, which runs in every lab.
     */
    static final double HTTP_KIT_VS_JETTY_CPU = 0.795;

    /** Environment variable that picks the load generator: {@code auto} (the default), {@code wrk} or {@code built-in}. */
    static final String LOAD_ENV = "WEFT_LAB_HTTP_LOAD";

    /**
     * wrk when it is on the PATH (and the mode is not smoke, whose windows are shorter than wrk's
     * second), unless {@value #LOAD_ENV} says otherwise.
     *
     * @throws IllegalStateException if {@value #LOAD_ENV} asks for wrk and there is none, or has a
     *                               value other than auto, wrk or built-in
     */
    static Optional<Wrk> chooseWrk(Mode mode) {
        String choice = System.getenv().getOrDefault(LOAD_ENV, "auto").strip();
        return switch (choice) {
            case "auto", "" -> mode == Mode.SMOKE ? Optional.empty() : Wrk.find();
            case "built-in" -> Optional.empty();
            case "wrk" ->
                Optional.of(Wrk.find()
                        .orElseThrow(() -> new IllegalStateException(LOAD_ENV
                                + "=wrk but wrk is not on the PATH; install it (Debian/Ubuntu: apt install wrk) or unset "
                                + LOAD_ENV)));
            default -> throw new IllegalStateException(LOAD_ENV + " must be auto, wrk or built-in; got " + choice);
        };
    }

    /** The server JVMs. */
    enum Server {
        JETTY_50("jetty-50-threads"),
        JETTY_4("jetty-4-threads"),
        JETTY_VIRTUAL("jetty-virtual"),
        WEFT_RING("weft-ring"),
        /** Issue 25's candidate cores, plain ({@link PlainHelidon}, {@link PlainNetty}). */
        HELIDON_VIRTUAL("helidon-virtual"),
        NETTY_VIRTUAL("netty-virtual"),
        /** The lab's Ring handler on Helidon, issue 25's prototype ({@link RingOnHelidon}). */
        WEFT_RING_HELIDON("weft-ring-helidon");

        final String kind;

        Server(String kind) {
            this.kind = kind;
        }
    }

    /** How a variant is loaded. */
    enum Load {
        /** HTTP/1.1 keep-alive connections: wrk, or the built-in generator. */
        HTTP1,
        /** h2c streams from h2load, on weft-ring's HTTP/2 server. */
        H2C,
        /** WebSocket echo messages from the built-in client. */
        WS
    }

    /**
     * One variant: its name (fixed by the issue), server, connections (streams, sockets), whether
     * the handler sleeps, the published figure, how it is loaded, and whether only full mode runs it.
     */
    record Spec(
            String name,
            Server server,
            int connections,
            boolean sleeps,
            Double published,
            Load load,
            boolean fullOnly) {
        String path() {
            return load == Load.WS ? "/ws" : sleeps ? "/hello" : "/nosleep";
        }

        /** Measured in paired rounds with its counterpart ({@link #PAIRS}). */
        boolean paired() {
            return PAIRS.stream().anyMatch(p -> p.contains(name));
        }
    }

    /** The no-sleep goals' targets: weft-ring's req/s over plain Jetty's, and its server CPU per request over Jetty's. */
    static final double NOSLEEP_RATE_TARGET = 0.90;

    static final double NOSLEEP_CPU_TARGET = 1.15;

    static final String RING_NOSLEEP = "weft-ring-nosleep@120";
    static final String JETTY_NOSLEEP = "jetty-virtual-nosleep@120";

    /** The WebSocket goal's target: weft-ring's server CPU per echoed message over plain Jetty's (issue 25). */
    static final double WS_CPU_TARGET = 0.67;

    static final String RING_WS = "weft-ring-ws";

    /** weft-ring@120's req/s over plain Jetty's, at least. */
    static final double RING_120_RATE_TARGET = 0.97;

    /** weft-ring@120's req/s over its limit (Little's law: 120 connections / 50 ms), at least. */
    static final double RING_120_LIMIT_TARGET = 0.97;

    /** weft-ring@1000's req/s over plain Jetty's, at least. */
    static final double RING_1000_RATE_TARGET = 0.95;

    /** weft-ring's p99 over plain Jetty's, at most: no worse (issue 25). */
    static final double P99_TARGET = 1.0;

    static final String JETTY_WS = "jetty-virtual-ws";

    static final String HELIDON_NOSLEEP = "helidon-virtual-nosleep@120";
    static final String NETTY_NOSLEEP = "netty-virtual-nosleep@120";
    static final String RING_HELIDON_NOSLEEP = "weft-ring-helidon-nosleep@120";
    static final String HELIDON_WS = "helidon-virtual-ws";
    static final String RING_HELIDON_WS = "weft-ring-helidon-ws";

    /**
     * Issue 25's candidate cores, plain, serving the same handler without the sleep (decision 0305),
     * the Ring handler on Helidon through {@link RingOnHelidon}, Helidon's own WebSocket echo
     * beside plain Jetty's ({@code helidon-virtual-ws}), and the Ring echo listener on Helidon through
     * weft-ring's own socket value ({@code weft-ring-helidon-ws}, {@link RingWebSocketOnHelidon};
     * decision 0880):
     * full mode only (and smoke, which runs every variant), each in paired rounds of its own with
     * plain Jetty's no-sleep variant. They have no goals: they are references for choosing weft-ring's
     * core, and each reports its paired ratios to Jetty in {@code extra.vs_jetty}
     * ({@link Measured#versus}). Plain Jetty's own figures stay those of its pair with weft-ring.
     */
    static final List<String> REFERENCE_CORES =
            List.of(HELIDON_NOSLEEP, NETTY_NOSLEEP, RING_HELIDON_NOSLEEP, HELIDON_WS, RING_HELIDON_WS);

    static final String RING_120 = "weft-ring@120";
    static final String JETTY_120 = "jetty-virtual@120";

    /**
     * The variants measured in paired rounds of alternating slices (decision 0815), weft-ring's
     * first: at 120 connections (decision 0850), at 1,000, without the sleep, and the WebSocket echo.
     */
    static final List<List<String>> PAIRS = List.of(
            List.of(RING_120, JETTY_120),
            List.of("weft-ring@1000", "jetty-virtual@1000"),
            List.of("weft-ring-nosleep@120", "jetty-virtual-nosleep@120"),
            List.of("weft-ring-ws", "jetty-virtual-ws"),
            List.of(HELIDON_NOSLEEP, JETTY_NOSLEEP),
            List.of(NETTY_NOSLEEP, JETTY_NOSLEEP),
            List.of(RING_HELIDON_NOSLEEP, JETTY_NOSLEEP),
            List.of(HELIDON_WS, JETTY_WS),
            List.of(RING_HELIDON_WS, JETTY_WS));

    /**
     * Quick mode's slice for the @120 pair: four of the handler's ~50.5 ms round trips, in which
     * each connection completes three requests (~360 a side; the first comes a round trip after
     * the slice opens), two whole cycles that {@link SpanRate} turns into an exact rate (decision
     * 0850); the other pairs keep 400 ms.
     */
    static final long IN_STEP_SLICE_MS = 200;

    /** Quick mode's warm-up of the @120 pair, a side: three round trips (the servers were primed on /hello). */
    static final long IN_STEP_WARMUP_MS = 150;

    /**
     * Whether the pair starting with {@code a} is the @120 one, whose 120 connections completed in
     * step (a burst every round trip of the 50 ms handler) until decision 0860 spread their starts:
     * its rate is {@link SpanRate}'s, free of the window's edges and exact whether the connections
     * run in step or spread (decision 0850). The @1000 and no-sleep pairs keep completions / seconds,
     * and report both figures per round ({@code requests_per_second_span_rounds}).
     */
    static boolean inStep(Spec a) {
        return a.name().equals(RING_120);
    }

    /** In the order they are reported (and measured, the no-sleep pair in rounds). */
    static final List<Spec> SPECS = List.of(
            new Spec("jetty-50-threads@120", Server.JETTY_50, 120, true, PUBLISHED_50_THREADS, Load.HTTP1, true),
            new Spec("jetty-4-threads@120", Server.JETTY_4, 120, true, null, Load.HTTP1, true),
            new Spec(RING_120, Server.WEFT_RING, 120, true, PUBLISHED_VIRTUAL, Load.HTTP1, false),
            new Spec(JETTY_120, Server.JETTY_VIRTUAL, 120, true, PUBLISHED_VIRTUAL, Load.HTTP1, false),
            new Spec("weft-ring@1000", Server.WEFT_RING, 1000, true, null, Load.HTTP1, false),
            new Spec("jetty-virtual@1000", Server.JETTY_VIRTUAL, 1000, true, null, Load.HTTP1, false),
            new Spec(RING_NOSLEEP, Server.WEFT_RING, 120, false, null, Load.HTTP1, false),
            new Spec(JETTY_NOSLEEP, Server.JETTY_VIRTUAL, 120, false, null, Load.HTTP1, false),
            new Spec("weft-ring-h2c@120", Server.WEFT_RING, H2C_CONNECTIONS * H2C_STREAMS, true, null, Load.H2C, false),
            new Spec(RING_WS, Server.WEFT_RING, WS_SOCKETS, false, null, Load.WS, false),
            new Spec(JETTY_WS, Server.JETTY_VIRTUAL, WS_SOCKETS, false, null, Load.WS, false),
            // Last, so that the goals' pairs before them run as they always did.
            new Spec(HELIDON_NOSLEEP, Server.HELIDON_VIRTUAL, 120, false, null, Load.HTTP1, true),
            new Spec(NETTY_NOSLEEP, Server.NETTY_VIRTUAL, 120, false, null, Load.HTTP1, true),
            new Spec(RING_HELIDON_NOSLEEP, Server.WEFT_RING_HELIDON, 120, false, null, Load.HTTP1, true),
            new Spec(HELIDON_WS, Server.HELIDON_VIRTUAL, WS_SOCKETS, false, null, Load.WS, true),
            new Spec(RING_HELIDON_WS, Server.WEFT_RING_HELIDON, WS_SOCKETS, false, null, Load.WS, true));

    /**
     * A pair's server is still compiling while its JIT threads used more than this share of a
     * round's wall time in it (decision 0877): 10%, 115 ms of the @1000 pair's 1.15 s round. Idle
     * runs of that pair showed 260-560 ms per round in its first rounds, 55-170 ms in the next
     * two, and 0-60 ms once its rates had settled.
     */
    static final double JIT_QUIET_SHARE = 0.10;

    /**
     * The most unmeasured rounds the pair starting with {@code a} runs while a server still
     * compiles (decision 0877). None for the @120 pair: its goals read rates and latencies that
     * the 50 ms handler sets, not CPU, and at 2,400 requests/s its servers compile for many
     * seconds (rounds of 0.5 s, JIT 100-200 ms in each, rates within 0.4% of each other). None for
     * the WebSocket pair in quick mode: its servers still compiled 250-415 ms a round after four
     * such rounds, which the budget cannot give, and its goal was decided NOT met either way. Up
     * to 5 for the others: in whole quick labs weft-ring@1000 still compiled 260-414 ms in the
     * first measured round after 3.
     * Smoke runs none.
     */
    static int warmRounds(Mode mode, Spec a) {
        if (mode == Mode.SMOKE || inStep(a)) {
            return 0;
        }
        if (mode == Mode.FULL) {
            return 10;
        }
        return a.load() == Load.WS ? 0 : 5;
    }

    /** Hang guard for a helper JVM's answer: a start, or one load window plus this. */
    static final long HANG_GUARD_MS = 60_000;
    /** How many void rounds a pair runs past its loop's end while it has no figure yet. */
    static final int VOID_RETRIES = 3;

    /**
     * The variants this mode runs: quick mode leaves out the fixed pools (to fit its budget); full
     * mode runs all, and so does smoke mode, which proves that each one runs.
     */
    static List<Spec> specs(Mode mode) {
        return SPECS.stream().filter(s -> mode != Mode.QUICK || !s.fullOnly()).toList();
    }

    @Override
    public void run(ScenarioContext ctx) throws Exception {
        long warmupMs = ctx.size(0, 500, 2_000);
        // Quick mode's single windows (h2c; the fixed pools in full mode) measure 1 s, and the
        // time saved pays for the paired slices below.
        long durationMs = ctx.size(300, 1_000, 10_000);
        // Paired rounds of alternating slices on connections kept open (decision 0815): at least
        // 6 rounds (the fewest whose interval reaches 95%), slices of 400 ms in quick mode (40,000
        // requests without the sleep, 8,000 at 1,000 connections), more while a goal is inconclusive.
        int rounds = ctx.size(1, 6, 8);
        long roundMs = ctx.size(300, 400, 3_000);
        int cores = Runtime.getRuntime().availableProcessors();
        List<Spec> specs = specs(ctx.mode());
        Optional<Wrk> wrk = chooseWrk(ctx.mode());
        Optional<H2load> h2load = H2load.find();
        ctx.limitNote(String.format(
                Locale.ROOT,
                "Little's law, throughput <= concurrency / %d ms: %d threads -> %,.0f req/s,"
                        + " 120 connections (or h2c streams) -> %,.0f, 1,000 -> %,.0f; without the sleep, and for WebSocket"
                        + " echoes, the server's CPU is the ceiling: %d cores / its CPU time per request (per message)",
                SLEEP_MS,
                POOL_THREADS,
                little(POOL_THREADS),
                little(120),
                little(1000),
                cores));
        ctx.progress(String.format(
                Locale.ROOT,
                "load: %s; h2c: %s; %d ms warm-up, %d ms measured per variant;"
                        + " paired rounds: at least %d, of %d ms slices",
                wrk.map(w -> "wrk (" + w.executable() + ")").orElse("built-in generator: " + builtInReason(ctx.mode())),
                h2load.map(H2load::toString).orElse("h2load missing (apt-get install nghttp2-client)"),
                warmupMs,
                durationMs,
                rounds,
                roundMs));

        Map<Server, Helper> servers = new EnumMap<>(Server.class);
        Helper load = null;
        try {
            // Started together (JVM starts overlap), measured only once all are up and idle.
            for (Spec spec : specs) {
                if (!servers.containsKey(spec.server())) {
                    servers.put(spec.server(), Helper.server(ctx, spec.server().kind));
                }
            }
            load = Helper.load(ctx); // the WebSocket client, and HTTP/1.1 load when there is no wrk
            for (Helper server : servers.values()) {
                server.awaitPort();
            }
            Runner runner = new Runner(ctx, wrk, h2load, load, warmupMs, durationMs);
            if (warmupMs > 0) {
                // Each server JVM is cold after its start (weft-ring's more: Clojure and the Ring
                // mapping to compile): without this, the first variant of each pays for its JIT.
                ctx.progress(
                        "priming every server: " + warmupMs + " ms of /nosleep at 120 connections each, not measured");
                for (Map.Entry<Server, Helper> e : servers.entrySet()) {
                    runner.http1(
                            new Spec("prime-" + e.getKey().kind, e.getKey(), 120, false, null, Load.HTTP1, false),
                            e.getValue(),
                            0,
                            warmupMs);
                }
                // Then the sleeping path, at 1,000 connections, on the servers of the sleeping pair
                // (decision 0835): C2 code compiled from /nosleep alone never saw the handler park,
                // so the first sleeping requests trapped out of it and the request path was compiled
                // again only during the @1000 pair's first round, which made that round cold.
                for (Map.Entry<Server, Helper> e : servers.entrySet()) {
                    Optional<Spec> sleeping = specs.stream()
                            .filter(s -> s.paired() && s.sleeps() && s.server() == e.getKey())
                            .max(java.util.Comparator.comparingInt(Spec::connections)); // @1000
                    if (sleeping.isPresent()) {
                        ctx.progress("priming " + e.getKey().kind + ": " + warmupMs + " ms of "
                                + sleeping.get().path() + " at "
                                + sleeping.get().connections()
                                + " connections, not measured");
                        runner.http1(
                                new Spec(
                                        "prime-sleep-" + e.getKey().kind,
                                        e.getKey(),
                                        sleeping.get().connections(),
                                        true,
                                        null,
                                        Load.HTTP1,
                                        false),
                                e.getValue(),
                                0,
                                warmupMs);
                    }
                }
            }
            Map<String, Measured> measured = new LinkedHashMap<>();
            for (Spec spec : specs) {
                if (measured.containsKey(spec.name())) {
                    continue; // the no-sleep pair: measured together
                }
                if (spec.paired()) {
                    List<String> pair = PAIRS.stream()
                            .filter(p -> p.contains(spec.name()))
                            .findFirst()
                            .orElseThrow();
                    Spec ring = spec(pair.get(0));
                    Spec jetty = spec(pair.get(1));
                    Map<String, Measured> sides = runner.slicedRounds(
                            ring,
                            servers.get(ring.server()),
                            jetty,
                            servers.get(jetty.server()),
                            rounds,
                            roundMs,
                            watches(ring));
                    if (REFERENCE_CORES.contains(ring.name())) {
                        // Jetty's side of this pair only serves the candidate's ratios.
                        measured.put(ring.name(), sides.get(ring.name()).versus(jetty, sides.get(jetty.name())));
                    } else {
                        measured.putAll(sides);
                    }
                    continue;
                }
                if (spec.load() == Load.H2C && h2load.isEmpty()) {
                    continue;
                }
                Helper server = servers.get(spec.server());
                server.command("reset");
                Measured m = runner.window(spec, server).withMemory(server.memory());
                measured.put(spec.name(), m.withScheduler(server.report()));
                if (spec.server() == Server.JETTY_50 || spec.server() == Server.JETTY_4) {
                    servers.remove(spec.server()).stop(); // measured alone first; free its threads
                }
            }
            for (Spec spec : specs) {
                Measured m = measured.get(spec.name());
                if (m != null) {
                    report(ctx, spec, m, cores);
                }
            }
            goals(ctx, measured);
            notes(ctx, measured, wrk, h2load, cores);
        } finally {
            List<Helper> helpers = new ArrayList<>(servers.values());
            if (load != null) {
                helpers.add(load);
            }
            helpers.forEach(Helper::endInput); // each exits at the end of its input: let them exit together
            helpers.forEach(Helper::stop);
        }
    }

    /**
     * A goal a pair's extra rounds watch: its direction, target and per-round figure, the ratio
     * a / b, or a / {@code reference} when there is one (a limit, such as Little's law's).
     */
    record Watch(
            String direction, double target, java.util.function.Function<LoadResult, Double> figure, Double reference) {
        Watch(String direction, double target, java.util.function.Function<LoadResult, Double> figure) {
            this(direction, target, figure, null);
        }

        /** Its per-round figures over the rounds so far (a round unreadable on either side left out). */
        List<Double> perRound(List<LoadResult> a, List<LoadResult> b) {
            List<Double> num = a.stream().map(figure).toList();
            return reference == null
                    ? ratios(num, b.stream().map(figure).toList())
                    : ratios(num, java.util.Collections.nCopies(num.size(), reference));
        }
    }

    /** The goals judged on the pair that starts with {@code ring}, which its extra rounds watch. */
    static List<Watch> watches(Spec ring) {
        return switch (ring.name()) {
            case RING_120 ->
                List.of(
                        new Watch(Goal.AT_LEAST, RING_120_RATE_TARGET, LoadResult::requestsPerSecond),
                        new Watch(Goal.AT_LEAST, RING_120_LIMIT_TARGET, LoadResult::requestsPerSecond, little(120)),
                        new Watch(Goal.AT_MOST, P99_TARGET, LoadResult::p99Ms));
            case "weft-ring@1000" ->
                List.of(
                        new Watch(Goal.AT_LEAST, RING_1000_RATE_TARGET, LoadResult::requestsPerSecond),
                        new Watch(Goal.AT_MOST, P99_TARGET, LoadResult::p99Ms));
            case RING_NOSLEEP ->
                List.of(
                        new Watch(Goal.AT_LEAST, NOSLEEP_RATE_TARGET, LoadResult::requestsPerSecond),
                        new Watch(Goal.AT_MOST, NOSLEEP_CPU_TARGET, LoadResult::serverCpuUsPerRequest));
            case RING_WS -> List.of(new Watch(Goal.AT_MOST, WS_CPU_TARGET, LoadResult::serverCpuUsPerRequest));
            default -> List.of();
        };
    }

    static Spec spec(String name) {
        return SPECS.stream()
                .filter(s -> s.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no variant " + name));
    }

    /** Runs load windows with the tool each variant needs. */
    private record Runner(
            ScenarioContext ctx,
            Optional<Wrk> wrk,
            Optional<H2load> h2load,
            Helper load,
            long warmupMs,
            long durationMs) {

        /** One warm-up and one measured window of {@code spec}. */
        Measured window(Spec spec, Helper server) throws IOException, InterruptedException {
            ctx.progress(spec.name() + ": " + describe(spec));
            Measured m = switch (spec.load()) {
                case HTTP1 -> {
                    LoadResult r = http1(spec, server, warmupMs, durationMs);
                    Map<String, Object> extra = new LinkedHashMap<>();
                    extra.put("alloc_bytes_per_request", allocPerRequest(server, r));
                    yield new Measured(List.of(r), Map.of(), extra);
                }
                case H2C -> {
                    // Jetty's HTTP/2 code is cold until this variant (its first requests wait over a
                    // second for the compiler): at least 1.5 s of warm-up outside smoke mode.
                    long warm = ctx.mode() == Mode.SMOKE ? 0 : Math.max(warmupMs, 1_500);
                    H2load.Run run = h2load.orElseThrow()
                            .run(
                                    server.h2cPort,
                                    spec.path(),
                                    H2C_CONNECTIONS,
                                    H2C_STREAMS,
                                    warm,
                                    durationMs,
                                    server.process.pid());
                    Map<String, Object> extra = new LinkedHashMap<>();
                    extra.put("h2c_connections", H2C_CONNECTIONS);
                    extra.put("streams_per_connection", H2C_STREAMS);
                    extra.put("mean_ms", run.meanMs());
                    yield new Measured(List.of(run.load()), Map.of(), extra);
                }
                case WS -> throw new IllegalStateException(spec.name() + " is measured in paired rounds");
            };
            LoadResult r = m.load();
            ctx.progress(String.format(
                    Locale.ROOT,
                    "%s: %,.0f %s, p50 %s, p99 %s, %d errors, %d non-2xx, server CPU %s/%s",
                    spec.name(),
                    r.requestsPerSecond(),
                    unit(spec),
                    ms(r.p50Ms()),
                    ms(r.p99Ms()),
                    r.errors(),
                    r.non2xx(),
                    us(r.serverCpuUsPerRequest()),
                    spec.load() == Load.WS ? "message" : "request"));
            return m;
        }

        /**
         * A pair in paired rounds of alternating slices (decision 0815): the load JVM opens the
         * connections (or WebSockets) to both servers once and warms each up alone; each round
         * then measures a slice of {@code sliceMs} of each, the order alternating, in the parts
         * {@link #cut} gives (decision 0825), while the other's connections stay open and quiet. At least {@code rounds} rounds, up to twice as
         * many while a watched goal is inconclusive and the budget keeps what the scenario still
         * has to run after them (decision 0804). The @120 pair's rate is {@link SpanRate}'s, its
         * slices and warm-up shorter in quick mode (decision 0850).
         */
        Map<String, Measured> slicedRounds(
                Spec a, Helper serverA, Spec b, Helper serverB, int rounds, long roundSliceMs, List<Watch> watches)
                throws IOException, InterruptedException {
            boolean ws = a.load() == Load.WS;
            boolean inStep = inStep(a);
            long sliceMs = inStep && ctx.mode() == Mode.QUICK ? IN_STEP_SLICE_MS : roundSliceMs;
            // The @120 servers were primed on /hello just before: three round trips settle the
            // pair's own connections and leave the budget to the rounds.
            long pairWarmupMs = inStep && ctx.mode() == Mode.QUICK ? IN_STEP_WARMUP_MS : warmupMs;
            Cut cut = cut(a);
            long settleMs = cut.settleMs();
            ctx.progress(a.name() + " and " + b.name() + ": " + describe(a) + ", " + rounds + "+ paired rounds of "
                    + sliceMs + " ms slices, each in " + cut.parts() + " interleaved part(s) (after " + settleMs
                    + " ms to settle)");
            serverA.command("reset");
            serverB.command("reset");
            List<LoadResult> ra = new ArrayList<>();
            List<LoadResult> rb = new ArrayList<>();
            load.command(String.join(
                    " ",
                    "pair-open",
                    ws ? "ws" : "http",
                    Integer.toString(ws ? serverA.wsPort : serverA.port),
                    Long.toString(serverA.process.pid()),
                    Integer.toString(ws ? serverB.wsPort : serverB.port),
                    Long.toString(serverB.process.pid()),
                    a.path(),
                    Integer.toString(ws ? sockets(a) : a.connections()),
                    Long.toString(pairWarmupMs),
                    Long.toString(staggerMs(a))));
            load.jvm.await(LoadMain.PAIR, Duration.ofMillis(2 * pairWarmupMs + HANG_GUARD_MS));
            try {
                warmWhileCompiling(a, serverA, b, serverB, settleMs, sliceMs, cut);
                // The candidate cores' pairs come last; their minimum rounds stay out of the extra ones.
                long referencesAfter = specs(ctx.mode()).stream()
                        .filter(s -> REFERENCE_CORES.contains(s.name()))
                        .filter(s -> REFERENCE_CORES.indexOf(s.name()) > REFERENCE_CORES.indexOf(a.name()))
                        .count();
                Duration references = Duration.ofMillis(referencesAfter
                        * (2 * warmupMs + rounds * cut(spec(HELIDON_NOSLEEP)).roundMs(roundSliceMs)));
                Rounds loop =
                        ctx.rounds(rounds, 2 * rounds).reserve(reserveAfter(a).plus(references));
                for (Watch w : watches) {
                    loop.watch(w.direction(), w.target(), () -> w.perRound(ra, rb));
                }
                // A void round (below) does not count; while none has counted, up to VOID_RETRIES more
                // are run past the loop's own end, so that a smoke run's single round on a loaded
                // machine does not leave the pair with no figure at all.
                int voids = 0;
                for (int i = 0; loop.another() || (ra.isEmpty() && voids < VOID_RETRIES); i++) {
                    Jit before = Jit.of(serverA, serverB);
                    String answer = pairRound(i, settleMs, sliceMs, cut);
                    Jit jit = Jit.of(serverA, serverB).minus(before);
                    PairedLoad.RoundResult r = Json.parse(answer, PairedLoad.RoundResult.class);
                    if (inStep) {
                        r = new PairedLoad.RoundResult(r.a().spanRated(), r.b().spanRated());
                    }
                    if (r.a().requests() == 0 || r.b().requests() == 0) {
                        // Seen once at load average 15: neither the server nor the load JVM got a
                        // tick of CPU in the slice. A ratio over nothing says nothing; the round is void.
                        voids++;
                        ctx.progress("round " + (i + 1) + " void: a side completed nothing in its slice ("
                                + r.a().requests() + " and " + r.b().requests() + " requests); not counted");
                        continue;
                    }
                    ra.add(r.a());
                    rb.add(r.b());
                    ctx.progress(String.format(
                            Locale.ROOT,
                            "round %d: %s %,.0f %s at %s/%s, p99 %s; %s %,.0f at %s, p99 %s; JIT %.0f ms, %.0f ms",
                            i + 1,
                            a.name(),
                            r.a().requestsPerSecond(),
                            unit(a),
                            us(r.a().serverCpuUsPerRequest()),
                            ws ? "message" : "request",
                            ms(r.a().p99Ms()),
                            b.name(),
                            r.b().requestsPerSecond(),
                            us(r.b().serverCpuUsPerRequest()),
                            ms(r.b().p99Ms()),
                            jit.aMs(),
                            jit.bMs()));
                }
            } finally {
                load.command("pair-close");
                load.jvm.await(LoadMain.PAIR, Duration.ofMillis(HANG_GUARD_MS));
            }
            if (ra.isEmpty()) {
                throw new IllegalStateException("no round of " + a.name() + " and " + b.name()
                        + " completed requests on both sides; see the load JVM's log (load.log) and the servers' logs");
            }
            Map<String, Measured> m = new LinkedHashMap<>();
            m.put(a.name(), side(ws, serverA, ra));
            m.put(b.name(), side(ws, serverB, rb));
            return m;
        }

        /**
         * Runs the pair's rounds unmeasured while either server's JIT still compiles (decision
         * 0877): until a round in which both used at most {@link #JIT_QUIET_SHARE} of its wall time
         * compiling, at most {@link #warmRounds} rounds. The fixed warm-up before (priming, the
         * pair's own) is by time; on a slow 2-core machine the @1000 and WebSocket servers compiled
         * through their first four measured rounds, whose CPU per request fell by half to two thirds.
         */
        void warmWhileCompiling(Spec a, Helper serverA, Spec b, Helper serverB, long settleMs, long sliceMs, Cut cut)
                throws IOException, InterruptedException {
            int most = warmRounds(ctx.mode(), a);
            for (int i = 0; i < most; i++) {
                Jit before = Jit.of(serverA, serverB);
                long t0 = System.nanoTime();
                pairRound(i, settleMs, sliceMs, cut); // unmeasured: its figures are not read
                long wall = System.nanoTime() - t0;
                Jit jit = Jit.of(serverA, serverB).minus(before);
                boolean quiet = jit.a() <= JIT_QUIET_SHARE * wall && jit.b() <= JIT_QUIET_SHARE * wall;
                ctx.progress(String.format(
                        Locale.ROOT,
                        "warm-up round %d of %s and %s, not measured: JIT %.0f ms and %.0f ms in %.0f ms%s",
                        i + 1,
                        a.name(),
                        b.name(),
                        jit.aMs(),
                        jit.bMs(),
                        wall / 1e6,
                        quiet ? ": quiet" : i + 1 == most ? ": still compiling, measured from here all the same" : ""));
                if (quiet || i + 1 == most) {
                    ctx.note(String.format(
                            Locale.ROOT,
                            "%s and %s: %d unmeasured round(s) before the measured ones, while a server's JIT"
                                    + " compiled; in the last, JIT %.0f ms and %.0f ms of %.0f ms (%s; decision 0877)",
                            a.name(),
                            b.name(),
                            i + 1,
                            jit.aMs(),
                            jit.bMs(),
                            wall / 1e6,
                            quiet
                                    ? "quiet: at most " + Math.round(JIT_QUIET_SHARE * 100) + "% of the round"
                                    : "still compiling: the budget allows no more"));
                    return;
                }
            }
        }

        /**
         * One paired round, the side measured first alternating with {@code i}; returns the load
         * JVM's answer (a {@link PairedLoad.RoundResult} as JSON).
         */
        private String pairRound(int i, long settleMs, long sliceMs, Cut cut) throws IOException, InterruptedException {
            load.command("pair-round " + (i % 2 == 0 ? "a" : "b") + " " + settleMs + " " + sliceMs + " " + cut.parts());
            return load.jvm.await(LoadMain.PAIR, Duration.ofMillis(cut.roundMs(sliceMs) + HANG_GUARD_MS));
        }

        /**
         * The CPU time a pair's servers' JIT compiler threads have used, in nanoseconds (0 when
         * unreadable): {@link #of} so far, {@link #minus} over a stretch (decision 0877).
         */
        record Jit(long a, long b) {
            static Jit of(Helper serverA, Helper serverB) {
                return new Jit(nanos(serverA), nanos(serverB));
            }

            private static long nanos(Helper server) {
                return ThreadCpu.compiler(server.process.pid())
                        .map(Duration::toNanos)
                        .orElse(0L);
            }

            Jit minus(Jit earlier) {
                return new Jit(a - earlier.a, b - earlier.b);
            }

            double aMs() {
                return a / 1e6;
            }

            double bMs() {
                return b / 1e6;
            }
        }

        /**
         * Over how long the pair's connections spread their first requests after each resume
         * ({@link Stagger}, decision 0860): one round trip of the 50 ms handler for the sleeping
         * pairs (@120, @1000), whose connections otherwise start together and stay in step through
         * the slice; 0 (all at once) without the sleep, where a round trip is about a millisecond,
         * and for WebSockets.
         */
        long staggerMs(Spec a) {
            return a.load() == Load.HTTP1 && a.sleeps() ? SLEEP_MS : 0;
        }

        /**
         * How a pair's rounds are cut (decision 0825): each side's slice in {@code parts} interleaved
         * parts, a b b a ..., and {@code settleMs} of unmeasured load before each stretch of one
         * side's parts.
         */
        record Cut(int parts, long settleMs) {
            /** A round's length: its parts run in parts + 1 stretches, each after its settle. */
            long roundMs(long sliceMs) {
                return (parts + 1) * settleMs + 2 * sliceMs;
            }
        }

        /**
         * Without the sleep a round trip takes about a millisecond, so 20 ms settles the loops and
         * each slice goes in 4 parts (a b b a a b b a), which cancels the machine's drift within the
         * round. With the 50 ms handler at 1,000 connections a stretch costs two of its round trips
         * to settle (100 ms) and one to drain, so the slices stay whole (a b, decision 0815), as do
         * the WebSocket pair's.
         */
        Cut cut(Spec a) {
            long slow = ctx.mode() == Mode.SMOKE ? 50 : 100;
            if (a.load() == Load.WS) {
                return new Cut(1, slow);
            }
            if (inStep(a)) {
                // SpanRate starts at each connection's first completion: nothing to settle.
                return new Cut(1, 0);
            }
            return a.sleeps() ? new Cut(1, slow) : new Cut(4, 20);
        }

        /** One side of a pair: its rounds, its server's scheduler report, memory and extras. */
        private Measured side(boolean ws, Helper server, List<LoadResult> rounds)
                throws IOException, InterruptedException {
            Map<String, Object> extra = ws ? Map.of("message_bytes", 17) : allocExtra(server, rounds);
            if (!ws) {
                // Both rate estimators, round by round, whichever the goals read (decision 0850).
                extra.put(
                        "requests_per_second_count_rounds",
                        rounds.stream().map(LoadResult::countRequestsPerSecond).toList());
                extra.put(
                        "requests_per_second_span_rounds",
                        rounds.stream().map(LoadResult::spanRequestsPerSecond).toList());
            }
            return new Measured(rounds, server.report(), extra, server.memory());
        }

        /**
         * What the scenario runs after the pair starting with {@code a}, kept out of its extra
         * rounds: after the 120-connection pair, the 1,000-connection pair's minimum and what
         * follows it; after the 1,000-connection pair, the no-sleep pair's minimum, h2c and the
         * WebSocket pair; after the no-sleep pair, h2c and the WebSocket pair.
         */
        private Duration reserveAfter(Spec a) {
            return switch (a.name()) {
                // the later pairs' warm-up rounds while their servers compile included (decision 0877)
                case RING_120 -> Duration.ofSeconds(41);
                case "weft-ring@1000" -> Duration.ofSeconds(28);
                case RING_NOSLEEP -> Duration.ofSeconds(19);
                default -> Duration.ofSeconds(1);
            };
        }

        /** {@code alloc_bytes_per_request} (the median over the rounds) and every round's figure. */
        private Map<String, Object> allocExtra(Helper server, List<LoadResult> rounds)
                throws IOException, InterruptedException {
            List<Double> perRound = new ArrayList<>();
            for (int i = 0; i < rounds.size(); i++) {
                perRound.add(allocPerRequest(server, rounds.get(i)));
            }
            Map<String, Object> extra = new LinkedHashMap<>();
            extra.put(
                    "alloc_bytes_per_request",
                    perRound.stream().anyMatch(java.util.Objects::isNull)
                            ? null
                            : Stats.median(perRound.stream()
                                    .mapToDouble(Double::doubleValue)
                                    .toArray()));
            extra.put("alloc_bytes_per_request_rounds", perRound);
            return extra;
        }

        /**
         * The server JVM's allocated bytes in the window of {@code r} (all its threads, carriers
         * included) divided by the requests completed in it; null when the window's bounds or the
         * server's readings are missing.
         */
        Double allocPerRequest(Helper server, LoadResult r) throws IOException, InterruptedException {
            if (r.windowStartMs() == null || r.windowEndMs() == null || r.requests() == 0) {
                return null;
            }
            Map<String, Object> answer =
                    server.ask("alloc", " " + r.windowStartMs() + " " + r.windowEndMs(), HANG_GUARD_MS);
            long bytes = ((Number) answer.get("bytes")).longValue();
            return bytes < 0 ? null : (double) bytes / r.requests();
        }

        LoadResult http1(Spec spec, Helper server, long warmup, long duration)
                throws IOException, InterruptedException {
            LoadGenerator.Plan plan = new LoadGenerator.Plan(
                    server.port, spec.path(), spec.connections(), warmup, duration, server.process.pid(), 2);
            return wrk.isPresent()
                    ? wrk.get().run(plan)
                    : job(
                            String.join(
                                    " ",
                                    Integer.toString(plan.port()),
                                    plan.path(),
                                    Integer.toString(plan.connections()),
                                    Long.toString(plan.warmupMs()),
                                    Long.toString(plan.durationMs()),
                                    Long.toString(plan.serverPid()),
                                    Integer.toString(plan.threads())),
                            "",
                            warmup + duration);
        }

        int sockets(Spec spec) {
            return ctx.mode() == Mode.SMOKE ? 20 : spec.connections();
        }

        private LoadResult job(String args, String kind, long ms) throws IOException, InterruptedException {
            load.command(kind + args);
            return Json.parse(load.jvm.await(LoadMain.RESULT, Duration.ofMillis(ms + HANG_GUARD_MS)), LoadResult.class);
        }

        private String describe(Spec spec) {
            return switch (spec.load()) {
                case HTTP1 -> spec.connections() + " connections on " + spec.path();
                case H2C ->
                    "h2load, " + H2C_STREAMS + " streams on each of " + H2C_CONNECTIONS + " h2c connections on "
                            + spec.path();
                case WS -> sockets(spec) + " WebSockets echoing 17-byte messages on " + spec.path();
            };
        }
    }

    /**
     * What one variant measured: its windows (one, or one per paired round), what the server's
     * scheduler did meanwhile, and extras of its load tool.
     */
    record Measured(List<LoadResult> windows, Map<String, Object> scheduler, Map<String, Object> extra, Memory memory) {

        Measured(List<LoadResult> windows, Map<String, Object> scheduler, Map<String, Object> extra) {
            this(windows, scheduler, extra, null);
        }

        /** The window whose rate is the median (the lower middle one of an even count). */
        LoadResult load() {
            List<LoadResult> byRate = new ArrayList<>(windows);
            byRate.sort(java.util.Comparator.comparingDouble(LoadResult::requestsPerSecond));
            return byRate.get((byRate.size() - 1) / 2);
        }

        double rate() {
            return Stats.median(
                    windows.stream().mapToDouble(LoadResult::requestsPerSecond).toArray());
        }

        /** The median server CPU per request over the windows, or null when any is unreadable. */
        Double cpuUs() {
            List<Double> us = cpuUsPerRound();
            return us.stream().anyMatch(java.util.Objects::isNull)
                    ? null
                    : Stats.median(us.stream().mapToDouble(Double::doubleValue).toArray());
        }

        List<Double> rates() {
            return windows.stream().map(LoadResult::requestsPerSecond).toList();
        }

        /** Each window's p99 latency (null where it measured none). */
        List<Double> p99s() {
            return windows.stream().map(LoadResult::p99Ms).toList();
        }

        List<Double> cpuUsPerRound() {
            return windows.stream().map(LoadResult::serverCpuUsPerRequest).toList();
        }

        Measured withScheduler(Map<String, Object> s) {
            return new Measured(windows, s, extra, memory);
        }

        Measured withMemory(Memory m) {
            return new Measured(windows, scheduler, extra, m);
        }

        /**
         * This variant with {@code vs_jetty} in its extra: the medians of its per-round ratios to
         * {@code jetty} (the spec of the plain Jetty variant it was paired with), measured in the same
         * paired rounds (server CPU, allocation and p99 per request, req/s; for a WebSocket echo, CPU
         * and p99 per message and messages/s, no allocation), how many rounds each median has, and
         * Jetty's own medians in those rounds.
         */
        Measured versus(Spec jettySpec, Measured jetty) {
            boolean perMessage = jettySpec.load() == Load.WS; // a WebSocket echo: no allocation figure
            String unit = perMessage ? "message" : "request";
            Map<String, Object> vs = new LinkedHashMap<>();
            vs.put("variant", jettySpec.name());
            vs.put("server_cpu_us_per_" + unit, medianRatio(cpuUsPerRound(), jetty.cpuUsPerRound()));
            if (!perMessage) {
                vs.put("alloc_bytes_per_request", medianRatio(allocPerRound(), jetty.allocPerRound()));
            }
            vs.put("p99_ms", medianRatio(p99s(), jetty.p99s()));
            vs.put(unit + "s_per_second", medianRatio(rates(), jetty.rates()));
            vs.put("rounds", windows.size());
            vs.put("jetty_server_cpu_us_per_" + unit, jetty.cpuUs());
            if (!perMessage) {
                vs.put("jetty_alloc_bytes_per_request", jetty.extra().get("alloc_bytes_per_request"));
            }
            vs.put("jetty_p99_ms", median(jetty.p99s()));
            Map<String, Object> e = new LinkedHashMap<>(extra);
            e.put("vs_jetty", vs);
            return new Measured(windows, scheduler, e, memory);
        }

        /** Each round's allocation per request (null where unreadable); empty when not measured. */
        @SuppressWarnings("unchecked")
        List<Double> allocPerRound() {
            Object rounds = extra.get("alloc_bytes_per_request_rounds");
            return rounds == null ? List.of() : (List<Double>) rounds;
        }
    }

    /** The median of the per-round ratios a[i] / b[i] (rounds unreadable on either side left out); null if none. */
    static Double medianRatio(List<Double> a, List<Double> b) {
        return median(ratios(a, b));
    }

    /** Per-round ratios a[i] / b[i]; a round whose figure is null on either side, or 0 in b, is left out. */
    static List<Double> ratios(List<Double> a, List<Double> b) {
        List<Double> r = new ArrayList<>();
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            Double x = a.get(i);
            Double y = b.get(i);
            if (x != null && y != null && y > 0) {
                r.add(x / y);
            }
        }
        return r;
    }

    /** The median of the figures that are not null; null if none. */
    static Double median(List<Double> xs) {
        double[] v = xs.stream()
                .filter(java.util.Objects::nonNull)
                .mapToDouble(Double::doubleValue)
                .toArray();
        return v.length == 0 ? null : Stats.median(v);
    }

    static double little(int concurrency) {
        return concurrency * 1000.0 / SLEEP_MS;
    }

    /** The variant's ceiling: Little's law when the handler sleeps, the server's CPU when it does not. */
    static Double limit(Spec spec, Double cpuUs, int cores) {
        if (spec.sleeps()) {
            return little(
                    switch (spec.server()) {
                        case JETTY_50 -> POOL_THREADS;
                        case JETTY_4 -> SMALL_POOL_THREADS;
                        default -> spec.connections();
                    });
        }
        return cpuUs == null || cpuUs <= 0 ? null : cores * 1e6 / cpuUs;
    }

    private static String unit(Spec spec) {
        return spec.load() == Load.WS ? "messages/s" : "req/s";
    }

    private static void report(ScenarioContext ctx, Spec spec, Measured m, int cores) {
        LoadResult r = m.load();
        Double cpuUs = m.cpuUs();
        var v = ctx.variant(spec.name())
                .unit(unit(spec))
                .value(m.rate())
                .limit(limit(spec, cpuUs, cores))
                .published(spec.published());
        if (!spec.sleeps()) {
            v.limitLabel(cores + " cores / the server's CPU time per "
                    + (spec.load() == Load.WS ? "message" : "request") + " in this run");
        }
        if (m.windows().size() > 1) {
            v.rounds(m.rates())
                    .extra(
                            spec.load() == Load.WS
                                    ? "server_cpu_us_per_message_rounds"
                                    : "server_cpu_us_per_request_rounds",
                            m.cpuUsPerRound());
        }
        v.extra("load_generator", r.generator())
                .extra(
                        spec.load() == Load.WS ? "sockets" : spec.load() == Load.H2C ? "streams" : "connections",
                        r.connections())
                .extra("handler_sleep_ms", spec.sleeps() ? SLEEP_MS : 0)
                .extra(spec.load() == Load.WS ? "messages" : "requests", r.requests())
                .extra("seconds", r.seconds())
                .extra("p50_ms", r.p50Ms())
                .extra("p99_ms", r.p99Ms())
                .extra("max_ms", r.maxMs())
                .extra("errors", r.errors())
                .extra("connect_errors", r.connectErrors())
                .extra("read_errors", r.readErrors())
                .extra("write_errors", r.writeErrors())
                .extra("timeouts", r.timeouts())
                .extra(spec.load() == Load.WS ? "wrong_echoes" : "non_2xx", r.non2xx())
                .extra(spec.load() == Load.WS ? "server_cpu_us_per_message" : "server_cpu_us_per_request", cpuUs)
                .extra("load_cpu_us_per_request", r.clientCpuUsPerRequest())
                .extra("scheduler", m.scheduler());
        m.extra().forEach(v::extra);
        if (m.memory() != null) {
            v.memory(m.memory());
        }
        v.add();
    }

    /** The goals, judged by the structured goal API (doc/results.md). */
    private static void goals(ScenarioContext ctx, Map<String, Measured> measured) {
        // Paired rounds with the edge-free rate (decision 0850): per round, weft-ring's rate over
        // its limit and over plain Jetty's in the same round.
        List<Double> ring120 = measured.get(RING_120).rates();
        goal(
                ctx,
                "weft-ring@120 at least 97% of its limit (Little's law: 120 connections / 50 ms = 2,400 req/s)",
                ring120,
                java.util.Collections.nCopies(ring120.size(), little(120)),
                true,
                RING_120_LIMIT_TARGET);
        goal(
                ctx,
                "weft-ring@120 at least 0.97x plain Jetty's req/s (jetty-virtual@120)",
                ring120,
                measured.get(JETTY_120).rates(),
                true,
                RING_120_RATE_TARGET);
        goal(
                ctx,
                "weft-ring@1000 at least 0.95x plain Jetty's req/s (jetty-virtual@1000)",
                measured.get("weft-ring@1000").rates(),
                measured.get("jetty-virtual@1000").rates(),
                true,
                RING_1000_RATE_TARGET);
        for (String at : List.of("@120", "@1000")) {
            goal(
                    ctx,
                    "weft-ring" + at + "'s p99 no worse than plain Jetty's (jetty-virtual" + at
                            + "; p99 ratio at most 1.0)",
                    measured.get("weft-ring" + at).p99s(),
                    measured.get("jetty-virtual" + at).p99s(),
                    false,
                    P99_TARGET);
        }
        Measured ring = measured.get(RING_NOSLEEP);
        Measured jetty = measured.get(JETTY_NOSLEEP);
        goal(
                ctx,
                "without the sleep, weft-ring at least 0.90x plain Jetty's req/s (median of paired rounds)",
                ring.rates(),
                jetty.rates(),
                true,
                NOSLEEP_RATE_TARGET);
        goal(
                ctx,
                "without the sleep, weft-ring's server CPU per request at most 1.15x plain Jetty's (median of paired rounds)",
                ring.cpuUsPerRound(),
                jetty.cpuUsPerRound(),
                false,
                NOSLEEP_CPU_TARGET);
        Measured ringWs = measured.get(RING_WS);
        Measured jettyWs = measured.get(JETTY_WS);
        goal(
                ctx,
                "weft-ring's server CPU per WebSocket message at most 0.67x plain Jetty's (jetty-virtual-ws; median of paired rounds)",
                ringWs.cpuUsPerRound(),
                jettyWs.cpuUsPerRound(),
                false,
                WS_CPU_TARGET);
    }

    /**
     * Reports the goal that the median of {@code numerators[i] / denominators[i]} is at least (or at
     * most) {@code target}; when a figure is missing or a denominator measured nothing (a smoke
     * window too short for 1,000 connects), a note says the goal could not be judged instead.
     */
    private static void goal(
            ScenarioContext ctx,
            String name,
            List<Double> numerators,
            List<Double> denominators,
            boolean atLeast,
            double target) {
        boolean judgeable = numerators.stream().allMatch(n -> n != null && Double.isFinite(n))
                && denominators.stream().allMatch(d -> d != null && d > 0);
        if (!judgeable) {
            ctx.note("Goal \"" + name + "\" was not judged: a figure is missing or the reference measured nothing"
                    + " (numerators " + numerators + ", denominators " + denominators + ").");
            return;
        }
        var g = ctx.goal(name);
        if (numerators.size() > 1) {
            g.pairedRatios(numerators, denominators);
        } else {
            g.measured(numerators.get(0) / denominators.get(0));
        }
        if (atLeast) {
            g.atLeast(target);
        } else {
            g.atMost(target);
        }
        g.add();
    }

    private static void notes(
            ScenarioContext ctx,
            Map<String, Measured> measured,
            Optional<Wrk> wrk,
            Optional<H2load> h2load,
            int cores) {
        ctx.note(
                wrk.isPresent()
                        ? "Load: wrk (" + wrk.get().executable()
                                + "), 2 threads, a warm-up run and a measured run per single-window variant (the paired"
                                + " rounds use the built-in generator, whose connections can pause);"
                                + " it shares the "
                                + cores + " cores with the server."
                        : "Load: the built-in closed-loop generator (a JVM of its own, 2 selector threads, keep-alive"
                                + " connections, one request outstanding on each), because " + builtInReason(ctx.mode())
                                + " It shares the " + cores + " cores with the server.");
        ctx.note(
                h2load.isPresent()
                        ? "weft-ring-h2c@120: h2load (" + h2load.get().executable() + "), " + H2C_STREAMS
                                + " concurrent streams on each of "
                                + H2C_CONNECTIONS
                                + " h2c connections (prior knowledge) to a weft-ring server with :http2? true in the"
                                + " same JVM as weft-ring's HTTP/1.1 server; h2load reports the mean request time, not percentiles."
                        : "weft-ring-h2c@120 did not run: h2load is not on the PATH (./weft lab installs Debian's nghttp2-client"
                                + " when it can; apt-get install nghttp2-client).");
        ctx.note(
                "weft-ring-ws and jetty-virtual-ws: WebSockets opened with the JDK's client (2 threads each, in the load"
                        + " JVM), each in a closed loop (send 17 bytes of text, wait for the echo, send the next), in paired"
                        + " rounds; weft-ring echoes with a blocking send on each socket's virtual thread, plain Jetty (on virtual"
                        + " threads) with its own asynchronous send, demanding the next frame once it completed. The limit is the server's CPU: "
                        + cores
                        + " cores divided by the server"
                        + " JVM's CPU time per echoed message in this window (server_cpu_us_per_message), the rate at which the"
                        + " server alone would fill every core; the variant's ratio is the share of the cores the server used.");
        if (ctx.mode() == Mode.SMOKE) {
            ctx.note(
                    "Smoke mode: 0.3 s windows on cold JVMs without the optimizing compiler prove that the scenario runs;"
                            + " its figures say nothing about speed, so its goals are not judged.");
            return;
        }
        Measured ring120 = measured.get("weft-ring@120");
        Measured jetty120 = measured.get("jetty-virtual@120");
        if (measured.containsKey("jetty-50-threads@120")) {
            double pool = measured.get("jetty-50-threads@120").rate();
            double small = measured.get("jetty-4-threads@120").rate();
            ctx.note(String.format(
                    Locale.ROOT,
                    "Article: 50 threads %,.0f req/s, virtual threads %,.0f req/s at 120 connections"
                            + " (http-kit, wrk -t12 -c120). Here: 50 threads %,.0f req/s (Jetty's acceptor and selector threads come"
                            + " out of its 50), weft-ring %,.0f, plain Jetty on virtual threads %,.0f.",
                    PUBLISHED_50_THREADS,
                    PUBLISHED_VIRTUAL,
                    pool,
                    ring120.rate(),
                    jetty120.rate()));
            ctx.note(String.format(
                    Locale.ROOT,
                    "Article 003 first reported 29x for virtual threads, then retracted it: http-kit's"
                            + " default pool has %d threads. Here 4 threads (on top of Jetty's acceptor and selector) reach %,.0f"
                            + " req/s (Little's law: %,.0f), and weft-ring@120 is %.1fx that: the 29x measured the pool's size,"
                            + " not the thread model; against 50 threads the gain is %.1fx.",
                    SMALL_POOL_THREADS,
                    small,
                    little(SMALL_POOL_THREADS),
                    ratio(ring120.rate(), small),
                    ratio(ring120.rate(), pool)));
        } else {
            ctx.note(String.format(
                    Locale.ROOT,
                    "Article: 50 threads %,.0f req/s, virtual threads %,.0f req/s at 120 connections"
                            + " (http-kit, wrk -t12 -c120). Here: weft-ring %,.0f, plain Jetty on virtual threads %,.0f; the fixed"
                            + " pools of 50 and 4 threads (the article's baseline and its retracted 29x) run with --full.",
                    PUBLISHED_50_THREADS,
                    PUBLISHED_VIRTUAL,
                    ring120.rate(),
                    jetty120.rate()));
        }
        ctx.note(String.format(
                Locale.ROOT,
                "weft-ring@1000 p99 %s vs plain Jetty's %s.",
                ms(measured.get("weft-ring@1000").load().p99Ms()),
                ms(measured.get("jetty-virtual@1000").load().p99Ms())));
        Double ringUs = measured.get(RING_NOSLEEP).cpuUs();
        Double jettyUs = measured.get(JETTY_NOSLEEP).cpuUs();
        if (ringUs != null && jettyUs != null) {
            double vsHttpKit = ringUs / jettyUs / HTTP_KIT_VS_JETTY_CPU;
            ctx.note(String.format(
                    Locale.ROOT,
                    "Without the sleep, server CPU per request (median of the paired rounds):"
                            + " weft-ring %.1f us, plain Jetty %.1f us. Stretch goal, weft-ring at or below http-kit's CPU per"
                            + " request: http-kit 2.9.0-beta4 on virtual threads, measured by hand side by side with this plain"
                            + " Jetty (not in this run; decision 0303), needs %.3fx Jetty's, so weft-ring needs about %.2fx"
                            + " http-kit's: %s.",
                    ringUs,
                    jettyUs,
                    HTTP_KIT_VS_JETTY_CPU,
                    vsHttpKit,
                    vsHttpKit <= 1.0 ? "met" : "NOT met"));
        }
        Object ringThreads = measured.get("weft-ring@1000").scheduler().get("peak_platform_threads");
        Object jettyThreads = measured.get("jetty-virtual@1000").scheduler().get("peak_platform_threads");
        ctx.note("Platform threads at 1,000 connections (the whole server JVM, GC and JIT included): weft-ring "
                + ringThreads
                + " (its Jetty pool is fixed at 16 and never runs a request), plain Jetty on virtual threads "
                + jettyThreads
                + " (its pool grows to serve the selectors' tasks).");
        ctx.note(
                "Reference figures, not measured in this run: on a 2-core machine with wrk and a listen backlog of 1,024,"
                        + " http-kit 2.8.1 and ring-jetty-adapter 1.15.5 on virtual threads reached ~2,360 req/s at 120 connections"
                        + " and ~19,000-19,400 at 1,000, with server CPU per request ~29 us (http-kit), ~44 us (plain Jetty) and"
                        + " ~51 us (ring-jetty-adapter) (weft's design notes). Both live on Clojars, which this lab does not use.");
        for (String name : REFERENCE_CORES) {
            Measured m = measured.get(name);
            if (m == null || !(m.extra().get("vs_jetty") instanceof Map<?, ?> vs)) {
                continue;
            }
            if (spec(name).load() == Load.WS) {
                ctx.note(String.format(
                        Locale.ROOT,
                        "%s, %s (decision 0880; no goal): in %s paired rounds of its own with plain Jetty's echo"
                                + " (%s), its server CPU per message is %sx Jetty's, its p99 %sx (medians of the per-round"
                                + " ratios; extra.vs_jetty).",
                        name,
                        name.equals(RING_HELIDON_WS)
                                ? "weft-ring's socket and the lab's Ring echo listener on Helidon (issue 25's prototype)"
                                : "Helidon's own WebSocket echo (issue 25's candidate core)",
                        vs.get("rounds"),
                        vs.get("variant"),
                        times(vs.get("server_cpu_us_per_message")),
                        times(vs.get("p99_ms"))));
                continue;
            }
            ctx.note(String.format(
                    Locale.ROOT,
                    "%s, %s (no goal): in %s paired rounds of its own with plain Jetty without the sleep, its server"
                            + " CPU per request is %sx Jetty's, its allocation per request %sx, its p99 %sx (medians of"
                            + " the per-round ratios; extra.vs_jetty).",
                    name,
                    name.equals(RING_HELIDON_NOSLEEP)
                            ? "the lab's Ring handler on Helidon (issue 25's prototype; decision 0880)"
                            : "a candidate core of issue 25 (plain, the same handler; decision 0305)",
                    vs.get("rounds"),
                    times(vs.get("server_cpu_us_per_request")),
                    times(vs.get("alloc_bytes_per_request")),
                    times(vs.get("p99_ms"))));
        }
        long errors = measured.values().stream()
                .flatMap(m -> m.windows().stream())
                .mapToLong(r -> r.errors() + r.non2xx())
                .sum();
        if (errors > 0) {
            ctx.note(errors + " requests or messages failed, timed out or came back wrong across the variants; see each"
                    + " variant's errors, timeouts, non_2xx and wrong_echoes.");
        }
    }

    private static String times(Object ratio) {
        return ratio instanceof Double d ? String.format(Locale.ROOT, "%.3f", d) : "-";
    }

    private static String builtInReason(Mode mode) {
        if (!System.getenv().getOrDefault(LOAD_ENV, "auto").strip().matches("auto|")) {
            return LOAD_ENV + " asks for it.";
        }
        return mode == Mode.SMOKE
                ? "smoke mode always uses it."
                : "wrk is not on the PATH (Debian/Ubuntu: apt install wrk).";
    }

    /** a / b, or NaN (printed as such, and never "met") when b measured nothing. */
    private static double ratio(double a, double b) {
        return b > 0 ? a / b : Double.NaN;
    }

    private static String ms(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.1f ms", v);
    }

    private static String us(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.1f us", v);
    }

    /** A helper JVM ({@link ChildJvm}): started through the lab, fed commands, answering with messages. */
    static final class Helper {
        final ChildJvm jvm;
        final Process process;
        int port;
        /** weft-ring's second server, with HTTP/2 (h2c) on; 0 for the other servers. */
        int h2cPort;
        /** Where its WebSocket echo listens: weft-ring's own port, plain Jetty's second server. */
        int wsPort;

        private Helper(ChildJvm jvm) {
            this.jvm = jvm;
            this.process = jvm.process();
        }

        /** Starts a server JVM of {@code kind}; {@link #awaitPort()} waits for it to listen. */
        static Helper server(ScenarioContext ctx, String kind) throws IOException {
            return start(ctx, kind, HttpServerMain.class.getName(), List.of(kind));
        }

        /** Starts the built-in load generator's JVM. */
        static Helper load(ScenarioContext ctx) throws IOException {
            return start(ctx, "load", LoadMain.class.getName(), List.of());
        }

        private static Helper start(ScenarioContext ctx, String label, String mainClass, List<String> args)
                throws IOException {
            // The same JVM settings for every helper; Jetty's start-up lines stay out of the logs.
            List<String> jvmArgs =
                    new ArrayList<>(List.of("-Xmx512m", "-Dorg.slf4j.simpleLogger.log.org.eclipse.jetty=warn"));
            if (ctx.mode() == Mode.SMOKE) {
                // Smoke mode only proves the scenario runs: four JVMs start at once on a small
                // machine, so spare them the optimizing compiler and the parallel collector.
                jvmArgs.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
            }
            return new Helper(ctx.startJvm(label, jvmArgs, mainClass, args));
        }

        void awaitPort() throws IOException, InterruptedException {
            if (port == 0) {
                String[] ports = jvm.await(HttpServerMain.LISTENING, Duration.ofMillis(HANG_GUARD_MS))
                        .strip()
                        .split(" ");
                port = Integer.parseInt(ports[0]);
                h2cPort = ports.length > 1 ? Integer.parseInt(ports[1]) : 0;
                wsPort = ports.length > 2 ? Integer.parseInt(ports[2]) : port;
            }
        }

        void command(String line) {
            jvm.send(line);
        }

        /** What the server's scheduler did since the last report or reset. */
        Map<String, Object> report() throws IOException, InterruptedException {
            return ask("report", "", HANG_GUARD_MS);
        }

        /** The server JVM's memory since the last {@code reset}. */
        Memory memory() throws IOException, InterruptedException {
            command("memory");
            return Json.parse(jvm.await("memory", Duration.ofMillis(HANG_GUARD_MS)), Memory.class);
        }

        /** Sends {@code <command><args>} and reads the JSON object the helper answers with, tagged {@code command}. */
        Map<String, Object> ask(String command, String args, long timeoutMs) throws IOException, InterruptedException {
            command(command + args);
            @SuppressWarnings("unchecked")
            Map<String, Object> m = Json.parse(jvm.await(command, Duration.ofMillis(timeoutMs)), Map.class);
            return m;
        }

        void endInput() {
            jvm.endInput();
        }

        /** Ends the JVM: it exits at the end of its input; the lab's stop makes sure. */
        void stop() {
            jvm.stop();
        }
    }
}
