package dev.weft.agent;

import dev.weft.pin.PinMonitor;
import dev.weft.pin.StarvationDetector;
import dev.weft.pin.StarvationReport;
import dev.weft.thread.internal.Durations;
import java.lang.System.Logger.Level;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * The detectors one agent started, their counts and the MBean that shows them. The pin monitor
 * logs its own summary by site every interval (with the starvation line when both run); with the
 * starvation detector alone, a daemon thread logs its summary instead. They end with the JVM:
 * their threads are daemons, and JFR closes its streams at exit (stopping the monitor from a
 * shutdown hook would wait for a JFR that is shutting down).
 */
final class AgentRun implements WeftAgentMXBean {

    /** {@code dev.weft.agent}, from parts: the jar's build relocates strings that start with weft's package name. */
    static final String LOGGER = String.join(".", "dev", "weft", "agent");
    /** The starvation detector's threshold when the pin threshold is 0 (which records every pin). */
    private static final Duration SHORTEST_STARVATION = Duration.ofMillis(1);
    /** The canary's shortest period: the library's default. */
    private static final Duration SHORTEST_PERIOD = Duration.ofMillis(10);

    private final AgentOptions options;
    private final PinMonitor monitor; // null when pins are off
    private final StarvationDetector starvation; // the detector alone, when pins are off
    private final LongAdder pins = new LongAdder();
    private final LongAdder pinnedNanos = new LongAdder();
    private long episodesAtLastSummary; // summaries thread only

    private AgentRun(AgentOptions options) {
        this.options = options;
        System.Logger logger = System.getLogger(LOGGER);
        Duration starvedAt =
                options.threshold().compareTo(SHORTEST_STARVATION) < 0 ? SHORTEST_STARVATION : options.threshold();
        if (options.pins()) {
            PinMonitor.Builder b = PinMonitor.builder()
                    .threshold(options.threshold())
                    .summaryEvery(options.interval())
                    .logger(logger)
                    .onPin(p -> {
                        pins.increment();
                        pinnedNanos.add(p.duration().toNanos());
                    });
            if (options.starvation()) {
                b.detectStarvation(starvationDetector(starvedAt));
            }
            this.monitor = b.start();
            this.starvation = null;
        } else {
            this.monitor = null;
            this.starvation = starvationDetector(starvedAt).start();
            ScheduledExecutorService summaries = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "weft-agent-summary");
                t.setDaemon(true);
                return t;
            });
            long every = options.interval().toNanos();
            summaries.scheduleAtFixedRate(() -> logStarvation(logger), every, every, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * The agent's starvation detector: episodes from {@code threshold}; the canary (and, with
     * stacks, JFR's execution samples on JDK 24+) once per threshold, at most every 10 ms. A
     * production agent runs all day: the library's default period (10 ms, twice per default
     * threshold) cost an otherwise idle JVM 2-6% of one core on JDK 21 (decision 0809); once per
     * threshold halves the wake-ups, and a wait of twice the threshold is still always seen.
     */
    static StarvationDetector.Builder starvationDetector(Duration threshold) {
        Duration period = threshold.compareTo(SHORTEST_PERIOD) < 0 ? SHORTEST_PERIOD : threshold;
        return StarvationDetector.builder().threshold(threshold).period(period).sampleStacks(true, period);
    }

    /** Starts the detectors, registers the MBean and logs one INFO line saying so. */
    static AgentRun start(AgentOptions options) {
        AgentRun run = new AgentRun(options);
        try {
            ManagementFactory.getPlatformMBeanServer().registerMBean(run, new ObjectName(OBJECT_NAME));
        } catch (JMException e) {
            System.getLogger(LOGGER)
                    .log(
                            Level.WARNING,
                            "weft agent: could not register " + OBJECT_NAME + " (" + e
                                    + "); the detectors run and log all the same");
        }
        System.getLogger(LOGGER)
                .log(
                        Level.INFO,
                        String.format(
                                Locale.ROOT,
                                "weft agent: watching %s (threshold %s), a summary every %s, MBean %s",
                                options.detectorNames(),
                                Durations.human(options.threshold()),
                                Durations.human(options.interval()),
                                OBJECT_NAME));
        return run;
    }

    AgentOptions options() {
        return options;
    }

    private void logStarvation(System.Logger logger) {
        StarvationReport r = starvation.report();
        long episodes = r.episodes();
        if (episodes == episodesAtLastSummary) {
            logger.log(
                    Level.DEBUG,
                    () -> "weft agent: no carrier starvation in the last " + Durations.human(options.interval()));
            return;
        }
        episodesAtLastSummary = episodes;
        logger.log(
                Level.WARNING, "weft agent: carrier starvation, " + r.toText().strip());
    }

    @Override
    public long getPins() {
        return monitor == null ? -1 : pins.sum();
    }

    @Override
    public double getPinnedMillis() {
        return monitor == null ? -1 : pinnedNanos.sum() / 1e6;
    }

    @Override
    public long getStarvationEpisodes() {
        StarvationReport r = starvationReport();
        return r == null ? -1 : r.episodes();
    }

    @Override
    public double getStarvedMillis() {
        StarvationReport r = starvationReport();
        return r == null ? -1 : r.starved().toNanos() / 1e6;
    }

    private StarvationReport starvationReport() {
        if (starvation != null) {
            return starvation.report();
        }
        return monitor == null ? null : monitor.starvation().orElse(null);
    }

    @Override
    public double getThresholdMillis() {
        return options.threshold().toNanos() / 1e6;
    }

    @Override
    public long getIntervalMillis() {
        return options.interval().toMillis();
    }

    @Override
    public String getDetectors() {
        return options.detectorNames();
    }

    @Override
    public String getReport() {
        StringBuilder b = new StringBuilder();
        if (monitor != null) {
            b.append(monitor.report().toText());
        }
        StarvationReport r = starvationReport();
        if (r != null) {
            b.append(b.isEmpty() ? "" : "\n").append(r.toText());
        }
        return b.toString();
    }
}
