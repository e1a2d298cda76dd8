package dev.weft.pin;

import java.time.Instant;
import java.util.List;

/**
 * Where a {@link StarvationDetector} learns what ran on the carriers: JFR execution samples
 * ({@link StarvationSampler}) or thread dumps taken while the canary waits ({@link DumpStacks}).
 */
interface StackSource {

    /** Whether every sample taken before {@code t} has been delivered. */
    boolean deliveredUpTo(Instant t);

    /** The samples of virtual threads taken in {@code [from, to]}. */
    List<SampleWindow.Sample> between(Instant from, Instant to);

    /** Stops sampling. */
    void close();
}
