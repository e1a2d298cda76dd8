package dev.weft.lab;

/**
 * What a JVM's memory did while a variant ran, as {@code results.json} carries it in a variant's
 * {@code memory} (see {@code doc/results.md}): a regression in memory is then seen as one in speed is.
 *
 * @param gcPauseMs      the collector's pause time in the window, in milliseconds (the pause beans of
 *                       ZGC and Shenandoah; every collector bean of G1, Parallel and Serial, whose times
 *                       are pauses)
 * @param gcCount        the collections (pauses) in the window
 * @param peakHeapBytes  the heap's peak in the window: the sum of every heap pool's peak usage since the
 *                       window opened (an upper bound: the pools may peak at different moments)
 * @param allocatedBytes the bytes allocated on the heap in the window by every thread of the JVM
 *                       (virtual threads' allocations count on their carriers), or null where the JVM
 *                       does not tell
 * @param jvm            whose JVM: {@code scenario} (the scenario's own) or a helper's label (e.g. the
 *                       server JVM {@code weft-ring})
 */
public record Memory(double gcPauseMs, long gcCount, long peakHeapBytes, Long allocatedBytes, String jvm) {

    /**
     * Two windows of the same variant together: pauses, counts and allocations add up, the peak is
     * the higher of the two.
     */
    public Memory plus(Memory other) {
        Long alloc =
                allocatedBytes == null || other.allocatedBytes == null ? null : allocatedBytes + other.allocatedBytes;
        return new Memory(
                gcPauseMs + other.gcPauseMs,
                gcCount + other.gcCount,
                Math.max(peakHeapBytes, other.peakHeapBytes),
                alloc,
                jvm);
    }
}
