package dev.weft.lab.scenarios.http;

import dev.weft.lab.Mode;
import dev.weft.lab.Scenario;
import dev.weft.lab.ScenarioContext;
import dev.weft.lab.report.Json;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * the sleep, where the server's CPU per request sets the ceiling.
 *
 * <p>Three server JVMs (Jetty on 50 threads, plain Jetty on virtual threads, weft-ring) and one
 * load-generator JVM are started with {@link ScenarioContext#startJvm}; everything listens and
 * connects on 127.0.0.1 and every load window is bounded. weft-ring and plain Jetty are measured
 * alternately while both are up, so that drift on a shared machine hits both alike. For each
 * variant: requests per second, p50/p99 latency, errors, and the server JVM's CPU time per request
 * (its CPU time during the window / requests completed).
 *
 * <p>Sizes: smoke 0.3 s windows without warm-up (always the built-in generator: wrk counts whole
 * seconds); quick 1 s of warm-up and 3 s measured; full 2 s of warm-up and 10 s measured, the
 * article's wrk run.
 */
public final class HttpScenario implements Scenario {

    /** The handler's sleep, the article's simulated slow call. */
    static final int SLEEP_MS = 50;
    static final double PUBLISHED_50_THREADS = 928.14;
    static final double PUBLISHED_VIRTUAL = 2208.67;
    static final int POOL_THREADS = 50;
    /** http-kit's default handler pool, behind article 003's first, retracted 29x. */
    static final int SMALL_POOL_THREADS = 4;

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
            case "wrk" -> Optional.of(Wrk.find().orElseThrow(() -> new IllegalStateException(LOAD_ENV
                    + "=wrk but wrk is not on the PATH; install it (Debian/Ubuntu: apt install wrk) or unset " + LOAD_ENV)));
            default -> throw new IllegalStateException(LOAD_ENV + " must be auto, wrk or built-in; got " + choice);
        };
    }

    /** The server JVMs. */
    enum Server {
        JETTY_50("jetty-50-threads"), JETTY_4("jetty-4-threads"), JETTY_VIRTUAL("jetty-virtual"), WEFT_RING("weft-ring");

        final String kind;

        Server(String kind) {
            this.kind = kind;
        }
    }

    /** One variant: its name (fixed by the issue), server, connections, path and published figure. */
    record Spec(String name, Server server, int connections, boolean sleeps, Double published) {
        String path() {
            return sleeps ? "/hello" : "/nosleep";
        }
    }

    /** In the order they are reported. */
    static final List<Spec> SPECS = List.of(
            new Spec("jetty-50-threads@120", Server.JETTY_50, 120, true, PUBLISHED_50_THREADS),
            new Spec("jetty-4-threads@120", Server.JETTY_4, 120, true, null),
            new Spec("weft-ring@120", Server.WEFT_RING, 120, true, PUBLISHED_VIRTUAL),
            new Spec("jetty-virtual@120", Server.JETTY_VIRTUAL, 120, true, PUBLISHED_VIRTUAL),
            new Spec("weft-ring@1000", Server.WEFT_RING, 1000, true, null),
            new Spec("jetty-virtual@1000", Server.JETTY_VIRTUAL, 1000, true, null),
            new Spec("weft-ring-nosleep@120", Server.WEFT_RING, 120, false, null),
            new Spec("jetty-virtual-nosleep@120", Server.JETTY_VIRTUAL, 120, false, null));

    /** Hang guard for a helper JVM's answer: a start, or one load window plus this. */
    static final long HANG_GUARD_MS = 60_000;

    @Override
    public void run(ScenarioContext ctx) throws Exception {
        long warmupMs = ctx.size(0, 1_000, 2_000);
        long durationMs = ctx.size(300, 3_000, 10_000);
        int cores = Runtime.getRuntime().availableProcessors();
        Optional<Wrk> wrk = chooseWrk(ctx.mode());
        ctx.limitNote(String.format(Locale.ROOT, "Little's law, throughput <= concurrency / %d ms: %d threads -> %,.0f req/s,"
                        + " 120 connections -> %,.0f, 1,000 -> %,.0f; without the sleep the server's CPU is the ceiling:"
                        + " %d cores / its CPU time per request",
                SLEEP_MS, POOL_THREADS, little(POOL_THREADS), little(120), little(1000), cores));
        ctx.progress(String.format(Locale.ROOT, "load: %s; %d ms warm-up, %d ms measured per variant",
                wrk.map(w -> "wrk (" + w.executable() + ")").orElse("built-in generator: " + builtInReason(ctx.mode())),
                warmupMs, durationMs));

        Map<Server, Helper> servers = new EnumMap<>(Server.class);
        Helper load = null;
        try {
            // Started together (JVM starts overlap), measured only once all are up and idle.
            for (Server s : Server.values()) {
                servers.put(s, Helper.server(ctx, s.kind));
            }
            if (wrk.isEmpty()) {
                load = Helper.load(ctx);
            }
            for (Helper server : servers.values()) {
                server.awaitPort();
            }
            Map<Spec, Measured> measured = new LinkedHashMap<>();
            // SPECS' order: the fixed pools first (each stopped after it), then weft-ring and plain
            // Jetty alternately, so that drift on a shared machine hits both alike.
            for (Spec spec : SPECS) {
                Helper server = servers.get(spec.server());
                LoadGenerator.Plan plan = new LoadGenerator.Plan(server.port, spec.path(), spec.connections(), warmupMs,
                        durationMs, server.process.pid(), 2);
                ctx.progress(spec.name() + ": " + spec.connections() + " connections on " + spec.path());
                server.command("reset");
                LoadResult r = wrk.isPresent() ? wrk.get().run(plan) : runBuiltIn(ctx, load, plan, spec);
                Map<String, Object> scheduler = server.report(ctx.workDir().resolve(spec.name() + "-scheduler.json"));
                measured.put(spec, new Measured(r, scheduler));
                ctx.progress(String.format(Locale.ROOT, "%s: %,.0f req/s, p50 %s, p99 %s, %d errors, %d non-2xx, server CPU %s/request",
                        spec.name(), r.requestsPerSecond(), ms(r.p50Ms()), ms(r.p99Ms()), r.errors(), r.non2xx(),
                        us(r.serverCpuUsPerRequest())));
                if (spec.server() == Server.JETTY_50 || spec.server() == Server.JETTY_4) {
                    servers.remove(spec.server()).stop(); // measured alone first; free its threads
                }
            }
            for (Spec spec : SPECS) {
                report(ctx, spec, measured.get(spec), cores);
            }
            notes(ctx, measured, wrk, cores);
        } finally {
            List<Helper> helpers = new ArrayList<>(servers.values());
            if (load != null) {
                helpers.add(load);
            }
            helpers.forEach(Helper::endInput); // each exits at the end of its input: let them exit together
            helpers.forEach(Helper::stop);
        }
    }

    private static LoadResult runBuiltIn(ScenarioContext ctx, Helper load, LoadGenerator.Plan plan, Spec spec)
            throws IOException, InterruptedException {
        Path result = ctx.workDir().resolve(spec.name() + "-load.json");
        Files.deleteIfExists(result);
        load.command(String.join(" ", result.toString(), Integer.toString(plan.port()), plan.path(),
                Integer.toString(plan.connections()), Long.toString(plan.warmupMs()), Long.toString(plan.durationMs()),
                Long.toString(plan.serverPid()), Integer.toString(plan.threads())));
        load.await(result, plan.warmupMs() + plan.durationMs() + HANG_GUARD_MS);
        return Json.read(result, LoadResult.class);
    }

    /** What one variant measured, and what the server's scheduler did meanwhile. */
    record Measured(LoadResult load, Map<String, Object> scheduler) {
    }

    static double little(int concurrency) {
        return concurrency * 1000.0 / SLEEP_MS;
    }

    /** The variant's ceiling: Little's law when the handler sleeps, the server's CPU when it does not. */
    static Double limit(Spec spec, LoadResult r, int cores) {
        if (spec.sleeps()) {
            return little(switch (spec.server()) {
                case JETTY_50 -> POOL_THREADS;
                case JETTY_4 -> SMALL_POOL_THREADS;
                default -> spec.connections();
            });
        }
        Double us = r.serverCpuUsPerRequest();
        return us == null || us <= 0 ? null : cores * 1e6 / us;
    }

    private static void report(ScenarioContext ctx, Spec spec, Measured m, int cores) {
        LoadResult r = m.load();
        ctx.variant(spec.name()).unit("req/s").value(r.requestsPerSecond()).limit(limit(spec, r, cores))
                .published(spec.published())
                .extra("load_generator", r.generator())
                .extra("connections", spec.connections())
                .extra("handler_sleep_ms", spec.sleeps() ? SLEEP_MS : 0)
                .extra("requests", r.requests())
                .extra("seconds", r.seconds())
                .extra("p50_ms", r.p50Ms())
                .extra("p99_ms", r.p99Ms())
                .extra("max_ms", r.maxMs())
                .extra("errors", r.errors())
                .extra("connect_errors", r.connectErrors())
                .extra("read_errors", r.readErrors())
                .extra("write_errors", r.writeErrors())
                .extra("timeouts", r.timeouts())
                .extra("non_2xx", r.non2xx())
                .extra("server_cpu_us_per_request", r.serverCpuUsPerRequest())
                .extra("load_cpu_us_per_request", r.clientCpuUsPerRequest())
                .extra("scheduler", m.scheduler())
                .add();
    }

    private static void notes(ScenarioContext ctx, Map<Spec, Measured> measured, Optional<Wrk> wrk, int cores) {
        ctx.note(wrk.isPresent()
                ? "Load: wrk (" + wrk.get().executable() + "), 2 threads, a warm-up run and a measured run per variant;"
                        + " it shares the " + cores + " cores with the server."
                : "Load: the built-in closed-loop generator (a JVM of its own, 2 selector threads, keep-alive"
                        + " connections, one request outstanding on each), because " + builtInReason(ctx.mode())
                        + " It shares the " + cores + " cores with the server.");
        if (ctx.mode() == Mode.SMOKE) {
            ctx.note("Smoke mode: 0.3 s windows on cold JVMs without the optimizing compiler prove that the scenario runs;"
                    + " its figures say nothing about speed, so no goal is checked.");
            return;
        }
        LoadResult pool = load(measured, "jetty-50-threads@120");
        LoadResult small = load(measured, "jetty-4-threads@120");
        LoadResult ring120 = load(measured, "weft-ring@120");
        LoadResult jetty120 = load(measured, "jetty-virtual@120");
        LoadResult ring1000 = load(measured, "weft-ring@1000");
        LoadResult jetty1000 = load(measured, "jetty-virtual@1000");
        LoadResult ringCpu = load(measured, "weft-ring-nosleep@120");
        LoadResult jettyCpu = load(measured, "jetty-virtual-nosleep@120");
        ctx.note(String.format(Locale.ROOT, "Article: 50 threads %,.0f req/s, virtual threads %,.0f req/s at 120 connections"
                        + " (http-kit, wrk -t12 -c120). Here: 50 threads %,.0f req/s (Jetty's acceptor and selector threads come"
                        + " out of its 50), weft-ring %,.0f, plain Jetty on virtual threads %,.0f.",
                PUBLISHED_50_THREADS, PUBLISHED_VIRTUAL, pool.requestsPerSecond(), ring120.requestsPerSecond(),
                jetty120.requestsPerSecond()));
        ctx.note(String.format(Locale.ROOT, "Article 003 first reported 29x for virtual threads, then retracted it: http-kit's"
                        + " default pool has %d threads. Here 4 threads (on top of Jetty's acceptor and selector) reach %,.0f"
                        + " req/s (Little's law: %,.0f), and weft-ring@120 is %.1fx that: the 29x measured the pool's size,"
                        + " not the thread model; against 50 threads the gain is %.1fx.",
                SMALL_POOL_THREADS, small.requestsPerSecond(), little(SMALL_POOL_THREADS),
                ratio(ring120.requestsPerSecond(), small.requestsPerSecond()),
                ratio(ring120.requestsPerSecond(), pool.requestsPerSecond())));
        double ring120OfLimit = ring120.requestsPerSecond() / little(120);
        double ring120OfJetty = ratio(ring120.requestsPerSecond(), jetty120.requestsPerSecond());
        double ring1000OfJetty = ratio(ring1000.requestsPerSecond(), jetty1000.requestsPerSecond());
        double nosleepOfJetty = ratio(ringCpu.requestsPerSecond(), jettyCpu.requestsPerSecond());
        ctx.note(String.format(Locale.ROOT, "Goal weft-ring@120 >= 97%% of its limit and within 3%% of plain Jetty:"
                        + " %.1f%% of the limit, %.1f%% of plain Jetty (%s).",
                100 * ring120OfLimit, 100 * ring120OfJetty, ctx.verdict(ring120OfLimit >= 0.97 && Math.abs(1 - ring120OfJetty) <= 0.03)));
        ctx.note(String.format(Locale.ROOT, "Goal weft-ring@1000 >= 95%% of plain Jetty: %.1f%% (%s); p99 %s vs %s.",
                100 * ring1000OfJetty, ctx.verdict(ring1000OfJetty >= 0.95), ms(ring1000.p99Ms()),
                ms(jetty1000.p99Ms())));
        Double ringUs = ringCpu.serverCpuUsPerRequest();
        Double jettyUs = jettyCpu.serverCpuUsPerRequest();
        String cpu = ringUs == null || jettyUs == null ? "server CPU unreadable"
                : String.format(Locale.ROOT, "server CPU per request %.1f us vs %.1f us = %.2fx (goal <= 1.15x: %s)",
                        ringUs, jettyUs, ringUs / jettyUs, ctx.verdict(ringUs / jettyUs <= 1.15));
        ctx.note(String.format(Locale.ROOT, "Goal without the sleep, weft-ring >= 90%% of plain Jetty's req/s and CPU per"
                        + " request within 1.15x: %.1f%% (%s), %s.",
                100 * nosleepOfJetty, ctx.verdict(nosleepOfJetty >= 0.90), cpu));
        Object ringThreads = measured(measured, "weft-ring@1000").scheduler().get("peak_platform_threads");
        Object jettyThreads = measured(measured, "jetty-virtual@1000").scheduler().get("peak_platform_threads");
        ctx.note("Platform threads at 1,000 connections (the whole server JVM, GC and JIT included): weft-ring " + ringThreads
                + " (its Jetty pool is fixed at 16 and never runs a request), plain Jetty on virtual threads " + jettyThreads
                + " (its pool grows to serve the selectors' tasks).");
        ctx.note("Reference figures, not measured in this run: on a 2-core machine with wrk and a listen backlog of 1,024,"
                + " http-kit 2.8.1 and ring-jetty-adapter 1.15.5 on virtual threads reached ~2,360 req/s at 120 connections"
                + " and ~19,000-19,400 at 1,000, with server CPU per request ~29 us (http-kit), ~44 us (plain Jetty) and"
                + " ~51 us (ring-jetty-adapter) (weft's design notes). Both live on Clojars, which this lab does not use.");
        long errors = measured.values().stream().mapToLong(m -> m.load().errors() + m.load().non2xx()).sum();
        if (errors > 0) {
            ctx.note(errors + " requests failed or timed out across the variants; see each variant's errors, timeouts"
                    + " and non_2xx.");
        }
    }

    private static String builtInReason(Mode mode) {
        if (!System.getenv().getOrDefault(LOAD_ENV, "auto").strip().matches("auto|")) {
            return LOAD_ENV + " asks for it.";
        }
        return mode == Mode.SMOKE ? "smoke mode always uses it." : "wrk is not on the PATH (Debian/Ubuntu: apt install wrk).";
    }

    /** a / b, or NaN (printed as such, and never "met") when b measured nothing. */
    private static double ratio(double a, double b) {
        return b > 0 ? a / b : Double.NaN;
    }

    private static Measured measured(Map<Spec, Measured> measured, String name) {
        return measured.entrySet().stream().filter(e -> e.getKey().name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no variant " + name)).getValue();
    }

    private static LoadResult load(Map<Spec, Measured> measured, String name) {
        return measured(measured, name).load();
    }

    private static String ms(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.1f ms", v);
    }

    private static String us(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.1f us", v);
    }

    /** A helper JVM: started through the lab, fed commands on its standard input. */
    static final class Helper {
        final String label;
        final Process process;
        final PrintWriter commands;
        final Path portFile;
        final Path log;
        int port;

        private Helper(String label, Process process, Path portFile, Path log) {
            this.label = label;
            this.process = process;
            this.commands = new PrintWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), true);
            this.portFile = portFile;
            this.log = log;
        }

        /** Starts a server JVM of {@code kind}; {@link #awaitPort()} waits for it to listen. */
        static Helper server(ScenarioContext ctx, String kind) throws IOException {
            Path portFile = ctx.workDir().resolve(kind + ".port");
            Files.deleteIfExists(portFile);
            return start(ctx, kind, HttpServerMain.class.getName(), List.of(kind, portFile.toString()), portFile);
        }

        /** Starts the built-in load generator's JVM. */
        static Helper load(ScenarioContext ctx) throws IOException {
            return start(ctx, "load", LoadMain.class.getName(), List.of(), null);
        }

        private static Helper start(ScenarioContext ctx, String label, String mainClass, List<String> args, Path portFile)
                throws IOException {
            // The same JVM settings for every helper; Jetty's start-up lines stay out of the logs.
            List<String> jvmArgs = new ArrayList<>(List.of("-Xmx512m", "-Dorg.slf4j.simpleLogger.log.org.eclipse.jetty=warn"));
            if (ctx.mode() == Mode.SMOKE) {
                // Smoke mode only proves the scenario runs: four JVMs start at once on a small
                // machine, so spare them the optimizing compiler and the parallel collector.
                jvmArgs.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
            }
            Process p = ctx.startJvm(label, jvmArgs, mainClass, args);
            return new Helper(label, p, portFile, ctx.workDir().resolve(label + ".log"));
        }

        void awaitPort() throws IOException, InterruptedException {
            if (port == 0) {
                await(portFile, HANG_GUARD_MS);
                port = Integer.parseInt(Files.readString(portFile).strip());
            }
        }

        void command(String line) {
            commands.println(line);
        }

        Map<String, Object> report(Path file) throws IOException, InterruptedException {
            Files.deleteIfExists(file);
            command("report " + file);
            await(file, HANG_GUARD_MS);
            @SuppressWarnings("unchecked")
            Map<String, Object> m = Json.read(file, Map.class);
            return m;
        }

        /** Waits for {@code file} to appear; fails with the helper's log when it dies or hangs. */
        void await(Path file, long timeoutMs) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + timeoutMs * 1_000_000;
            while (!Files.exists(file)) {
                if (!process.isAlive()) {
                    throw new IOException(label + " JVM exited with status " + process.exitValue() + "; its log:\n" + tail());
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException(label + " JVM did not answer within " + timeoutMs + " ms; its log:\n" + tail());
                }
                Thread.sleep(10);
            }
        }

        private String tail() {
            try {
                List<String> lines = Files.readAllLines(log);
                return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
            } catch (IOException e) {
                return "(unreadable: " + e.getMessage() + ")";
            }
        }

        void endInput() {
            commands.close();
        }

        /** Ends the JVM: it exits at the end of its input; the lab's stop makes sure. */
        void stop() {
            endInput();
            try {
                process.waitFor(2, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            dev.weft.lab.Jvm.stop(process);
        }
    }
}
