package dev.weft.micrometer;

import dev.weft.limit.Limiter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;

/**
 * A {@link Limiter} as meters tagged {@code limiter} (its name): {@code weft.limiter.in.flight}
 * (permits held now), {@code weft.limiter.waiting} (callers waiting for one),
 * {@code weft.limiter.limit} (its permits: an adaptive limiter's current limit) and the counter {@code weft.limiter.rejected} (callers
 * turned away since it was built). The meters hold the limiter weakly, as Micrometer's gauges do.
 *
 * <pre>{@code
 * Limiter db = Limiter.builder("db", 20).maxWaiting(200).build();
 * new WeftLimiterMetrics(db).bindTo(registry);
 * }</pre>
 */
public final class WeftLimiterMetrics implements MeterBinder {

    private final Limiter limiter;
    private final Tags tags;

    /** Meters for {@code limiter}, tagged {@code limiter=<its name>}. */
    public WeftLimiterMetrics(Limiter limiter) {
        this(limiter, Tags.empty());
    }

    /** Meters for {@code limiter}, tagged {@code limiter=<its name>} and {@code tags}. */
    public WeftLimiterMetrics(Limiter limiter, Iterable<Tag> tags) {
        this.limiter = Objects.requireNonNull(limiter, "limiter");
        this.tags = Tags.of(tags).and("limiter", limiter.name());
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("weft.limiter.in.flight", limiter, Limiter::inUse)
                .tags(tags)
                .description("Permits held now")
                .register(registry);
        Gauge.builder("weft.limiter.waiting", limiter, Limiter::waiting)
                .tags(tags)
                .description("Callers waiting for a permit")
                .register(registry);
        Gauge.builder("weft.limiter.limit", limiter, Limiter::permits)
                .tags(tags)
                .description("Permits: the most callers in at once")
                .register(registry);
        FunctionCounter.builder("weft.limiter.rejected", limiter, Limiter::rejected)
                .tags(tags)
                .description("Callers turned away: no permit and no room to wait, or the wait ran out")
                .register(registry);
    }
}
