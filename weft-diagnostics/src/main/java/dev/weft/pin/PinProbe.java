package dev.weft.pin;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jetbrains.annotations.Blocking;

/**
 * Pins a virtual thread on purpose, to check that pin monitoring works: in a deployment (does the
 * alert fire?), in a test of a monitor, or to see what a pin looks like in a report.
 *
 * <p>It blocks inside a class initializer, which pins on every JDK so far (the JVM runs
 * {@code <clinit>} under a native frame the virtual thread cannot unmount past): it defines a
 * fresh hidden copy of a small class whose initializer sleeps, so each call runs it again. The
 * pin's reason reads {@code VM call to dev.weft.pin.ProbeInit.<clinit> on stack} (JDK 24+).
 *
 * <pre>{@code
 * PinCapture capture = monitor.capture();
 * PinProbe.pinVirtualThread(Duration.ofMillis(5));
 * assert capture.end().pins() == 1;
 * }</pre>
 */
public final class PinProbe {

    private static final ThreadLocal<Duration> BLOCK = new ThreadLocal<>();
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final byte[] INIT = initBytes();

    private PinProbe() {}

    /**
     * Blocks the calling thread for {@code duration} inside a class initializer: a virtual thread
     * is pinned meanwhile; a platform thread, which has no carrier to hold, only blocks. An
     * interrupt ends the sleep early and stays set.
     *
     * @throws IllegalArgumentException if {@code duration} is negative
     */
    @Blocking
    public static void pin(Duration duration) {
        Objects.requireNonNull(duration, "duration");
        if (duration.isNegative()) {
            throw new IllegalArgumentException("pin duration must be >= 0; got " + duration);
        }
        BLOCK.set(duration);
        try {
            MethodHandles.lookup().defineHiddenClass(INIT, true);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot define the probe's class: " + e, e);
        } finally {
            BLOCK.remove();
        }
    }

    /**
     * Starts a virtual thread named {@code weft-pin-probe-<n>}, pins it for {@code duration} (see
     * {@link #pin}) and waits for it to end.
     *
     * @throws InterruptedException if interrupted while waiting (the probe thread is interrupted too)
     */
    @Blocking
    public static void pinVirtualThread(Duration duration) throws InterruptedException {
        Objects.requireNonNull(duration, "duration");
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread t = Thread.ofVirtual()
                .name("weft-pin-probe-" + THREADS.incrementAndGet())
                .start(() -> {
                    try {
                        pin(duration);
                    } catch (Throwable e) {
                        failed.set(e);
                    }
                });
        try {
            t.join();
        } catch (InterruptedException e) {
            t.interrupt();
            throw e;
        }
        if (failed.get() instanceof RuntimeException e) {
            throw e;
        }
        if (failed.get() instanceof Error e) {
            throw e;
        }
    }

    /** Called by {@link ProbeInit}'s initializer: the blocking that pins. */
    static void blockInInitializer() {
        Duration d = BLOCK.get();
        if (d == null || d.isZero()) {
            return;
        }
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static byte[] initBytes() {
        try (InputStream in = ProbeInit.class.getResourceAsStream("ProbeInit.class")) {
            if (in == null) {
                throw new IllegalStateException("dev/weft/pin/ProbeInit.class is missing from weft-core's jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read dev/weft/pin/ProbeInit.class", e);
        }
    }
}
