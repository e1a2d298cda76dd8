package dev.weft.micrometer;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * weft.async's stragglers as the gauge {@code weft.async.stragglers}: the core.async tasks on
 * weft's executor factory that are parked in a channel operation after running longer than the
 * straggler threshold ({@code (weft.async/straggler-count)}), read at each scrape. A value above
 * zero that stays there is a leak: a thread waiting on a channel nobody will use again. From
 * Clojure use {@code weft.micrometer/async-metrics}.
 */
public final class WeftAsyncMetrics implements MeterBinder {

    private final Supplier<? extends Number> stragglers;
    private final Tags tags;

    /**
     * A gauge that reads {@code stragglers} (a supplier of the straggler count) at each scrape.
     *
     * @throws NullPointerException if an argument is null
     */
    public WeftAsyncMetrics(Supplier<? extends Number> stragglers, Iterable<Tag> tags) {
        this.stragglers = Objects.requireNonNull(stragglers, "stragglers");
        this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("weft.async.stragglers", this, m -> m.stragglers.get().doubleValue())
                .tags(tags)
                .description(
                        "core.async tasks on weft's executors parked in a channel op longer than the straggler threshold")
                .register(registry);
    }
}
