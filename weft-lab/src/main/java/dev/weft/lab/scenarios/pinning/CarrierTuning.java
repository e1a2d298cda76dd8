package dev.weft.lab.scenarios.pinning;

import dev.weft.lab.ChildJvm;
import dev.weft.pin.PinMonitor;
import dev.weft.pin.PinReport;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Locale;

/**
 * The class-init variant in a JVM of its own, started by {@link PinningScenario} with
 * {@code -Djdk.virtualThreadScheduler.parallelism=N}: the scheduler reads that property once,
 * when it is created, so each carrier count needs its own JVM. Runs one operation of
 * {@code threads} tasks with a pin monitor (threshold 0, which also records
 * {@code jdk.VirtualThreadSubmitFailed}) and the bystander, and sends the scenario one message
 * ({@link ChildJvm#tell}): {@code tuned carriers=N tasks_per_s=X pins=N submit_failures=N
 * bystander_p50_ms=X bystander_p99_ms=X}.
 */
public final class CarrierTuning {

    /** The tag of the message with the figures. */
    static final String RESULT = "tuned";

    private CarrierTuning() {}

    /**
     * Runs the measurement.
     *
     * @param args {@code threads}
     */
    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        byte[] classInitBytes;
        try (InputStream in = IoInClassInit.class.getResourceAsStream(IoInClassInit.class.getSimpleName() + ".class")) {
            if (in == null) {
                throw new IOException("cannot read the bytes of " + IoInClassInit.class.getName());
            }
            classInitBytes = in.readAllBytes();
        }
        int carriers = Integer.getInteger(
                "jdk.virtualThreadScheduler.parallelism", Runtime.getRuntime().availableProcessors());
        PinningScenario.operation(
                PinningScenario.Kind.NO_LOCK, Math.min(threads, 50), classInitBytes); // carriers started
        PinMonitor monitor = PinMonitor.builder()
                .threshold(Duration.ZERO)
                .sampleScheduler(Duration.ZERO, 0)
                .start();
        Bystander bystander = Bystander.start(PinningScenario.BYSTANDER_EVERY, PinningScenario.BYSTANDER_SLEEP);
        long start = System.nanoTime();
        double seconds;
        PinReport report;
        Bystander.Latencies latencies;
        try {
            PinningScenario.operation(PinningScenario.Kind.CLASS_INIT, threads, classInitBytes);
            seconds = (System.nanoTime() - start) / 1e9;
        } finally {
            latencies = bystander.stop();
            report = monitor.stop();
        }
        ChildJvm.tell(
                RESULT,
                String.format(
                        Locale.ROOT,
                        "carriers=%d tasks_per_s=%.3f pins=%d submit_failures=%d bystander_p50_ms=%.3f bystander_p99_ms=%.3f",
                        carriers,
                        threads / seconds,
                        report.pins(),
                        report.submitFailures(),
                        latencies.quantile(0.5),
                        latencies.quantile(0.99)));
    }
}
