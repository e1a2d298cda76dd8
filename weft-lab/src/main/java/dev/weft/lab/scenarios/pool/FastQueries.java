package dev.weft.lab.scenarios.pool;

import dev.weft.lab.Goal;
import dev.weft.lab.Rounds;
import dev.weft.lab.ScenarioContext;
import dev.weft.lab.Stats;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The pool scenario's fast-query part (issue 24): {@code select 1} through a prepared statement,
 * about 0.1-0.2 ms on the private server, where a pool's own cost per borrow shows (the steady
 * part's 10 ms query hides it). {@value #BORROWERS} virtual threads loop borrow, prepare, execute,
 * read, close, give back for a fixed time through weft-pool and HikariCP, interleaved with the
 * database's own rate for that query: the same connections held one per virtual thread, no pool.
 * That rate is the limit; the goal is weft-pool at least 1.0x HikariCP's queries/s, paired per
 * round. Variants {@code weft-pool-fast} and {@code hikaricp-fast}.
 *
 * <p>Warm-up until the JIT is quiet (decisions 0820, 0855): slices of weft-pool and HikariCP in
 * turn, at least {@code warm}, then more while the compilers still take more than {@link #QUIET}
 * of a cycle, up to 4/3 of {@code warm}: with 125 ms per path the rates still climbed for the
 * first 3-4 rounds (53k to 89k queries/s) while the compilers ran beside them on the same 2 cores,
 * and after a fixed 1.5 s HikariCP's first 2-4 rounds still ran at 0.56-0.82 of its later median in
 * two idle runs of three. Each round's compile time is in the progress log and a note.
 *
 * <p>Rounds: many short paired rounds rather than few long ones (decision 0820). A round runs each
 * pool for two slices, in the order A B B A (B A A B in the next round), so that the pair shares
 * the round's machine and a drift within it cancels; a slice's first {@code settle} is not
 * measured (its threads starting, and the server processes of the connections it uses waking
 * up: each pool, and the database alone, has its own 20), nor the queries still running at its
 * end. The first
 * {@code databaseRounds} rounds also measure the database alone for two slices. The goal needs at
 * least {@code minRounds} rounds, more while it is inconclusive and the budget allows: a slice's
 * rate on 2 cores shared with the database's 20 server processes moves by 10-20% from slice to
 * slice whichever pool runs (the database alone too), so a round's ratio does as well, and 14
 * rounds give the sign test's interval from the 3rd to the 12th ratio, where 6 rounds in the same
 * time gave the lowest to the highest, decided by the one most disturbed round.
 */
final class FastQueries {

    static final String SQL = "select 1";
    static final int BORROWERS = 100;
    static final List<String> POOLS = List.of("weft-pool", "hikaricp");

    private FastQueries() {}

    /** Per round: the database's rate, and each pool's queries/s. */
    record Result(List<Double> database, Map<String, List<Double>> pools, Warm warm, List<Double> jitMs) {}

    /**
     * Measures the database alone and both pools.
     *
     * @param warm           the least warm-up, in slices of the two pools in turn; up to 4/3 as
     *                       long while the JIT still compiles
     * @param settle         the unmeasured start of each slice
     * @param slice          one slice's measured time; a round is four slices (six with the database)
     * @param databaseRounds how many of the first rounds also measure the database alone
     * @param minRounds      the rounds the goal gets at least
     * @param reserve        the time kept for the scenario's parts after this one
     */
    static Result run(
            ScenarioContext ctx,
            String url,
            int size,
            Duration warm,
            Duration settle,
            Duration slice,
            int databaseRounds,
            int minRounds,
            Duration reserve)
            throws Exception {
        Map<String, Pools.ConnectionPool> open = new LinkedHashMap<>();
        List<Double> jitMs = new ArrayList<>();
        Warm warmed;
        Map<String, List<Double>> qps = new LinkedHashMap<>();
        List<Double> database = new ArrayList<>();
        List<Connection> direct = new ArrayList<>();
        try {
            for (int i = 0; i < size; i++) {
                direct.add(DriverManager.getConnection(url));
            }
            for (String name : POOLS) {
                open.put(name, Pools.open(name, url, size));
                qps.put(name, new ArrayList<>());
            }
            // Warm the two pools in turn in short slices, until the JIT is quiet: connections opened,
            // statements prepared, and each path compiled while the other's compilations run too.
            Duration warmSlice = slice.compareTo(Duration.ofMillis(50)) < 0 ? slice : Duration.ofMillis(50);
            warmed = warmUp(open, direct, warm, warmSlice);
            Rounds rounds = ctx.rounds(minRounds, 2 * minRounds)
                    .reserve(reserve)
                    .watch(Goal.AT_LEAST, 1.0, qps.get("weft-pool"), qps.get("hikaricp"));
            while (rounds.another()) {
                int r = rounds.count() - 1;
                long jit0 = compilationMillis();
                if (r < databaseRounds) {
                    database.add((direct(direct, settle, slice) + direct(direct, settle, slice)) / 2);
                }
                Map<String, Double> sum = new LinkedHashMap<>();
                for (String name : slices(r)) {
                    sum.merge(name, drive(open.get(name), BORROWERS, settle, slice), Double::sum);
                }
                for (String name : POOLS) {
                    qps.get(name).add(sum.get(name) / 2); // two slices of equal length: the mean rate
                }
                jitMs.add((double) (compilationMillis() - jit0));
                ctx.progress(String.format(
                        Locale.ROOT,
                        "fast queries, round %d: weft-pool %,.0f, hikaricp %,.0f queries/s, ratio %.3f"
                                + " (database alone %,.0f; the JIT compiled for %.0f ms)",
                        r + 1,
                        qps.get("weft-pool").getLast(),
                        qps.get("hikaricp").getLast(),
                        qps.get("weft-pool").getLast() / qps.get("hikaricp").getLast(),
                        database.getLast(),
                        jitMs.getLast()));
            }
        } finally {
            for (Pools.ConnectionPool p : open.values()) {
                p.close();
            }
            for (Connection c : direct) {
                c.close();
            }
        }
        return new Result(database, qps, warmed, jitMs);
    }

    /** The warm-up as it went: its length, and the JIT's compile time in its last cycle. */
    record Warm(Duration took, long lastCycleJitMs, boolean quiet) {}

    /**
     * Warms both pools' paths until the JIT has gone quiet (decision 0855): cycles of two slices of
     * each pool (A B B A, ~0.2 s), at least {@code warm} in all, then more while the last cycle's
     * compilations took more than {@link #QUIET} of its time, up to {@code warm} x 4/3. The
     * database alone gets one slice first (its statements prepared on the server); its loop is the
     * same driver code the pools run, so the pools' cycles compile it too, and the warm-up's time
     * goes to the pools' own paths: both pools wrap the prepared statement (HikariCP its result set
     * too), code first used here, since the steady part runs plain statements.
     */
    static Warm warmUp(
            Map<String, Pools.ConnectionPool> open, List<Connection> direct, Duration warm, Duration warmSlice)
            throws Exception {
        long start = System.nanoTime();
        long min = start + warm.toNanos();
        long max = start + warm.toNanos() * 4 / 3;
        direct(direct, Duration.ZERO, warmSlice);
        long cycleJit;
        boolean quiet;
        long now;
        long cycle;
        do {
            long c0 = System.nanoTime();
            long j0 = compilationMillis();
            for (String name : slices(0)) {
                drive(open.get(name), BORROWERS, Duration.ZERO, warmSlice);
            }
            now = System.nanoTime();
            cycle = now - c0;
            cycleJit = compilationMillis() - j0;
            quiet = cycleJit <= QUIET * cycle / 1e6;
            // past the least, another cycle only while the JIT compiles and one more fits before the cap
        } while (now < min || (!quiet && now + cycle <= max));
        return new Warm(Duration.ofNanos(now - start), cycleJit, quiet);
    }

    /**
     * The share of a warm-up cycle's wall time the compilers may still take for the JIT to count
     * as quiet: compile time is summed over the compiler threads, which share the 2 cores with the
     * pools and the server.
     */
    static final double QUIET = 0.05;

    /** The JIT compilers' total compile time so far, ms (0 where the JVM does not say). */
    static long compilationMillis() {
        java.lang.management.CompilationMXBean c = java.lang.management.ManagementFactory.getCompilationMXBean();
        return c != null && c.isCompilationTimeMonitoringSupported() ? c.getTotalCompilationTime() : 0;
    }

    /**
     * The pools' slices in round {@code r} (from 0): A B B A, then B A A B in the next round.
     * Each pool's two slices sit at the same mean position in the round, so that a drift of the
     * machine's speed across the round (linear in time) slows both pools alike, and which pool
     * opens a round alternates.
     */
    static List<String> slices(int r) {
        List<String> order = r % 2 == 0 ? POOLS : POOLS.reversed();
        return List.of(order.get(0), order.get(1), order.get(1), order.get(0));
    }

    /** Reports the variants and the goal. */
    static void report(ScenarioContext ctx, Result r, int size) {
        double limit = Stats.median(r.database());
        ctx.note(String.format(
                Locale.ROOT,
                "fast queries: the limit is the database alone, answering %,.0f prepared \"%s\" per second"
                        + " on %d connections held one per virtual thread (median of %d rounds)",
                limit,
                SQL,
                size,
                r.database().size()));
        ctx.note(String.format(
                Locale.ROOT,
                "fast queries: warmed for %.2f s until the JIT was %s (%d ms of compiling in the last warm-up"
                        + " cycle); the JIT compiled for %.0f ms per measured round (median), %.0f ms at most",
                r.warm().took().toNanos() / 1e9,
                r.warm().quiet() ? "quiet" : "past the cap, still compiling",
                r.warm().lastCycleJitMs(),
                r.jitMs().isEmpty() ? 0 : Stats.median(r.jitMs()),
                r.jitMs().stream().mapToDouble(Double::doubleValue).max().orElse(0)));
        r.pools()
                .forEach((name, rounds) -> ctx.variant(name + "-fast")
                        .unit("queries/s")
                        .value(Stats.median(rounds))
                        .limit(limit)
                        .better("higher")
                        .rounds(rounds)
                        .extra("query", SQL + " (prepared)")
                        .extra("borrowers", BORROWERS)
                        .extra("connections", size)
                        .extra("database_rounds", r.database())
                        .extra("ratio_to_limit", Stats.median(rounds) / limit)
                        .add());
        ctx.goal("weft-pool-fast's queries/s >= 1.0x HikariCP's (select 1, prepared)")
                .pairedRatios(r.pools().get("weft-pool"), r.pools().get("hikaricp"))
                .atLeast(1.0)
                .add();
    }

    /**
     * Queries per second of {@code threads} virtual threads looping through {@code pool}: they
     * run for {@code settle} unmeasured, then the queries that complete in the next {@code measure} count.
     */
    static double drive(Pools.ConnectionPool pool, int threads, Duration settle, Duration measure) throws Exception {
        return loop(threads, settle, measure, i -> {
            Connection c = pool.borrow();
            try {
                query(c);
            } finally {
                pool.giveBack(c);
            }
        });
    }

    /** The database's own rate: the connections {@code cs}, each held by one virtual thread, no pool; as {@link #drive}. */
    static double direct(List<Connection> cs, Duration settle, Duration measure) throws Exception {
        return loop(cs.size(), settle, measure, i -> query(cs.get(i)));
    }

    private static void query(Connection c) throws Exception {
        try (PreparedStatement s = c.prepareStatement(SQL);
                ResultSet rs = s.executeQuery()) {
            rs.next();
        }
    }

    interface Step {
        void run(int thread) throws Exception;
    }

    /**
     * Runs {@code step} in a loop on {@code threads} virtual threads for {@code settle} plus
     * {@code measure}; the steps per second that completed within {@code measure}. The settle
     * leaves out the slice's start (the threads starting, the other pool's 20 server processes
     * going to sleep and this one's waking up) and the steps still running at the end are not
     * counted, so that a slice's figure is the steady rate alone (decision 0820).
     */
    private static double loop(int threads, Duration settle, Duration measure, Step step) throws Exception {
        LongAdder done = new LongAdder();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        long from = System.nanoTime() + settle.toNanos();
        long end = from + measure.toNanos();
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int n = i;
            ts.add(Thread.ofVirtual().start(() -> {
                try {
                    while (System.nanoTime() < end) {
                        step.run(n);
                        long at = System.nanoTime();
                        if (at >= from && at <= end) {
                            done.increment();
                        }
                    }
                } catch (Throwable t) {
                    failures.add(t);
                }
            }));
        }
        for (Thread t : ts) {
            t.join();
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException(
                    failures.size() + " fast-query loops failed; the first: " + failures.getFirst(),
                    failures.getFirst());
        }
        return done.sum() / (measure.toNanos() / 1e9);
    }
}
