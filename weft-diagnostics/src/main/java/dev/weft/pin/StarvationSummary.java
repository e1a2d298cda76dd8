package dev.weft.pin;

import dev.weft.thread.internal.Durations;

/** The starvation part of a {@link PinMonitor}'s periodic summary. */
final class StarvationSummary {

    private StarvationSummary() {}

    /** {@code "; starvation: N episodes, T waited for a carrier (site)"}, or "" without a detector. */
    static String line(StarvationDetector d) {
        if (d == null) {
            return "";
        }
        StarvationReport r = d.report();
        String site = r.sites().isEmpty() || r.sites().getFirst().frames().isEmpty()
                ? ""
                : " at " + r.sites().getFirst().frames().getFirst();
        return "; starvation: " + r.episodes() + (r.episodes() == 1 ? " episode, " : " episodes, ")
                + Durations.human(r.starved()) + " waited for a carrier since start" + site;
    }
}
