package dev.weft.lab.run;

import dev.weft.lab.Machine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Reads the machine's load and CPU time from {@code /proc} around a scenario: {@link #before()}
 * watches the half second before it starts (the lab idle), {@link #during()} samples the load
 * average every second until {@link Watch#stop()}. Where there is no {@code /proc} (not Linux),
 * every figure is null and nothing is called busy.
 */
final class MachineProbe {

    private static final Path LOADAVG = Path.of("/proc/loadavg");
    private static final Path STAT = Path.of("/proc/stat");
    static final long BEFORE_MS = 500;

    private MachineProbe() {}

    /** CPU jiffies from /proc/stat's "cpu" line: busy (not idle nor iowait), stolen, and all. */
    record Cpu(long busy, long steal, long total) {
        Cpu minus(Cpu o) {
            return new Cpu(busy - o.busy, steal - o.steal, total - o.total);
        }

        Double busyShare() {
            return total <= 0 ? null : (double) busy / total;
        }

        Double stealShare() {
            return total <= 0 ? null : (double) steal / total;
        }
    }

    /** The state before a scenario starts: the load then, and CPU use over the next half second. */
    record Before(Double load, Double busy, Double steal, Cpu cpu) {}

    static Before before() throws InterruptedException {
        Double load = load();
        Cpu a = cpu();
        Thread.sleep(BEFORE_MS);
        Cpu b = cpu();
        Cpu d = a == null || b == null ? null : b.minus(a);
        return new Before(load, d == null ? null : d.busyShare(), d == null ? null : d.stealShare(), b);
    }

    /** A watch over a running scenario. */
    static final class Watch {
        private final Before before;
        private final int cores;
        private final AtomicReference<Double> maxLoad = new AtomicReference<>();
        private final Thread sampler;

        private Watch(Before before, int cores) {
            this.before = before;
            this.cores = cores;
            this.sampler = Thread.ofPlatform()
                    .name("weft-lab-machine")
                    .daemon(true)
                    .start(() -> {
                        try {
                            while (true) {
                                Double l = load();
                                if (l != null) {
                                    maxLoad.accumulateAndGet(l, (x, y) -> x == null ? y : Math.max(x, y));
                                }
                                Thread.sleep(1_000);
                            }
                        } catch (InterruptedException e) {
                            // stopped
                        }
                    });
        }

        /** Ends the watch: the machine's state before and during the scenario. */
        Machine stop() {
            sampler.interrupt();
            Double l = load();
            if (l != null) {
                maxLoad.accumulateAndGet(l, (x, y) -> x == null ? y : Math.max(x, y));
            }
            Cpu end = cpu();
            Double steal = end == null || before.cpu() == null
                    ? null
                    : end.minus(before.cpu()).stealShare();
            boolean busy = before.busy() != null && before.busy() > Machine.BUSY_SHARE;
            return new Machine(before.load(), before.busy(), before.steal(), maxLoad.get(), steal, cores, busy);
        }
    }

    /** Starts watching a scenario that starts now, after {@link #before()}. */
    static Watch during(Before before, int cores) {
        return new Watch(before, cores);
    }

    /** The 1-minute load average, or null. */
    static Double load() {
        try {
            return Double.parseDouble(Files.readString(LOADAVG).strip().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The "cpu" line of /proc/stat, or null. */
    static Cpu cpu() {
        try {
            for (String line : Files.readAllLines(STAT)) {
                if (line.startsWith("cpu ")) {
                    return parse(line);
                }
            }
        } catch (IOException | RuntimeException e) {
            // no /proc: no figures
        }
        return null;
    }

    /** user nice system idle iowait irq softirq steal [guest guest_nice]: guest time is already in user. */
    static Cpu parse(String line) {
        String[] f = line.strip().split("\\s+");
        long[] v = new long[8];
        for (int i = 0; i < 8 && i + 1 < f.length; i++) {
            v[i] = Long.parseLong(f[i + 1]);
        }
        long idle = v[3] + v[4];
        long total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
        return new Cpu(total - idle, v[7], total);
    }
}
