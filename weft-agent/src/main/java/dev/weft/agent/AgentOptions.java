package dev.weft.agent;

import dev.weft.thread.internal.Durations;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/**
 * The agent's options, from the text after {@code =} in {@code -javaagent:weft-agent.jar=...}:
 * {@code interval=1m,threshold=20ms,detectors=pins+starvation}, every one optional.
 *
 * @param interval   how often a summary by site is logged (and pins counted in the MBean's report)
 * @param threshold  the shortest pin recorded, and the shortest wait for a carrier that is a
 *                   starvation episode; the starvation canary wakes once per threshold (at most
 *                   every 10 ms), so a longer threshold costs less
 * @param pins       whether the pin monitor runs
 * @param starvation whether the starvation detector runs
 */
record AgentOptions(Duration interval, Duration threshold, boolean pins, boolean starvation) {

    static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);
    static final Duration DEFAULT_THRESHOLD = Duration.ofMillis(20);
    static final String USAGE = "weft-agent options: interval=DURATION (default 1m), threshold=DURATION (default 20ms),"
            + " detectors=pins+starvation (or pins, or starvation); e.g."
            + " -javaagent:weft-agent.jar=interval=30s,threshold=10ms,detectors=pins";

    /**
     * Reads {@code text} (null or blank: every default).
     *
     * @throws IllegalArgumentException naming the option at fault and the forms accepted
     */
    static AgentOptions parse(String text) {
        Duration interval = DEFAULT_INTERVAL;
        Duration threshold = DEFAULT_THRESHOLD;
        Set<String> detectors = Set.of("pins", "starvation");
        if (text != null && !text.isBlank()) {
            for (String option : text.split(",")) {
                int eq = option.indexOf('=');
                if (eq < 0) {
                    throw new IllegalArgumentException("'" + option.strip() + "' has no value. " + USAGE);
                }
                String key = option.substring(0, eq).strip().toLowerCase(Locale.ROOT);
                String value = option.substring(eq + 1).strip();
                switch (key) {
                    case "interval" -> interval = positive("interval", value);
                    case "threshold" -> threshold = duration("threshold", value);
                    case "detectors" -> detectors = detectors(value);
                    default -> throw new IllegalArgumentException("unknown option '" + key + "'. " + USAGE);
                }
            }
        }
        return new AgentOptions(interval, threshold, detectors.contains("pins"), detectors.contains("starvation"));
    }

    private static Duration duration(String key, String value) {
        Duration d;
        try {
            d = Durations.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + ": " + e.getMessage() + ". " + USAGE, e);
        }
        if (d.isNegative()) {
            throw new IllegalArgumentException(key + " must not be negative; got " + value + ". " + USAGE);
        }
        return d;
    }

    private static Duration positive(String key, String value) {
        Duration d = duration(key, value);
        if (d.isZero()) {
            throw new IllegalArgumentException(key + " must be more than 0; got " + value + ". " + USAGE);
        }
        return d;
    }

    private static Set<String> detectors(String value) {
        Set<String> set = new LinkedHashSet<>();
        for (String d : value.split("\\+")) {
            String name = d.strip().toLowerCase(Locale.ROOT);
            if (!name.equals("pins") && !name.equals("starvation")) {
                throw new IllegalArgumentException("unknown detector '" + name + "'. " + USAGE);
            }
            set.add(name);
        }
        return set;
    }

    /** The options as the agent's start-up line and the MBean say them. */
    String detectorNames() {
        return pins && starvation ? "pins+starvation" : pins ? "pins" : "starvation";
    }
}
