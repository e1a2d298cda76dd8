package dev.weft.lab;

import java.util.Arrays;
import java.util.List;

/**
 * The confidence interval a goal is decided on: the distribution-free interval for the median of
 * its per-round figures (or paired per-round ratios) from their order statistics, the interval the
 * sign test inverts (decision 0804). For {@code n} sorted figures {@code x(1) <= ... <= x(n)} the
 * interval {@code [x(k), x(n-k+1)]} holds the true median with probability
 * {@code 1 - 2 P(B <= k-1)}, B binomial(n, 1/2), whatever the figures' distribution: no model of
 * the noise, no random resampling, so the same figures always give the same interval.
 *
 * <p>The interval is the narrowest whose level reaches {@link #LEVEL}; fewer than 6 figures cannot
 * reach 95%, so with 2 to 5 the interval is the whole range with the level it has (50% for 2,
 * 75% for 3, 87.5% for 4, 93.75% for 5), and that level is reported beside it.
 */
public final class Confidence {

    /** The level every goal asks for: 95%. */
    public static final double LEVEL = 0.95;

    private Confidence() {}

    /**
     * An interval and the probability that it holds the true median.
     *
     * @param low   its lower end
     * @param high  its upper end
     * @param level its confidence level (0 to 1), or null for a single figure, which is its own interval
     */
    public record Interval(double low, double high, Double level) {}

    /**
     * The interval for the median of {@code figures}.
     *
     * @throws IllegalArgumentException if there are none
     */
    public static Interval median(List<Double> figures) {
        if (figures.isEmpty()) {
            throw new IllegalArgumentException("an interval needs at least one figure");
        }
        double[] x = figures.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(x);
        int n = x.length;
        if (n == 1) {
            return new Interval(x[0], x[0], null);
        }
        // k from the narrowest (middle) outwards: the first whose coverage reaches LEVEL.
        for (int k = n / 2; k >= 1; k--) {
            double coverage = 1 - 2 * binomialCdf(n, k - 1);
            if (coverage >= LEVEL) {
                return new Interval(x[k - 1], x[n - k], coverage);
            }
        }
        return new Interval(x[0], x[n - 1], 1 - 2 * binomialCdf(n, 0));
    }

    /** P(B <= k) for B binomial(n, 1/2). */
    static double binomialCdf(int n, int k) {
        double sum = 0;
        double term = Math.pow(0.5, n); // C(n, 0) / 2^n
        for (int i = 0; i <= k; i++) {
            sum += term;
            term = term * (n - i) / (i + 1);
        }
        return sum;
    }
}
