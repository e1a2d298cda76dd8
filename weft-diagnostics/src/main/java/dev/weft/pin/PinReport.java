package dev.weft.pin;

import dev.weft.pin.internal.PinAggregator;
import dev.weft.scheduler.SchedulerSamples;
import dev.weft.thread.internal.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What a {@link PinMonitor} saw over a period: pins aggregated by site (most carrier time lost
 * first), failed virtual-thread submissions, and the scheduler's health.
 *
 * <p>A report is an immutable value: {@link #toMap()} gives it as data (for JSON and Clojure),
 * {@link #toText()} as text for people.
 *
 * @param from           the start of the period
 * @param to             the end of the period
 * @param threshold      pins shorter than this were not recorded
 * @param pins           how many pins, over all sites
 * @param pinned         their durations added up
 * @param sites          the sites, most total duration first
 * @param otherPins      pins left out of {@code sites} because the monitor's site limit was reached
 * @param submitFailures how many times a virtual thread could not be scheduled
 *                       ({@code jdk.VirtualThreadSubmitFailed}: the carrier pool was exhausted)
 * @param submitFailureMessages the distinct messages of those failures (at most 10)
 * @param scheduler      the scheduler's figures over the period, or null when not sampled
 * @param notCounted     pins a check saw but did not count, as the JDK's own (see
 *                       {@link UncountedPin}); always empty in a monitor's report, which counts
 *                       every pin
 */
public record PinReport(
        Instant from,
        Instant to,
        Duration threshold,
        long pins,
        Duration pinned,
        List<PinSite> sites,
        long otherPins,
        long submitFailures,
        List<String> submitFailureMessages,
        SchedulerSamples scheduler,
        List<UncountedPin> notCounted) {

    /** @throws NullPointerException if a required component is null */
    public PinReport {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(threshold, "threshold");
        Objects.requireNonNull(pinned, "pinned");
        sites = List.copyOf(sites);
        submitFailureMessages = List.copyOf(submitFailureMessages);
        notCounted = List.copyOf(notCounted);
    }

    /** A report with no uncounted pins: the form before {@code notCounted} existed. */
    public PinReport(
            Instant from,
            Instant to,
            Duration threshold,
            long pins,
            Duration pinned,
            List<PinSite> sites,
            long otherPins,
            long submitFailures,
            List<String> submitFailureMessages,
            SchedulerSamples scheduler) {
        this(
                from,
                to,
                threshold,
                pins,
                pinned,
                sites,
                otherPins,
                submitFailures,
                submitFailureMessages,
                scheduler,
                List.of());
    }

    /** This report with {@code notCounted} as its uncounted pins. */
    PinReport withNotCounted(List<UncountedPin> notCounted) {
        return new PinReport(
                from,
                to,
                threshold,
                pins,
                pinned,
                sites,
                otherPins,
                submitFailures,
                submitFailureMessages,
                scheduler,
                notCounted);
    }

    /** True when nothing was pinned and no submission failed. */
    public boolean isEmpty() {
        return pins == 0 && submitFailures == 0;
    }

    /**
     * The report as data: {@code from, to, threshold_ms, pins, pinned_ms, sites (see
     * PinSite.toMap), other_pins, submit_failures, submit_failure_messages, scheduler (see
     * SchedulerSamples.toMap, or null), not_counted (see UncountedPin.toMap)}.
     */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("from", from.toString());
        m.put("to", to.toString());
        m.put("threshold_ms", millis(threshold));
        m.put("pins", pins);
        m.put("pinned_ms", millis(pinned));
        m.put("sites", sites.stream().map(PinSite::toMap).toList());
        m.put("other_pins", otherPins);
        m.put("submit_failures", submitFailures);
        m.put("submit_failure_messages", submitFailureMessages);
        m.put("scheduler", scheduler == null ? null : scheduler.toMap());
        m.put("not_counted", notCounted.stream().map(UncountedPin::toMap).toList());
        return m;
    }

    /**
     * The report for people: a headline, then each site with its count, durations, reason and
     * frames, then submit failures, the pins not counted (each with its thread and why) and the
     * scheduler line. For example:
     *
     * <pre>
     * 3 pins at 1 site, 31.2 ms pinned in total (threshold 0 ms, 2.1 s observed)
     *
     * #1  3 pins, 31.2 ms total, max 10.6 ms: VM call to com.acme.Config.&lt;clinit&gt; on stack
     *     blocking: LockSupport.park
     *       at java.lang.Thread.sleep(line 540)
     *       at com.acme.Config.&lt;clinit&gt;(line 12)
     * </pre>
     */
    public String toText() {
        StringBuilder b = new StringBuilder();
        Duration observed = Duration.between(from, to);
        if (pins == 0) {
            b.append("no pins");
        } else {
            b.append(pins)
                    .append(pins == 1 ? " pin at " : " pins at ")
                    .append(sites.size())
                    .append(sites.size() == 1 ? " site, " : " sites, ")
                    .append(Durations.human(pinned))
                    .append(" pinned in total");
        }
        b.append(" (threshold ")
                .append(Durations.human(threshold))
                .append(", ")
                .append(Durations.human(observed))
                .append(" observed)\n");
        int i = 1;
        for (PinSite s : sites) {
            b.append('\n')
                    .append(String.format(
                            Locale.ROOT,
                            "#%-2d %d %s, %s total, max %s: %s\n",
                            i++,
                            s.count(),
                            s.count() == 1 ? "pin" : "pins",
                            Durations.human(s.total()),
                            Durations.human(s.max()),
                            s.reason() == null ? "pinned (JFR gives no reason before JDK 24)" : s.reason()));
            if (s.blockingOperation() != null) {
                b.append("    blocking: ").append(s.blockingOperation()).append('\n');
            }
            if (s.frames().isEmpty()) {
                b.append("      (no stack trace recorded)\n");
            }
            for (PinFrame f : s.frames()) {
                b.append("      at ").append(f).append('\n');
            }
        }
        if (otherPins > 0) {
            b.append('\n').append(otherPins).append(" more pins at sites beyond the monitor's site limit\n");
        }
        if (submitFailures > 0) {
            b.append('\n')
                    .append(submitFailures)
                    .append(" virtual threads could not be scheduled" + " (jdk.VirtualThreadSubmitFailed): ")
                    .append(String.join("; ", submitFailureMessages))
                    .append('\n');
        }
        if (!notCounted.isEmpty()) {
            b.append('\n')
                    .append(notCounted.size())
                    .append(notCounted.size() == 1 ? " pin" : " pins")
                    .append(" not counted, the JDK's own and not the code's under test:\n");
            for (UncountedPin u : notCounted) {
                PinEvent p = u.pin();
                b.append("  - ")
                        .append(Durations.human(p.duration()))
                        .append(": ")
                        .append(u.why())
                        .append('\n');
                if (p.reason() != null) {
                    b.append("    ").append(p.reason()).append('\n');
                }
                for (PinFrame f : PinAggregator.siteFrames(p.frames(), 3)) {
                    b.append("      at ").append(f).append('\n');
                }
            }
        }
        if (scheduler != null) {
            b.append("\nscheduler: ").append(scheduler.summary()).append('\n');
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return toText();
    }

    /** Milliseconds with microsecond precision, for data. */
    static double millis(Duration d) {
        return Math.round(d.toNanos() / 1_000.0) / 1_000.0;
    }
}
