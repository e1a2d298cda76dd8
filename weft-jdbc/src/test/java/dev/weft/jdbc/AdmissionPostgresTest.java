package dev.weft.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.limit.LimitExceededException;
import dev.weft.limit.Limiter;
import dev.weft.pool.PoolLimit;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * The pool-driven admission limit (PoolLimit, decision 0900) over a real PostgreSQL server: more
 * callers than the pool serves are shed at once instead of parking in the pool, and while the
 * server is away (stopped, then started again) the limit falls to the pool's size and comes back after. No caller waits
 * forever and no permit leaks.
 */
class AdmissionPostgresTest {

    private static final int POOL = 8;

    @Test
    void thePoolDrivenLimitShedsAndFollowsARestartUnderLoad() throws Exception {
        LongAdder ok = new LongAdder();
        LongAdder shed = new LongAdder();
        LongAdder failed = new LongAdder();
        AtomicInteger okAfter = new AtomicInteger();
        AtomicBoolean restarted = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        try (WeftDataSource ds = WeftDataSource.builder("pg-admission", Postgres.url())
                .maxSize(POOL)
                .maxWait(Duration.ofSeconds(2))
                .build()) {
            PoolLimit limit = PoolLimit.of(ds.pool(), Duration.ofMillis(50));
            Limiter admission =
                    Limiter.builder("pg-admission", limit).maxWaiting(0).build();
            List<Thread> callers = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                callers.add(Thread.ofVirtual().start(() -> {
                    while (!stop.get()) {
                        boolean after = restarted.get();
                        try {
                            admission.call(() -> {
                                try (Connection c = ds.getConnection();
                                        Statement s = c.createStatement();
                                        ResultSet rs = s.executeQuery("select pg_sleep(0.01)")) {
                                    return rs.next();
                                }
                            });
                            ok.increment();
                            if (after) {
                                okAfter.incrementAndGet();
                            }
                        } catch (LimitExceededException e) {
                            shed.increment();
                            pause();
                        } catch (SQLException e) {
                            failed.increment(); // the restart: a broken connection, or none to be had
                            pause();
                        } catch (Exception e) {
                            throw new AssertionError("only a shed or an SQLException reaches a caller", e);
                        }
                    }
                }));
            }
            // Before: the pool saturated, the limit its size plus a queue.
            awaitTrue(() -> limit.rate() > 0 && ok.sum() > 100 && shed.sum() > 0, "load served and shed");
            int before = limit.limit();
            assertTrue(before > POOL, "a queue over the pool's size under load: " + limit);
            // During: sample the limit while the server restarts.
            AtomicInteger lowest = new AtomicInteger(Integer.MAX_VALUE);
            AtomicBoolean sampling = new AtomicBoolean(true);
            Thread sampler = Thread.ofVirtual().start(() -> {
                while (sampling.get()) {
                    lowest.accumulateAndGet(limit.limit(), Math::min);
                    pause();
                }
            });
            // The server stays away until the limit has seen it (a restart alone can be over within
            // one of the limit's readings, while borrows of dead connections still succeed).
            Postgres.stop();
            try {
                awaitTrue(() -> lowest.get() == POOL, "the limit down to the pool's size while the server was away");
            } finally {
                Postgres.start();
            }
            restarted.set(true);
            // After: served again, and the queue back.
            awaitTrue(() -> okAfter.get() > 100 && limit.limit() > POOL, "served again, the queue back: " + limit);
            sampling.set(false);
            sampler.join();
            stop.set(true);
            for (Thread t : callers) {
                t.join(Duration.ofSeconds(30)); // a hang guard: each caller waits at most the pool's maxWait
                assertTrue(!t.isAlive(), "a caller left waiting");
            }
            assertTrue(failed.sum() > 0, "the restart failed some callers: " + ds.stats());
            assertEquals(0, admission.inUse(), "no permit leaked");
            assertEquals(0, ds.stats().inUse());
        }
    }

    private static void pause() {
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until {@code condition} holds, failing with {@code what} after a 60 s hang guard. */
    static void awaitTrue(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos(); // a hang guard, not a speed goal
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not reached within the hang guard: " + what);
            }
            Thread.sleep(10);
        }
    }
}
