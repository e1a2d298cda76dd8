package dev.weft;

import java.util.concurrent.TimeUnit;

/** What the stress tier's tests share: how long to run, and a busy wait. */
public final class StressSupport {

    private StressSupport() {}

    /**
     * The {@link System#nanoTime()} at which a stress test stops starting rounds: now plus
     * {@code -Dweft.stress.seconds} (default 20), which build/test/stress.sh sets.
     */
    public static long deadline() {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.getLong("weft.stress.seconds", 20));
    }

    /** Spins about {@code n} times, to hold something for a random, short while without parking. */
    public static void spin(int n) {
        for (int i = 0; i < n; i++) {
            Thread.onSpinWait();
        }
    }
}
