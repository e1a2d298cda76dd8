package dev.weft.lab;

import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

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
        int k = orderIndex(n);
        return new Interval(x[k - 1], x[n - k], 1 - 2 * binomialCdf(n, k - 1));
    }

    /**
     * The k of the interval {@code [x(k), x(n-k+1)]} that {@link #median} takes for {@code n}
     * figures: the largest (narrowest interval) whose coverage reaches {@link #LEVEL}, else 1 (the
     * whole range).
     */
    static int orderIndex(int n) {
        // k from the narrowest (middle) outwards: the first whose coverage reaches LEVEL.
        for (int k = n / 2; k >= 1; k--) {
            if (1 - 2 * binomialCdf(n, k - 1) >= LEVEL) {
                return k;
            }
        }
        return 1;
    }

    /**
     * The fewest figures, more than {@code n}, whose {@link #median} interval can be narrower than
     * {@code n}'s: the next count at which {@link #orderIndex} grows (9 after 6, 7 or 8; 12 after
     * 9, 10 or 11). Below it, more figures leave k as it is, and with the same k the interval of a
     * superset can only be as wide or wider: {@code x(k)} of more figures is no higher, {@code
     * x(n-k+1)} no lower. So a round that does not reach this count cannot turn an inconclusive
     * verdict into a decided one (decision 0884).
     *
     * @throws IllegalArgumentException if {@code n} is negative
     */
    public static int roundsToNarrow(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("a count of figures is not negative; got " + n);
        }
        int k = orderIndex(Math.max(n, 1));
        int m = n + 1;
        while (orderIndex(m) <= k) {
            m++;
        }
        return m;
    }

    /**
     * About how many rounds would decide a goal whose {@code figures} (positive, at least 3) leave
     * it inconclusive against {@code target}, if more rounds spread as these do around the same
     * median: the n at which the {@link #median} interval's half-width, about {@code 2.46 s / sqrt(n)}
     * on the logarithms for the sign test at 95% (1.96 x the median's 1.2533 standard errors),
     * falls inside the distance from the median to the target; {@code s} is the logarithms'
     * spread, 1.4826 times their median absolute deviation, so that one stray round does not
     * inflate it. At least one more round than there are. An estimate for the reader (decision
     * 0884), not a rule the lab runs by.
     *
     * @return the estimate, or empty where none can be made: fewer than 3 figures, a figure that is
     *     not positive, figures that do not spread, or a median on the target itself (no number of
     *     rounds decides that)
     */
    public static OptionalLong roundsToDecide(List<Double> figures, double target) {
        if (figures.size() < 3 || !(target > 0) || figures.stream().anyMatch(f -> !(f > 0) || !Double.isFinite(f))) {
            return OptionalLong.empty();
        }
        double[] logs = figures.stream().mapToDouble(Math::log).toArray();
        double median = Stats.median(logs);
        double spread = 1.4826
                * Stats.median(
                        Arrays.stream(logs).map(l -> Math.abs(l - median)).toArray());
        double gap = Math.abs(median - Math.log(target));
        if (spread == 0 || gap == 0) {
            return OptionalLong.empty();
        }
        double n = Math.ceil(Math.pow(HALF_WIDTH_IN_SPREADS * spread / gap, 2));
        return OptionalLong.of(Math.max(figures.size() + 1L, (long) Math.min(n, MOST_ROUNDS_ESTIMATED)));
    }

    /** The sign test's 95% half-width in standard deviations times sqrt(n): 1.96 x sqrt(pi / 2). */
    static final double HALF_WIDTH_IN_SPREADS = 1.96 * Math.sqrt(Math.PI / 2);

    /** Where {@link #roundsToDecide} stops counting: beyond it the figure says only "far too many". */
    public static final long MOST_ROUNDS_ESTIMATED = 1_000_000;

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
