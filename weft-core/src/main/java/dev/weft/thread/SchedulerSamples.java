package dev.weft.thread;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * The snapshots a {@link SchedulerSampler} took, oldest first, with the maxima that usually
 * matter. Scheduler maxima are {@code -1} when the scheduler figures are not available on this
 * JDK (see {@link SchedulerSnapshot#schedulerAvailable()}).
 *
 * @param samples the snapshots, oldest first; never empty
 */
public record SchedulerSamples(List<SchedulerSnapshot> samples) {

    /** @throws IllegalArgumentException if {@code samples} is empty */
    public SchedulerSamples {
        samples = List.copyOf(samples);
        if (samples.isEmpty()) {
            throw new IllegalArgumentException("a SchedulerSamples needs at least one snapshot");
        }
    }

    /** The most virtual threads seen mounted at once. */
    public int maxMountedVirtualThreads() {
        return (int) max(SchedulerSnapshot::mountedVirtualThreads);
    }

    /** The most virtual threads seen queued for a carrier at once. */
    public long maxQueuedVirtualThreads() {
        return max(SchedulerSnapshot::queuedVirtualThreads);
    }

    /** The most carrier threads seen at once (above parallelism when pinning was compensated). */
    public int maxPoolSize() {
        return (int) max(SchedulerSnapshot::poolSize);
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
     * The maxima as an ordered map: {@code samples, scheduler_available, parallelism,
     * max_pool_size, max_mounted_virtual_threads, max_queued_virtual_threads,
     * peak_platform_threads, platform_threads_started}; unavailable scheduler figures are null.
     */
    public Map<String, Object> toMap() {
        boolean available = samples.getLast().schedulerAvailable();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("samples", samples.size());
        m.put("scheduler_available", available);
        m.put("parallelism", available ? parallelism() : null);
        m.put("max_pool_size", available ? maxPoolSize() : null);
        m.put("max_mounted_virtual_threads", available ? maxMountedVirtualThreads() : null);
        m.put("max_queued_virtual_threads", available ? maxQueuedVirtualThreads() : null);
        m.put("peak_platform_threads", peakPlatformThreads());
        m.put("platform_threads_started", platformThreadsStarted());
        return m;
    }

    private long max(ToLongFunction<SchedulerSnapshot> f) {
        return samples.stream().mapToLong(f).max().orElse(-1);
    }
}
