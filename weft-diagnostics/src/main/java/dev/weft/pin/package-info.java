/**
 * Pinned virtual threads made visible: a JFR-based {@link dev.weft.pin.PinMonitor} that
 * aggregates pins by {@link dev.weft.pin.PinSite site} (pinned reason and top frames), calls back
 * per {@link dev.weft.pin.PinEvent pin}, logs periodic summaries, samples the scheduler's health
 * and reports as data and text ({@link dev.weft.pin.PinReport}); and exact
 * {@link dev.weft.pin.PinCapture captures} for test assertions; carrier starvation
 * ({@link dev.weft.pin.StarvationDetector}); and where virtual threads stand, from a thread dump
 * ({@link dev.weft.pin.ThreadDump}).
 *
 * <p>The package needs the {@code jdk.jfr} module at run time (every standard JDK has it);
 * {@link dev.weft.pin.PinMonitor#isAvailable()} says whether this JVM can run a monitor.
 */
package dev.weft.pin;
