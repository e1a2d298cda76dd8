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
import java.util.concurrent.atomic.AtomicLong;

/**
 * The pool scenario's fast-query part (issue 24): {@code select 1} through a prepared statement,
 * about 0.1-0.2 ms on the private server, where a pool's own cost per borrow shows (the steady
 * part's 10 ms query hides it). {@value #BORROWERS} virtual threads loop borrow, prepare, execute,
 * read, close, give back for a fixed time through weft-pool and HikariCP, interleaved with the
 * database's own rate for that query: the same connections held one per virtual thread, no pool.
 * That rate is the limit; the goal is weft-pool at least 1.0x HikariCP's queries/s, paired per
 * round. Variants {@code weft-pool-fast} and {@code hikaricp-fast}.
 *
 * <p>Rounds: the first {@code fullRounds} measure the database, weft-pool and HikariCP; later ones
 * (the goal needs at least 6 for the sign test's 95%, more while it is inconclusive and the
 * budget allows) only the two pools, since the limit is a median already. In a round each pool
 * runs twice for half its time, in the order A B B A (B A A B in the next), so that the pair
 * shares the round's machine.
 */
final class FastQueries {

    static final String SQL = "select 1";
    static final int BORROWERS = 100;
    static final List<String> POOLS = List.of("weft-pool", "hikaricp");

    private FastQueries() {}

    /** Per round: the database's rate, and each pool's queries/s. */
    record Result(List<Double> database, Map<String, List<Double>> pools) {}

    static Result run(
            ScenarioContext ctx, String url, int size, Duration perRun, int fullRounds, int minRounds, Duration reserve)
            throws Exception {
        Map<String, Pools.ConnectionPool> open = new LinkedHashMap<>();
        Map<String, List<Double>> qps = new LinkedHashMap<>();
        List<Double> database = new ArrayList<>();
        List<Connection> direct = new ArrayList<>();
        try {
            for (int i = 0; i < size; i++) {
                direct.add(DriverManager.getConnection(url));
            }
            direct(direct, perRun.dividedBy(4)); // warm, like the pools below
            for (String name : POOLS) {
                Pools.ConnectionPool p = Pools.open(name, url, size);
                open.put(name, p);
                qps.put(name, new ArrayList<>());
                drive(p, BORROWERS, perRun.dividedBy(4)); // warm: connections opened, statements prepared
            }
            Rounds rounds = ctx.rounds(Math.max(fullRounds, minRounds), Math.max(fullRounds, 2 * minRounds))
                    .reserve(reserve)
                    .watch(Goal.AT_LEAST, 1.0, qps.get("weft-pool"), qps.get("hikaricp"));
            while (rounds.another()) {
                int r = rounds.count() - 1;
                if (r < fullRounds) {
                    database.add(direct(direct, perRun));
                }
                // Each pool runs twice for half the time, A B B A (B A A B the next round): the two
                // pools share the round's machine, its 20 server processes and their scheduling, half
                // a round at a time, rather than one after the other (0.87x-1.49x per round before).
                List<String> order = r % 2 == 0 ? POOLS : POOLS.reversed();
                Map<String, Double> sum = new LinkedHashMap<>();
                for (String name : List.of(order.get(0), order.get(1), order.get(1), order.get(0))) {
                    sum.merge(name, drive(open.get(name), BORROWERS, perRun.dividedBy(2)), Double::sum);
                }
                for (String name : POOLS) {
                    double q = sum.get(name) / 2; // two slices of equal length: the mean rate
                    qps.get(name).add(q);
                    ctx.progress(String.format(
                            Locale.ROOT,
                            "fast queries, round %d, %s: %,.0f queries/s (database alone %,.0f)",
                            r + 1,
                            name,
                            q,
                            database.getLast()));
                }
            }
        } finally {
            for (Pools.ConnectionPool p : open.values()) {
                p.close();
            }
            for (Connection c : direct) {
                c.close();
            }
        }
        return new Result(database, qps);
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

    /** Queries per second of {@code threads} virtual threads looping through {@code pool} for {@code d}. */
    static double drive(Pools.ConnectionPool pool, int threads, Duration d) throws Exception {
        return loop(threads, d, i -> {
            Connection c = pool.borrow();
            try {
                query(c);
            } finally {
                pool.giveBack(c);
            }
        });
    }

    /** The database's own rate: the connections {@code cs}, each held by one virtual thread, no pool. */
    static double direct(List<Connection> cs, Duration d) throws Exception {
        return loop(cs.size(), d, i -> query(cs.get(i)));
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

    /** Runs {@code step} in a loop on {@code threads} virtual threads for {@code d}; steps per second. */
    private static double loop(int threads, Duration d, Step step) throws Exception {
        AtomicLong done = new AtomicLong();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        long start = System.nanoTime();
        long end = start + d.toNanos();
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int n = i;
            ts.add(Thread.ofVirtual().start(() -> {
                try {
                    while (System.nanoTime() < end) {
                        step.run(n);
                        done.incrementAndGet();
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
        return done.get() / ((System.nanoTime() - start) / 1e9);
    }
}
