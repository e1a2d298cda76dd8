package dev.weft.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A weft-ring server's {@code (weft.ring/stats server)} as meters tagged {@code server}: gauges
 * {@code weft.ring.in.flight} and {@code weft.ring.waiting}, counters {@code weft.ring.rejected}
 * (503s because the server was full) and {@code weft.ring.abandoned} (requests cut off by a stop),
 * and, when the statistics have a {@code limit} (a limiter), the gauge {@code weft.ring.limit}; when
 * they have the admission counts, the counters {@code weft.ring.admitted} (requests let past the
 * limiter), {@code weft.ring.shed} (the same 503s) and {@code weft.ring.dropped} (requests dropped
 * because their deadline passed or their client went away first). From Clojure use
 * {@code weft.micrometer/ring-metrics}.
 *
 * <p>The statistics are read through {@code stats}, a supplier of a map whose keys are those
 * names, as strings or as Clojure keywords ({@code :in-flight}), and whose values are numbers; a
 * key that is missing reads NaN. Each meter calls it when scraped.
 */
public final class WeftRingMetrics implements MeterBinder {

    private final Supplier<? extends Map<?, ?>> stats;
    private final Tags tags;

    /**
     * Meters for the server whose statistics {@code stats} returns, tagged {@code server=name}.
     *
     * @throws NullPointerException if an argument is null
     */
    public WeftRingMetrics(String name, Supplier<? extends Map<?, ?>> stats, Iterable<Tag> tags) {
        this.stats = Objects.requireNonNull(stats, "stats");
        this.tags = Tags.of(tags).and("server", Objects.requireNonNull(name, "name"));
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("weft.ring.in.flight", () -> read("in-flight"))
                .tags(tags)
                .description("Requests let in and not yet finished")
                .register(registry);
        Gauge.builder("weft.ring.waiting", () -> read("waiting"))
                .tags(tags)
                .description("Requests waiting for a turn")
                .register(registry);
        FunctionCounter.builder("weft.ring.rejected", this, m -> m.read("rejected"))
                .tags(tags)
                .description("Requests answered 503 because the server was full")
                .register(registry);
        FunctionCounter.builder("weft.ring.abandoned", this, m -> m.read("abandoned"))
                .tags(tags)
                .description("Requests cut off by a stop")
                .register(registry);
        if (!Double.isNaN(read("limit"))) {
            Gauge.builder("weft.ring.limit", () -> read("limit"))
                    .tags(tags)
                    .description("The server's current limit on requests in flight")
                    .register(registry);
        }
        if (!Double.isNaN(read("admitted"))) {
            FunctionCounter.builder("weft.ring.admitted", this, m -> m.read("admitted"))
                    .tags(tags)
                    .description("Requests let past the server's limiter")
                    .register(registry);
            FunctionCounter.builder("weft.ring.shed", this, m -> m.read("shed"))
                    .tags(tags)
                    .description("Requests answered 503 because the limiter was full")
                    .register(registry);
            FunctionCounter.builder("weft.ring.dropped", this, m -> m.read("dropped"))
                    .tags(tags)
                    .description("Requests dropped because their deadline passed or their client went away first")
                    .register(registry);
        }
    }

    /** The statistic named {@code name} now, or NaN when the map has no such number. */
    double read(String name) {
        for (Map.Entry<?, ?> e : stats.get().entrySet()) {
            String key = String.valueOf(e.getKey());
            if ((key.equals(name) || key.equals(":" + name)) && e.getValue() instanceof Number n) {
                return n.doubleValue();
            }
        }
        return Double.NaN;
    }
}
