package dev.weft.scheduler;

import dev.weft.thread.internal.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * The snapshots a {@link SchedulerSampler} took, oldest first, with the figures that tell whether
 * the scheduler was healthy: the maxima, the means, how often virtual threads waited for a carrier,
 * and how many carriers were added to compensate for pinned ones. Scheduler figures are {@code -1}
 * (or {@code NaN} for means) when they are not available on this JDK (see
 * {@link SchedulerSnapshot#schedulerAvailable()}).
 *
 * <p>Healthy virtual-thread scheduling shows few queued virtual threads and a pool no larger than
 * the parallelism. A queue that stays non-empty means the carriers are saturated (CPU-bound work
 * or pinning); a pool above parallelism means the JDK started extra carriers because some were
 * pinned (blocking in {@code <clinit>}, under a native frame, or in {@code synchronized} on JDK
 * 21-23).
 *
 * @param samples the snapshots kept, oldest first; never empty
 * @param dropped older snapshots the sampler took but no longer keeps (see
 *                {@link SchedulerSampler#start(Duration, int)})
 */
public record SchedulerSamples(List<SchedulerSnapshot> samples, long dropped) {

    /**
     * @throws IllegalArgumentException if {@code samples} is empty or {@code dropped} is negative
     */
    public SchedulerSamples {
        samples = List.copyOf(samples);
        if (samples.isEmpty()) {
            throw new IllegalArgumentException("a SchedulerSamples needs at least one snapshot");
        }
        if (dropped < 0) {
            throw new IllegalArgumentException("dropped must be >= 0; got " + dropped);
        }
    }

    /** Samples of which none were dropped. */
    public SchedulerSamples(List<SchedulerSnapshot> samples) {
        this(samples, 0);
    }

    /** When the oldest snapshot kept was taken. */
    public Instant from() {
        return samples.getFirst().at();
    }

    /** When the newest snapshot was taken. */
    public Instant to() {
        return samples.getLast().at();
    }

    /** The most virtual threads seen mounted at once. */
    public int maxMountedVirtualThreads() {
        return (int) max(SchedulerSnapshot::mountedVirtualThreads);
    }

    /** The most virtual threads seen queued for a carrier at once. */
    public long maxQueuedVirtualThreads() {
        return max(SchedulerSnapshot::queuedVirtualThreads);
    }

    /** The mean number of mounted virtual threads over the samples, or NaN when unavailable. */
    public double meanMountedVirtualThreads() {
        return mean(SchedulerSnapshot::mountedVirtualThreads);
    }

    /** The mean number of queued virtual threads over the samples, or NaN when unavailable. */
    public double meanQueuedVirtualThreads() {
        return mean(SchedulerSnapshot::queuedVirtualThreads);
    }

    /**
     * The share of samples, from 0 to 1, in which at least one virtual thread was queued for a
     * carrier: near 1 means the carriers were saturated the whole time. NaN when unavailable.
     */
    public double queuedFraction() {
        if (!available()) {
            return Double.NaN;
        }
        return samples.stream().filter(s -> s.queuedVirtualThreads() > 0).count() / (double) samples.size();
    }

    /** The most carrier threads seen at once (above parallelism when pinning was compensated). */
    public int maxPoolSize() {
        return (int) max(SchedulerSnapshot::poolSize);
    }

    /**
     * The most carriers seen beyond the parallelism: carriers the JDK added because others were
     * pinned. 0 when it never compensated, -1 when unavailable.
     */
    public int maxCompensatingCarriers() {
        return available() ? Math.max(0, maxPoolSize() - parallelism()) : -1;
    }

    /**
     * The most carrier threads counted at once ({@link SchedulerSnapshot#carrierThreads()}), on
     * any JDK 21+; -1 when no sample counted them (samples of another JVM).
     */
    public int maxCarrierThreads() {
        return (int) max(SchedulerSnapshot::carrierThreads);
    }

    /** The scheduler's parallelism at the last sample. */
    public int parallelism() {
        return samples.getLast().parallelism();
    }

    /** The JVM's peak platform-thread count at the last sample (the sampler thread included). */
    public int peakPlatformThreads() {
        return (int) max(SchedulerSnapshot::peakPlatformThreads);
    }

    /** Platform threads started between the first and the last sample. */
    public long platformThreadsStarted() {
        return samples.getLast().startedPlatformThreads() - samples.getFirst().startedPlatformThreads();
    }

    /**
     * The summary as an ordered map: {@code samples, dropped, from, to, scheduler_available,
     * parallelism, max_pool_size, max_compensating_carriers, max_mounted_virtual_threads,
     * mean_mounted_virtual_threads, max_queued_virtual_threads, mean_queued_virtual_threads,
     * queued_fraction, peak_platform_threads, platform_threads_started, max_carrier_threads};
     * unavailable figures are null.
     */
    public Map<String, Object> toMap() {
        boolean available = available();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("samples", samples.size());
        m.put("dropped", dropped);
        m.put("from", from().toString());
        m.put("to", to().toString());
        m.put("scheduler_available", available);
        m.put("parallelism", available ? parallelism() : null);
        m.put("max_pool_size", available ? maxPoolSize() : null);
        m.put("max_compensating_carriers", available ? maxCompensatingCarriers() : null);
        m.put("max_mounted_virtual_threads", available ? maxMountedVirtualThreads() : null);
        m.put("mean_mounted_virtual_threads", available ? round(meanMountedVirtualThreads()) : null);
        m.put("max_queued_virtual_threads", available ? maxQueuedVirtualThreads() : null);
        m.put("mean_queued_virtual_threads", available ? round(meanQueuedVirtualThreads()) : null);
        m.put("queued_fraction", available ? round(queuedFraction()) : null);
        m.put("peak_platform_threads", peakPlatformThreads());
        m.put("platform_threads_started", platformThreadsStarted());
        int carriers = maxCarrierThreads();
        m.put("max_carrier_threads", carriers < 0 ? null : carriers);
        return m;
    }

    /**
     * The samples as a time series, for charts: a map with the keys {@code at} (ISO-8601
     * instants), {@code parallelism}, {@code pool_size}, {@code mounted_virtual_threads},
     * {@code queued_virtual_threads} and {@code live_platform_threads}, each a list with one
     * element per sample (scheduler figures are null where unavailable).
     */
    public Map<String, List<Object>> series() {
        Map<String, List<Object>> m = new LinkedHashMap<>();
        for (String key : List.of(
                "at",
                "parallelism",
                "pool_size",
                "mounted_virtual_threads",
                "queued_virtual_threads",
                "live_platform_threads")) {
            m.put(key, new ArrayList<>(samples.size()));
        }
        for (SchedulerSnapshot s : samples) {
            Map<String, Object> one = s.toMap();
            m.forEach((key, list) -> list.add(one.get(key)));
        }
        return m;
    }

    /**
     * One line for logs and reports, e.g. {@code parallelism 2, pool max 3 (1 compensating),
     * mounted max 2 mean 1.4, queued max 17 mean 3.2 (queued in 40% of 120 samples over 2m)}.
     */
    public String summary() {
        Duration over = Duration.between(from(), to());
        if (!available()) {
            return String.format(
                    Locale.ROOT,
                    "scheduler figures %s; peak platform threads %d over %s",
                    samples.getLast().unavailableReason(),
                    peakPlatformThreads(),
                    Durations.human(over));
        }
        return String.format(
                Locale.ROOT,
                "parallelism %d, pool max %d (%d compensating), mounted max %d mean %.1f, queued max %d mean %.1f"
                        + " (queued in %.0f%% of %d samples over %s)",
                parallelism(),
                maxPoolSize(),
                maxCompensatingCarriers(),
                maxMountedVirtualThreads(),
                meanMountedVirtualThreads(),
                maxQueuedVirtualThreads(),
                meanQueuedVirtualThreads(),
                100 * queuedFraction(),
                samples.size(),
                Durations.human(over));
    }

    private boolean available() {
        return samples.getLast().schedulerAvailable();
    }

    private long max(ToLongFunction<SchedulerSnapshot> f) {
        return samples.stream().mapToLong(f).max().orElse(-1);
    }

    private double mean(ToLongFunction<SchedulerSnapshot> f) {
        return available() ? samples.stream().mapToLong(f).average().orElse(Double.NaN) : Double.NaN;
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
