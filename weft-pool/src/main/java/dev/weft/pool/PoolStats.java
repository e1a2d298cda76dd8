package dev.weft.pool;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A pool's state and history at one moment, as data. Counts of resources are a consistent
 * snapshot (taken under the pool's lock); the wait percentiles cover every successful borrow since
 * the pool started, within 12.5%.
 *
 * @param pool           the pool's name
 * @param maxSize        the most resources the pool keeps open
 * @param inUse          resources held by borrowers
 * @param idle           resources ready to hand out
 * @param creating       resources being created
 * @param waiting        borrowers waiting for a resource
 * @param created        resources created since the start
 * @param destroyed      resources destroyed since the start
 * @param borrows        successful borrows since the start
 * @param timeouts       borrows that gave up after {@code maxWait}
 * @param createFailures failed attempts to create a resource
 * @param leaks          borrows reported as leaks
 * @param waitP50        median borrow wait
 * @param waitP99        99th percentile borrow wait
 * @param waitMax        longest borrow wait (bucket upper bound)
 */
public record PoolStats(
        String pool,
        int maxSize,
        int inUse,
        int idle,
        int creating,
        int waiting,
        long created,
        long destroyed,
        long borrows,
        long timeouts,
        long createFailures,
        long leaks,
        Duration waitP50,
        Duration waitP99,
        Duration waitMax) {

    /**
     * The statistics as a map with the keys {@code pool, max_size, in_use, idle, creating,
     * waiting, created, destroyed, borrows, timeouts, create_failures, leaks, wait_p50_ms,
     * wait_p99_ms, wait_max_ms} (durations as fractional milliseconds).
     */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pool", pool);
        m.put("max_size", maxSize);
        m.put("in_use", inUse);
        m.put("idle", idle);
        m.put("creating", creating);
        m.put("waiting", waiting);
        m.put("created", created);
        m.put("destroyed", destroyed);
        m.put("borrows", borrows);
        m.put("timeouts", timeouts);
        m.put("create_failures", createFailures);
        m.put("leaks", leaks);
        m.put("wait_p50_ms", waitP50.toNanos() / 1e6);
        m.put("wait_p99_ms", waitP99.toNanos() / 1e6);
        m.put("wait_max_ms", waitMax.toNanos() / 1e6);
        return m;
    }

    /** The number of open resources: in use, idle and being created; never above {@link #maxSize}. */
    public int open() {
        return inUse + idle + creating;
    }
}
