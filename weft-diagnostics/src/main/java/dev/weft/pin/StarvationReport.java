package dev.weft.pin;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a {@link StarvationDetector} saw: how often and for how long a virtual thread that was
 * ready to run found every carrier busy for longer than the threshold, and the sites where the
 * virtual threads that held the carriers meanwhile were running, most samples first.
 *
 * @param from      when the detector started
 * @param to        when this report was taken
 * @param threshold the scheduling delay counted as starvation
 * @param episodes  how many times the canary waited longer than the threshold
 * @param starved   the canary's waits beyond its due time in those episodes, added up
 * @param max       the longest such wait
 * @param sites        what ran on the carriers during the episodes, aggregated by site
 * @param unattributed how many times the canary was late by the threshold while stacks were taken
 *                     and no virtual thread was on a carrier (the operating system did not run the
 *                     carriers): not episodes, not in {@code starved} or {@code max}
 */
public record StarvationReport(
        Instant from,
        Instant to,
        Duration threshold,
        long episodes,
        Duration starved,
        Duration max,
        List<Site> sites,
        long unattributed) {

    /** Copies the sites. */
    public StarvationReport {
        Objects.requireNonNull(threshold, "threshold");
        sites = List.copyOf(sites);
    }

    /** A report without unattributed delays. */
    public StarvationReport(
            Instant from,
            Instant to,
            Duration threshold,
            long episodes,
            Duration starved,
            Duration max,
            List<Site> sites) {
        this(from, to, threshold, episodes, starved, max, sites, 0);
    }

    /** Whether nothing starved. */
    public boolean isEmpty() {
        return episodes == 0;
    }

    /**
     * Where carriers were held during starvation: the top frames of the virtual threads JFR found
     * running, below the virtual-thread machinery, and how many samples showed them.
     *
     * @param frames  the top frames, innermost first
     * @param samples how many execution samples in starvation episodes showed this site
     */
    public record Site(List<PinFrame> frames, long samples) {

        /** Copies the frames. */
        public Site {
            frames = List.copyOf(frames);
        }

        /** The site as data: {@code samples, frames}. */
        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("samples", samples);
            m.put("frames", frames.stream().map(PinFrame::toMap).toList());
            return m;
        }
    }

    /**
     * The report as data: {@code from, to, threshold_ms, episodes, starved_ms, max_ms, sites, unattributed}.
     */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("from", from.toString());
        m.put("to", to.toString());
        m.put("threshold_ms", PinReport.millis(threshold));
        m.put("episodes", episodes);
        m.put("starved_ms", PinReport.millis(starved));
        m.put("max_ms", PinReport.millis(max));
        m.put("sites", sites.stream().map(Site::toMap).toList());
        m.put("unattributed", unattributed);
        return m;
    }

    /** A headline, then each site with its samples and frames. */
    public String toText() {
        StringBuilder b = new StringBuilder();
        b.append(episodes)
                .append(episodes == 1 ? " starvation episode" : " starvation episodes")
                .append(", ")
                .append(dev.weft.thread.internal.Durations.human(starved))
                .append(" in total, longest ")
                .append(dev.weft.thread.internal.Durations.human(max))
                .append(" (threshold ")
                .append(dev.weft.thread.internal.Durations.human(threshold))
                .append(")");
        if (unattributed > 0) {
            b.append("; ")
                    .append(unattributed)
                    .append(" more late wake-up")
                    .append(unattributed == 1 ? "" : "s")
                    .append(" with no virtual thread on a carrier (the operating system did not run the carriers)");
        }
        int i = 1;
        for (Site s : sites) {
            b.append("\n\n#").append(i++).append("  ").append(s.samples()).append(" samples on a carrier");
            for (PinFrame f : s.frames()) {
                b.append("\n      at ").append(f);
            }
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return toText();
    }
}
