package dev.weft.lab.scenarios.pool;

import dev.weft.pin.ThreadDump;
import dev.weft.scheduler.SchedulerSnapshot;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * A variant that did not finish within its bound: the scheduler froze (every carrier held, the
 * virtual threads that would release them never run again) or the pool stalled. What the
 * scenario saw when the bound passed.
 *
 * @param variant   the variant's name
 * @param bound     how long it was given
 * @param completed queries completed by then
 * @param total     queries it was to run
 * @param carriers  the scheduler's carrier threads alive then (parallelism plus those added to
 *                  compensate for carriers held in {@code Object.wait})
 * @param sites     where the started virtual threads stood, most threads first ({@code count x frames}),
 *                  or a sentence saying why there is no thread dump
 * @param dump      the JSON thread dump, or null
 */
record Freeze(String variant, Duration bound, int completed, int total, int carriers, List<String> sites, Path dump) {

    /** The variant stayed frozen even after its borrowers were interrupted: the scenario cannot go on in this JVM. */
    static final class Unrecovered extends Exception {
        private static final long serialVersionUID = 1L;

        final transient Freeze freeze;

        Unrecovered(Freeze freeze, Duration waited) {
            super(freeze.variant() + " froze (" + freeze.summary() + ") and its virtual threads had not ended "
                    + waited.toSeconds() + " s after they were interrupted: every carrier is still held, so no other"
                    + " variant can run in this JVM");
            this.freeze = freeze;
        }
    }

    /**
     * Counts the carriers ({@link SchedulerSnapshot#carrierThreadsNow()}) and, on JDK 21-23, writes a
     * JSON thread dump of every thread (virtual ones included, {@link ThreadDump}) into {@code dumps}
     * and groups the started virtual threads by their top 4 frames (the 5 sites with most threads).
     * Not on JDK 24 and later: there the dump crashed the JVM here once in four runs while virtual
     * threads waited in {@code Object.wait} (SIGSEGV in {@code stackChunkOopDesc::sender},
     * Temurin 25.0.3), and the scheduler does not freeze on a pool there anyway.
     */
    static Freeze diagnose(String variant, Duration bound, int completed, int total, Path dumps) {
        int carriers = SchedulerSnapshot.carrierThreadsNow();
        if (Runtime.version().feature() >= 24) {
            return new Freeze(
                    variant,
                    bound,
                    completed,
                    total,
                    carriers,
                    List.of("no thread dump on JDK 24+ (HotSpotDiagnosticMXBean.dumpThreads crashed the JVM here)"),
                    null);
        }
        Path file = dumps.resolve("frozen-" + variant + ".json");
        try {
            List<String> sites = ThreadDump.write(file).sites(4).stream()
                    .limit(5)
                    .map(s -> s.threads() + " x " + String.join(" <- ", s.frames()))
                    .toList();
            return new Freeze(variant, bound, completed, total, carriers, sites, file);
        } catch (Exception | LinkageError e) {
            return new Freeze(variant, bound, completed, total, carriers, List.of("no thread dump: " + e), null);
        }
    }

    /** One line: what completed, the carriers, the top site. */
    String summary() {
        return String.format(
                Locale.ROOT,
                "%d of %d queries done after %d s, %d carriers; %s",
                completed,
                total,
                bound.toSeconds(),
                carriers,
                sites.isEmpty() ? "no virtual thread started" : sites.getFirst());
    }
}
