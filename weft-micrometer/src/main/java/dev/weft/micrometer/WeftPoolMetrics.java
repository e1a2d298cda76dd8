package dev.weft.micrometer;

import dev.weft.pool.Pool;
import dev.weft.pool.PoolStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * A {@link Pool}'s {@link PoolStats} as meters tagged {@code pool} (its name). Gauges:
 * {@code weft.pool.in.use}, {@code weft.pool.idle}, {@code weft.pool.creating},
 * {@code weft.pool.waiting}, {@code weft.pool.max.size}, {@code weft.pool.wait.p99} (seconds).
 * Counters: {@code weft.pool.borrows}, {@code weft.pool.timeouts}, {@code weft.pool.created},
 * {@code weft.pool.destroyed}, {@code weft.pool.create.failures}, {@code weft.pool.leaks}. Each
 * meter reads {@code pool.stats()} when scraped.
 *
 * <pre>{@code
 * new WeftPoolMetrics(pool).bindTo(registry);
 * }</pre>
 */
public final class WeftPoolMetrics implements MeterBinder {

    private final Pool<?> pool;
    private final Tags tags;

    /** Meters for {@code pool}, tagged {@code pool=<its name>}. */
    public WeftPoolMetrics(Pool<?> pool) {
        this(pool, Tags.empty());
    }

    /** Meters for {@code pool}, tagged {@code pool=<its name>} and {@code tags}. */
    public WeftPoolMetrics(Pool<?> pool, Iterable<Tag> tags) {
        this.pool = Objects.requireNonNull(pool, "pool");
        this.tags = Tags.of(tags).and("pool", pool.name());
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        gauge(registry, "weft.pool.in.use", "Resources held by borrowers", PoolStats::inUse);
        gauge(registry, "weft.pool.idle", "Resources ready to hand out", PoolStats::idle);
        gauge(registry, "weft.pool.creating", "Resources being created", PoolStats::creating);
        gauge(registry, "weft.pool.waiting", "Borrowers waiting for a resource", PoolStats::waiting);
        gauge(registry, "weft.pool.max.size", "The most resources the pool keeps open", PoolStats::maxSize);
        gauge(
                registry,
                "weft.pool.wait.p99",
                "99th percentile borrow wait since the start, in seconds",
                s -> s.waitP99().toNanos() / 1e9);
        counter(registry, "weft.pool.borrows", "Successful borrows", PoolStats::borrows);
        counter(registry, "weft.pool.timeouts", "Borrows that gave up after maxWait", PoolStats::timeouts);
        counter(registry, "weft.pool.created", "Resources created", PoolStats::created);
        counter(registry, "weft.pool.destroyed", "Resources destroyed", PoolStats::destroyed);
        counter(
                registry,
                "weft.pool.create.failures",
                "Failed attempts to create a resource",
                PoolStats::createFailures);
        counter(registry, "weft.pool.leaks", "Borrows reported as leaks", PoolStats::leaks);
    }

    private void gauge(MeterRegistry registry, String name, String description, ToDoubleFunction<PoolStats> f) {
        Gauge.builder(name, pool, p -> f.applyAsDouble(p.stats()))
                .tags(tags)
                .description(description)
                .register(registry);
    }

    private void counter(MeterRegistry registry, String name, String description, ToDoubleFunction<PoolStats> f) {
        FunctionCounter.builder(name, pool, p -> f.applyAsDouble(p.stats()))
                .tags(tags)
                .description(description)
                .register(registry);
    }
}
