package dev.weft.pin;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/** The samples of the last {@code keep}, oldest first; thread-safe. */
final class SampleWindow {

    /** A virtual thread seen on a carrier at {@code at}, its frames innermost first. */
    record Sample(Instant at, List<PinFrame> frames) {}

    private final ArrayDeque<Sample> samples = new ArrayDeque<>();
    private final Duration keep;

    SampleWindow(Duration keep) {
        this.keep = keep;
    }

    /** Adds a sample (in time order) and forgets those older than {@code keep} before it. */
    void add(Sample s) {
        synchronized (samples) {
            samples.addLast(s);
            Instant old = s.at().minus(keep);
            while (!samples.isEmpty() && samples.peekFirst().at().isBefore(old)) {
                samples.pollFirst();
            }
        }
    }

    /** The samples taken in {@code [from, to]}. */
    List<Sample> between(Instant from, Instant to) {
        List<Sample> out = new ArrayList<>();
        synchronized (samples) {
            for (Sample s : samples) {
                if (!s.at().isBefore(from) && !s.at().isAfter(to)) {
                    out.add(s);
                }
            }
        }
        return out;
    }
}
