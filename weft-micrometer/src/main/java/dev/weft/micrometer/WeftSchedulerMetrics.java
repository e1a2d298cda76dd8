package dev.weft.micrometer;

import dev.weft.scheduler.SchedulerSnapshot;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.function.ToDoubleFunction;

/**
 * The JVM's virtual-thread scheduler as gauges, read from a {@link SchedulerSnapshot} at each
 * scrape: {@code weft.scheduler.parallelism} (carriers it aims for), {@code weft.scheduler.pool.size}
 * (carrier threads alive), {@code weft.scheduler.mounted} (virtual threads on a carrier now),
 * {@code weft.scheduler.queued} (virtual threads waiting for a carrier, an estimate) and
 * {@code weft.platform.threads.live}. Where the JDK does not expose its scheduler the scheduler
 * gauges read NaN.
 *
 * <pre>{@code
 * new WeftSchedulerMetrics().bindTo(registry);
 * }</pre>
 */
public final class WeftSchedulerMetrics implements MeterBinder {

    @Override
    public void bindTo(MeterRegistry registry) {
        gauge(
                registry,
                "weft.scheduler.parallelism",
                "Carrier threads the virtual-thread scheduler aims for",
                SchedulerSnapshot::parallelism);
        gauge(registry, "weft.scheduler.pool.size", "Carrier threads alive", SchedulerSnapshot::poolSize);
        gauge(
                registry,
                "weft.scheduler.mounted",
                "Virtual threads mounted on a carrier now",
                SchedulerSnapshot::mountedVirtualThreads);
        gauge(
                registry,
                "weft.scheduler.queued",
                "Virtual threads ready to run and waiting for a carrier (an estimate)",
                SchedulerSnapshot::queuedVirtualThreads);
        Gauge.builder(
                        "weft.platform.threads.live",
                        () -> SchedulerSnapshot.take().livePlatformThreads())
                .description("Platform threads alive, carriers included")
                .register(registry);
    }

    private static void gauge(
            MeterRegistry registry, String name, String description, ToDoubleFunction<SchedulerSnapshot> figure) {
        Gauge.builder(name, () -> {
                    SchedulerSnapshot s = SchedulerSnapshot.take();
                    return s.schedulerAvailable() ? figure.applyAsDouble(s) : Double.NaN;
                })
                .description(description)
                .register(registry);
    }
}
