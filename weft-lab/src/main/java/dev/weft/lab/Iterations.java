package dev.weft.lab;

import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * The lab's one iteration and warm-up loop, as JMH runs one: warm-up by time (not by a count,
 * which is too little on a fast machine and too much on a slow one), then a measured batch of
 * iterations long enough that a timer's resolution, one collection or one scheduler hiccup is a
 * small part of it. Every scenario that times a body in its own JVM uses it, so "a round" means
 * the same in each.
 *
 * <pre>{@code
 * Iterations.warmUp(Duration.ofSeconds(1), () -> run(n));
 * double ms = Iterations.msPerIteration(Duration.ofMillis(300), 1, () -> run(n));
 * }</pre>
 *
 * A Clojure function is a {@link Callable}: {@code (Iterations/msPerIteration (Duration/ofMillis 300) 1 f)}.
 */
public final class Iterations {

    private Iterations() {}

    /**
     * Runs {@code body} again and again until {@code time} has passed (at least once).
     *
     * @return how many times it ran
     * @throws Exception whatever the body throws
     */
    public static int warmUp(Duration time, Callable<?> body) throws Exception {
        long end = System.nanoTime() + time.toNanos();
        int count = 0;
        do {
            body.call();
            count++;
        } while (System.nanoTime() < end);
        return count;
    }

    /**
     * Runs {@code body} at least {@code minimum} times and until {@code time} has passed, and
     * returns the mean wall time of one run in milliseconds: one measured batch, a round's figure.
     *
     * @throws IllegalArgumentException if {@code minimum} is below 1
     * @throws Exception                whatever the body throws
     */
    public static double msPerIteration(Duration time, int minimum, Callable<?> body) throws Exception {
        if (minimum < 1) {
            throw new IllegalArgumentException("a batch runs its body at least once; got minimum " + minimum);
        }
        long start = System.nanoTime();
        long end = start + time.toNanos();
        int count = 0;
        long now;
        do {
            body.call();
            count++;
            now = System.nanoTime();
        } while (count < minimum || now < end);
        return (now - start) / 1e6 / count;
    }
}
