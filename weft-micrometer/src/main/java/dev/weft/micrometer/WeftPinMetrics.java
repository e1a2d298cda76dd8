package dev.weft.micrometer;

import dev.weft.pin.PinEvent;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Pins seen by a {@link dev.weft.pin.PinMonitor}, as a Micrometer timer {@value #PINS} tagged
 * {@code reason} (the JFR {@code pinnedReason}): its count is the number of pins, its total time
 * the time virtual threads spent pinned, its max the longest pin. Give it to the monitor as its
 * {@code onPin} callback and bind it to your registry:
 *
 * <pre>{@code
 * WeftPinMetrics pins = new WeftPinMetrics();
 * pins.bindTo(registry);
 * PinMonitor monitor = PinMonitor.builder().onPin(pins).start();
 * }</pre>
 *
 * <p>Only pins longer than the monitor's threshold are seen (JFR's default, 20 ms). Pins before
 * {@link #bindTo} are not recorded. At most {@value #MAX_REASONS} distinct reasons are tags of
 * their own; pins with further reasons share the tag {@code other}, so a reason that names classes
 * cannot grow the registry without bound.
 */
public final class WeftPinMetrics implements MeterBinder, Consumer<PinEvent> {

    /** The timer's name. */
    public static final String PINS = "weft.pins";

    /** Distinct {@code reason} tag values before the rest are {@code other}. */
    public static final int MAX_REASONS = 64;

    private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();
    private final Set<String> reasons = ConcurrentHashMap.newKeySet();

    @Override
    public void bindTo(MeterRegistry registry) {
        registries.add(Objects.requireNonNull(registry, "registry"));
    }

    /** Records one pin in every registry this is bound to (the monitor calls it). */
    @Override
    public void accept(PinEvent pin) {
        String reason = tag(pin.reason());
        for (MeterRegistry r : registries) {
            Timer.builder(PINS)
                    .description("Virtual threads pinned to their carrier longer than the pin monitor's threshold")
                    .tag("reason", reason)
                    .register(r)
                    .record(pin.duration());
        }
    }

    private String tag(String reason) {
        String r = reason == null || reason.isBlank() ? "unknown" : reason;
        if (reasons.contains(r)) {
            return r;
        }
        synchronized (reasons) {
            if (reasons.size() < MAX_REASONS) {
                reasons.add(r);
                return r;
            }
        }
        return "other";
    }
}
