package dev.weft.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.limit.LimitExceededException;
import dev.weft.limit.Limiter;
import dev.weft.pin.PinMonitor;
import dev.weft.pin.PinProbe;
import dev.weft.pool.Lease;
import dev.weft.pool.Pool;
import dev.weft.pool.ResourceFactory;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** weft's figures in a real SimpleMeterRegistry, after a real pin and a real rejection. */
class WeftMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void aPinIsCountedByReasonWithItsPinnedTime() throws Exception {
        WeftPinMetrics pins = new WeftPinMetrics();
        pins.bindTo(registry);
        try (PinMonitor monitor =
                PinMonitor.builder().threshold(Duration.ZERO).onPin(pins).start()) {
            PinProbe.pinVirtualThread(Duration.ofMillis(30));
            assertTrue(monitor.sync(Duration.ofSeconds(30)), "the monitor saw the pin in time");
        }
        Timer timer = registry.find(WeftPinMetrics.PINS).timer();
        assertNotNull(timer, "a pin timer: " + registry.getMetersAsString());
        assertTrue(timer.count() >= 1, "at least the probe's pin");
        // JFR times a pin from the park attempt, after the probe's sleep began (on JDK 21 up to a
        // few ms later; 23 ms seen for 30): about the sleep, never much less
        assertTrue(
                timer.totalTime(TimeUnit.MILLISECONDS) >= 15,
                "pinned ~30 ms: " + timer.totalTime(TimeUnit.MILLISECONDS));
        assertTrue(!timer.getId().getTag("reason").isBlank());
    }

    @Test
    void aRejectionAndThePermitsInUseShowOnTheLimitersMeters() throws Exception {
        Limiter db = Limiter.builder("db", 1).maxWaiting(0).build();
        new WeftLimiterMetrics(db).bindTo(registry);
        try (Limiter.Permit held = db.acquire()) {
            assertThrows(LimitExceededException.class, () -> db.call(() -> "no room"));
            assertEquals(
                    1.0,
                    registry.get("weft.limiter.in.flight")
                            .tag("limiter", "db")
                            .gauge()
                            .value());
            assertEquals(
                    0.0,
                    registry.get("weft.limiter.waiting")
                            .tag("limiter", "db")
                            .gauge()
                            .value());
        }
        assertEquals(
                1.0,
                registry.get("weft.limiter.rejected")
                        .tag("limiter", "db")
                        .functionCounter()
                        .count());
        assertEquals(
                0.0,
                registry.get("weft.limiter.in.flight")
                        .tag("limiter", "db")
                        .gauge()
                        .value());
        assertEquals(
                1.0,
                registry.get("weft.limiter.limit").tag("limiter", "db").gauge().value());
    }

    @Test
    void anAdaptiveLimitersLimitGaugeFollowsItsAlgorithm() throws Exception {
        int[] limit = {5};
        Limiter api = Limiter.builder("api", new dev.weft.limit.AdaptiveLimit() {
                    @Override
                    public int limit() {
                        return limit[0];
                    }

                    @Override
                    public void onSample(long startNanos, long latencyNanos, int inFlight, boolean dropped) {
                        limit[0] = dropped ? limit[0] - 1 : limit[0] + 1;
                    }
                })
                .build();
        new WeftLimiterMetrics(api).bindTo(registry);
        assertEquals(
                5.0,
                registry.get("weft.limiter.limit").tag("limiter", "api").gauge().value());
        api.acquire().close();
        assertEquals(
                6.0,
                registry.get("weft.limiter.limit").tag("limiter", "api").gauge().value());
        api.acquire().closeDropped();
        api.acquire().closeDropped();
        assertEquals(
                4.0,
                registry.get("weft.limiter.limit").tag("limiter", "api").gauge().value());
    }

    @Test
    void theSchedulerGaugesReadTheJdksScheduler() throws Exception {
        new WeftSchedulerMetrics().bindTo(registry);
        Thread.ofVirtual().start(() -> {}).join(); // at least one carrier exists
        assertTrue(registry.get("weft.platform.threads.live").gauge().value() >= 1);
        if (Runtime.version().feature() < 24) {
            // JDK 21-23 have no VirtualThreadSchedulerMXBean: the scheduler's gauges read NaN
            assertTrue(Double.isNaN(
                    registry.get("weft.scheduler.parallelism").gauge().value()));
            return;
        }
        assertEquals(
                Runtime.getRuntime().availableProcessors(),
                registry.get("weft.scheduler.parallelism").gauge().value(),
                "the default parallelism: one per core");
        assertTrue(registry.get("weft.scheduler.pool.size").gauge().value() >= 1);
        assertTrue(registry.get("weft.scheduler.mounted").gauge().value() >= 0);
        assertTrue(registry.get("weft.scheduler.queued").gauge().value() >= 0);
    }

    @Test
    void aBorrowShowsOnThePoolsMeters() throws Exception {
        try (Pool<StringBuilder> pool = Pool.builder("conns", ResourceFactory.of(StringBuilder::new, sb -> {}))
                .maxSize(2)
                .build()) {
            new WeftPoolMetrics(pool).bindTo(registry);
            try (Lease<StringBuilder> lease = pool.borrow()) {
                assertNotNull(lease.get());
                assertEquals(
                        1.0,
                        registry.get("weft.pool.in.use")
                                .tag("pool", "conns")
                                .gauge()
                                .value());
            }
            assertEquals(
                    0.0,
                    registry.get("weft.pool.in.use")
                            .tag("pool", "conns")
                            .gauge()
                            .value());
            assertEquals(
                    1.0,
                    registry.get("weft.pool.idle").tag("pool", "conns").gauge().value());
            assertEquals(
                    1.0,
                    registry.get("weft.pool.borrows")
                            .tag("pool", "conns")
                            .functionCounter()
                            .count());
            assertEquals(
                    1.0,
                    registry.get("weft.pool.created")
                            .tag("pool", "conns")
                            .functionCounter()
                            .count());
            assertEquals(
                    2.0,
                    registry.get("weft.pool.max.size")
                            .tag("pool", "conns")
                            .gauge()
                            .value());
        }
    }
}
