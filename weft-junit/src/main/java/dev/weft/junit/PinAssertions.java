package dev.weft.junit;

import dev.weft.pin.PinCapture;
import dev.weft.pin.PinReport;
import org.junit.jupiter.api.function.Executable;
import org.opentest4j.AssertionFailedError;

/**
 * Assertions about pinning for a block of code, for where an annotation on the whole test is too
 * coarse. Each runs {@code executable}, records every pin that happened meanwhile (on any thread,
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
        return verify(executable, 0, "the code");
    }

    /**
     * Runs {@code executable} and fails if it did not pin a virtual thread at least once.
     *
     * @return the report, with the pins
     * @throws AssertionFailedError if nothing was pinned
     */
    public static PinReport assertPinning(Executable executable) throws Throwable {
        return verify(executable, 1, "the code");
    }

    /**
     * Runs {@code executable} under a capture and checks the pins (see {@link #check}). When it
     * throws, that is rethrown, with a broken pinning rule attached as suppressed.
     */
    static PinReport verify(Executable executable, int atLeast, String what) throws Throwable {
        PinCapture capture = PinCapture.start();
        try {
            executable.execute();
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
