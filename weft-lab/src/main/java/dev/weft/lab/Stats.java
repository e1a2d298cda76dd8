package dev.weft.lab;

import java.util.Arrays;
import java.util.Collection;

/**
 * The statistics every scenario reports with, so that a figure means the same in each: the
 * median of the measured runs (robust to a noisy neighbour, comparable with published means).
 */
public final class Stats {

    private Stats() {}

    /**
     * The median of {@code values}: the middle one, or the mean of the two middle ones.
     *
     * @throws IllegalArgumentException if there are no values
     */
    public static double median(double... values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("the median of no values is undefined; measure at least one run");
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** The median of {@code values}; see {@link #median(double...)}. */
    public static double median(Collection<? extends Number> values) {
        return median(values.stream().mapToDouble(Number::doubleValue).toArray());
    }
}
