package dev.weft.lab;

/**
 * The machine's state around one scenario, as {@code results.json} carries it in a scenario's
 * {@code machine} (doc/results.md): a reader believes a miss only on a quiet machine. Read from
 * Linux's {@code /proc/loadavg} and {@code /proc/stat} by the lab's runner, not by the scenario.
 *
 * @param loadBefore      the 1-minute load average when the scenario started
 * @param cpuBusyBefore   the share of all cores busy (0 to 1) in the half second before the scenario
 *                        started, while the lab itself was idle: what other processes used
 * @param stealBefore     the share of CPU time the hypervisor stole (0 to 1) in that half second
 * @param loadDuringMax   the highest 1-minute load average read (every second) while it ran
 * @param stealDuring     the share of CPU time stolen while it ran
 * @param cores           the cores the loads are to be read against
 * @param busy            true when the machine was busy as the scenario started: other processes used
 *                        more than half of the cores ({@code cpuBusyBefore > 0.5}), the lab's own
 *                        load not counted
 */
public record Machine(
        Double loadBefore,
        Double cpuBusyBefore,
        Double stealBefore,
        Double loadDuringMax,
        Double stealDuring,
        int cores,
        boolean busy) {

    /** Busy above this share of all cores. */
    public static final double BUSY_SHARE = 0.5;
}
