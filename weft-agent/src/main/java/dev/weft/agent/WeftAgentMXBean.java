package dev.weft.agent;

/**
 * What the weft agent registers on the platform MBean server as {@code dev.weft:type=Agent}
 * (JConsole, VisualVM, or any JMX client): the counts since the JVM started.
 */
public interface WeftAgentMXBean {

    /**
     * The name it is registered under, {@code dev.weft:type=Agent}. Built from parts because the
     * jar's build relocates every string that starts with weft's package name.
     */
    String OBJECT_NAME = String.join(".", "dev", "weft") + ":type=Agent";

    /** Pins recorded since start (at least {@link #getThresholdMillis()} long); -1 when the pin monitor is off. */
    long getPins();

    /** Their durations added up, in milliseconds; -1 when the pin monitor is off. */
    double getPinnedMillis();

    /** Starvation episodes since start; -1 when the starvation detector is off. */
    long getStarvationEpisodes();

    /** How long virtual threads waited for a carrier in those episodes, in milliseconds; -1 when off. */
    double getStarvedMillis();

    /** The threshold of both detectors, in milliseconds. */
    double getThresholdMillis();

    /** How often a summary is logged, in milliseconds. */
    long getIntervalMillis();

    /** Which detectors run: {@code pins+starvation}, {@code pins} or {@code starvation}. */
    String getDetectors();

    /**
     * The pins since start by site and the starvation report, as text. Takes up to about a second:
     * the pin monitor waits for JFR to deliver what happened before the call.
     */
    String getReport();
}
