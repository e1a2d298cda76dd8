package dev.weft.junit;

import dev.weft.pin.PinCapture;
import dev.weft.pin.PinReport;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.function.Executable;
import org.opentest4j.AssertionFailedError;

/**
 * Assertions about pinning for a block of code, for where an annotation on the whole test is too
 * coarse. Each runs {@code executable} on a new virtual thread (code that blocks on a platform
 * thread cannot pin) and waits for it, records every pin that happened meanwhile (on any thread,
 * however short; see {@link PinCapture}) and returns the report.
 *
 * <pre>{@code
 * import static dev.weft.junit.PinAssertions.assertNoPinning;
 *
 * @Test
 * void fetchDoesNotPin() {
 *     assertNoPinning(() -> client.fetch(url));
 * }
 * }</pre>
 *
 * <p>Whatever {@code executable} throws is rethrown as it is, after the recording is closed; a
 * broken pinning rule is then attached to it as suppressed.
 */
public final class PinAssertions {

    private static final AtomicInteger CHECKS = new AtomicInteger();

    private PinAssertions() {
    }

    /**
     * Runs {@code executable} and fails, with every pinned stack in the message, if it pinned a
     * virtual thread.
     *
     * @return the report (empty)
     * @throws AssertionFailedError if a virtual thread was pinned
     */
    public static PinReport assertNoPinning(Executable executable) throws Throwable {
        return verify(executable, 0, "the code", true);
    }

    /**
     * Runs {@code executable} and fails if it did not pin a virtual thread at least once.
     *
     * @return the report, with the pins
     * @throws AssertionFailedError if nothing was pinned
     */
    public static PinReport assertPinning(Executable executable) throws Throwable {
        return verify(executable, 1, "the code", true);
    }

    /**
     * Runs {@code executable} under a capture, on a new virtual thread or the caller's, and checks
     * the pins (see {@link #check}). When it throws, that is rethrown, with a broken pinning rule
     * attached as suppressed.
     */
    static PinReport verify(Executable executable, int atLeast, String what, boolean onVirtualThread) throws Throwable {
        PinCapture capture = PinCapture.start();
        try {
            if (onVirtualThread) {
                onVirtualThread(executable);
            } else {
                executable.execute();
            }
        } catch (Throwable t) {
            try {
                check(capture.end(), atLeast, what);
            } catch (AssertionFailedError | RuntimeException e) {
                t.addSuppressed(e);
            }
            throw t;
        }
        PinReport r = capture.end();
        check(r, atLeast, what);
        return r;
    }

    /**
     * Runs {@code executable} on a new virtual thread named {@code weft-pin-check-<n>} and waits for
     * it; rethrows what it threw. If the caller is interrupted meanwhile, the virtual thread is
     * interrupted too and waited for, so that none is left running.
     */
    private static void onVirtualThread(Executable executable) throws Throwable {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = Thread.ofVirtual().name("weft-pin-check-" + CHECKS.incrementAndGet()).start(() -> {
            try {
                executable.execute();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        try {
            t.join();
        } catch (InterruptedException e) {
            t.interrupt();
            boolean done = false;
            while (!done) {
                try {
                    t.join();
                    done = true;
                } catch (InterruptedException again) {
                    // keep waiting: the body was told to stop
                }
            }
            throw e;
        }
        if (thrown.get() != null) {
            throw thrown.get();
        }
    }

    /**
     * Throws when {@code r} breaks the rule: {@code atLeast == 0} allows no pin, a positive
     * {@code atLeast} demands that many.
     */
    static void check(PinReport r, int atLeast, String what) {
        if (atLeast == 0 && r.pins() > 0) {
            throw new AssertionFailedError("expected no pinned virtual threads, but " + what + " pinned "
                    + times(r.pins()) + ":\n" + r.toText());
        }
        if (atLeast > 0 && r.pins() < atLeast) {
            throw new AssertionFailedError("expected " + what + " to pin a virtual thread at least " + times(atLeast)
                    + ", but it pinned " + times(r.pins()) + (r.pins() == 0 ? "" : ":\n" + r.toText()));
        }
    }

    private static String times(long n) {
        return n == 1 ? "once" : n + " times";
    }
}
