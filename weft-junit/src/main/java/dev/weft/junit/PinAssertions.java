package dev.weft.junit;

import dev.weft.pin.PinCheck;
import dev.weft.pin.PinReport;
import org.jetbrains.annotations.Blocking;
import org.junit.jupiter.api.function.Executable;
import org.opentest4j.AssertionFailedError;

/**
 * Assertions about pinning for a block of code, for where an annotation on the whole test is too
 * coarse. Each runs {@code executable} on a new virtual thread named {@code weft-pin-check-<n>}
 * with the caller's context keys (code that blocks on a platform thread cannot pin) and waits for
 * it, records every pin that happened meanwhile (on any thread, however short; see
 * {@link dev.weft.pin.PinCapture}) and returns the report. If the caller is interrupted
 * meanwhile, the executable's thread is interrupted and waited for. These are
 * {@link PinCheck}s, the same checks as Clojure's {@code weft.pin/no-pins?} and {@code pins?}.
 *
 * <pre>{@code
 * import static dev.weft.junit.PinAssertions.assertNoPins;
 *
 * @Test
 * void fetchDoesNotPin() {
 *     assertNoPins(() -> client.fetch(url));
 * }
 * }</pre>
 *
 * <p>Whatever {@code executable} throws is rethrown as it is, after the recording is closed; a
 * broken pinning rule is then attached to it as suppressed.
 */
public final class PinAssertions {

    private PinAssertions() {}

    /**
     * Runs {@code executable} and fails, with every pinned stack in the message, if it pinned a
     * virtual thread.
     *
     * @return the report (empty)
     * @throws AssertionFailedError if a virtual thread was pinned
     */
    @Blocking
    public static PinReport assertNoPins(Executable executable) throws Throwable {
        return verify(executable, 0, "the code", true);
    }

    /**
     * Runs {@code executable} and fails if it did not pin a virtual thread at least once.
     *
     * @return the report, with the pins
     * @throws AssertionFailedError if nothing was pinned
     */
    @Blocking
    public static PinReport assertPins(Executable executable) throws Throwable {
        return verify(executable, 1, "the code", true);
    }

    /**
     * Runs {@code executable} under a pin check, on a new virtual thread or the caller's, and
     * fails with an {@link AssertionFailedError} when its pins break the rule ({@code atLeast} 0:
     * none; more: at least that many). When it throws, that is rethrown, with a broken rule
     * attached as suppressed. One implementation with Clojure's checks: {@link PinCheck#verify}.
     */
    static PinReport verify(Executable executable, int atLeast, String what, boolean onVirtualThread) throws Throwable {
        return PinCheck.verify(
                executable::execute,
                atLeast,
                what,
                onVirtualThread ? PinCheck.BodyThread.VIRTUAL : PinCheck.BodyThread.CALLER,
                AssertionFailedError::new);
    }
}
