package dev.weft.lab.run;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * A scenario's registration, read from {@code META-INF/weft/scenarios/<name>.properties}.
 *
 * <p>Keys: {@code name}, {@code article} (the article's number, which orders the lab),
 * {@code title}, {@code source} (article title and URL), {@code run}
 * ({@code java:<class>} or {@code clojure:<ns>/<fn>}), and optionally {@code jvm_args}
 * (space-separated options for the scenario's JVM), {@code timeout_quick_s},
 * {@code timeout_full_s} and {@code timeout_smoke_s} (after which the runner ends it), and
 * {@code budget_quick_s} and {@code budget_full_s}: the time the scenario is designed to take in
 * that mode, JVM start included. The quick lab's budgets add up to at most 5 minutes on 2 cores (less the runner's time);
 * the runner reports a scenario that overran its budget (it is not failed for it).
 */
public record Descriptor(
        String name,
        String article,
        String title,
        String source,
        String run,
        List<String> jvmArgs,
        int timeoutSmokeSeconds,
        int timeoutQuickSeconds,
        int timeoutFullSeconds,
        Integer budgetQuickSeconds,
        Integer budgetFullSeconds) {

    /** Reads a descriptor; {@code origin} names where it came from in error messages. */
    static Descriptor read(InputStream in, String origin) throws IOException {
        Properties p = new Properties();
        p.load(in);
        String jvmArgs = p.getProperty("jvm_args", "").strip();
        return new Descriptor(
                required(p, "name", origin),
                required(p, "article", origin),
                required(p, "title", origin),
                required(p, "source", origin),
                required(p, "run", origin),
                jvmArgs.isEmpty() ? List.of() : Arrays.asList(jvmArgs.split("\\s+")),
                seconds(p, "timeout_smoke_s", 120, origin),
                seconds(p, "timeout_quick_s", 240, origin),
                seconds(p, "timeout_full_s", 3600, origin),
                optionalSeconds(p, "budget_quick_s", origin),
                optionalSeconds(p, "budget_full_s", origin));
    }

    /** The timeout for a run in {@code mode}. */
    public int timeoutSeconds(dev.weft.lab.Mode mode) {
        return switch (mode) {
            case SMOKE -> timeoutSmokeSeconds;
            case QUICK -> timeoutQuickSeconds;
            case FULL -> timeoutFullSeconds;
        };
    }

    /** The time budget for a run in {@code mode}, or null (smoke runs have none). */
    public Integer budgetSeconds(dev.weft.lab.Mode mode) {
        return switch (mode) {
            case SMOKE -> null;
            case QUICK -> budgetQuickSeconds;
            case FULL -> budgetFullSeconds;
        };
    }

    private static Integer optionalSeconds(Properties p, String key, String origin) {
        return p.getProperty(key) == null ? null : seconds(p, key, 0, origin);
    }

    private static String required(Properties p, String key, String origin) {
        String v = p.getProperty(key);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(origin + ": missing \"" + key + "\"");
        }
        return v.strip();
    }

    private static int seconds(Properties p, String key, int fallback, String origin) {
        String v = p.getProperty(key);
        if (v == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(origin + ": \"" + key + "\" must be a number of seconds; got " + v);
        }
    }
}
