package dev.weft.pin;

import dev.weft.context.Context;
import dev.weft.thread.ThreadPolicy;
import dev.weft.thread.WeftThreads;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.jetbrains.annotations.Blocking;

/**
 * A pin check: runs a body under a {@link PinCapture} and holds its pins against a rule, no pin
 * at all or at least {@code n}. weft's test assertions are this one implementation: weft-junit's
 * {@code @NoPins}, {@code @ExpectPins} and {@code PinAssertions}, and Clojure's
 * {@code weft.pin/no-pins?} and {@code pins?}.
 *
 * <p>The body runs on a new virtual thread named {@code weft-pin-check-<n>}, with the caller's
 * context keys, while the caller waits (code that blocks on a platform thread cannot pin, so this
 * is where "would it pin?" has an answer); or, when asked, on the caller's own thread, for bodies
 * tied to it (a transaction), where only the virtual threads the body starts can pin. If the
 * caller is interrupted while it waits, the body's thread is interrupted too and waited for, so
 * that no body is left running, and the caller gets the {@link InterruptedException}.
 *
 * <pre>{@code
 * PinReport pins = PinCheck.capture(() -> cache.load("k"), PinCheck.BodyThread.VIRTUAL);   // the pins, as data
 * PinCheck.verify(() -> cache.load("k"), 0, "cache.load", PinCheck.BodyThread.VIRTUAL,
 *         AssertionError::new);                                                   // or a failure
 * }</pre>
 *
 * <p>A check counts the pins of the code under test: a pin on a thread of the JDK's own
 * machinery, caused by the one-time initialization of a JDK class the body only triggered
 * (JDK 25's socket pollers starting at the first virtual-thread socket I/O), or a wait for a
 * monitor inside a section the JVM or the JDK pinned for itself (class loading), is listed apart in
 * the report ({@link PinReport#notCounted()}) and fails nothing (decision 0206).
 *
 * <p>Memory consistency effects: actions of the body happen-before the check returns or throws.
 */
public final class PinCheck {

    private static final ThreadFactory THREADS = WeftThreads.factory("pin-check", ThreadPolicy.VIRTUAL);
    /** {@code atLeast} for a capture, which holds the pins against no rule. */
    private static final int NO_RULE = -1;

    private static final AtomicBoolean WARNED_BOOLEAN = new AtomicBoolean();

    private PinCheck() {}

    /**
     * Which thread runs a check's body; Clojure's {@code :thread :virtual} and {@code :caller}.
     */
    public enum BodyThread {
        /**
         * A new virtual thread named {@code weft-pin-check-<n>}, with the caller's context keys,
         * while the caller waits: where "would it pin?" has an answer.
         */
        VIRTUAL,
        /**
         * The calling thread, for bodies tied to it (a transaction); only the virtual threads the
         * body starts can pin, unless the caller is itself virtual.
         */
        CALLER
    }

    /** The code a check runs: anything that may throw. */
    @FunctionalInterface
    public interface Body {
        /** Runs the body. */
        void run() throws Throwable;
    }

    /**
     * Runs {@code body} and returns every pin that happened meanwhile, on any thread (the JDK's
     * own listed apart, uncounted). What the body throws is rethrown once the capture has ended.
     *
     * @param thread the thread that runs the body
     * @throws InterruptedException  if the caller was interrupted while the body ran on its
     *                               virtual thread (which was interrupted and has ended)
     * @throws IllegalStateException if JFR is not available or the recording could not be read
     */
    @Blocking
    public static PinReport capture(Body body, BodyThread thread) throws Throwable {
        return check(body, NO_RULE, "the code", thread, IllegalStateException::new);
    }

    /**
     * Runs {@code body} on a new virtual thread (true) or the caller's (false).
     *
     * @deprecated a boolean does not say which thread; use {@link #capture(Body, BodyThread)}
     */
    @Deprecated(since = "0.1.0")
    @Blocking
    public static PinReport capture(Body body, boolean onVirtualThread) throws Throwable {
        warnBoolean();
        return capture(body, thread(onVirtualThread));
    }

    /**
     * Runs {@code body} and checks its pins: {@code atLeast} 0 allows none, a positive
     * {@code atLeast} demands that many. A broken rule throws {@code failure} applied to a message
     * with the whole report (every pinned stack, and the pins not counted with why); when the body
     * itself throws, that is rethrown instead, with the broken rule's exception attached as
     * suppressed.
     *
     * @param what    what ran, for the message ("the test", "the code")
     * @param thread  the thread that runs the body
     * @param failure makes the exception for a broken rule from its message (a test framework's
     *                assertion error)
     * @return the report, when the rule holds
     * @throws IllegalArgumentException if {@code atLeast} is negative
     * @throws InterruptedException     as for {@link #capture(Body, BodyThread)}
     */
    @Blocking
    public static PinReport verify(
            Body body, int atLeast, String what, BodyThread thread, Function<String, ? extends Throwable> failure)
            throws Throwable {
        if (atLeast < 0) {
            throw new IllegalArgumentException(
                    "atLeast must be 0 (no pin allowed) or more (pins demanded); got " + atLeast);
        }
        return check(body, atLeast, what, thread, failure);
    }

    /**
     * {@link #verify(Body, int, String, BodyThread, Function)} on a new virtual thread (true) or
     * the caller's (false).
     *
     * @deprecated a boolean does not say which thread; use the {@link BodyThread} form
     */
    @Deprecated(since = "0.1.0")
    @Blocking
    public static PinReport verify(
            Body body, int atLeast, String what, boolean onVirtualThread, Function<String, ? extends Throwable> failure)
            throws Throwable {
        warnBoolean();
        return verify(body, atLeast, what, thread(onVirtualThread), failure);
    }

    private static BodyThread thread(boolean onVirtualThread) {
        return onVirtualThread ? BodyThread.VIRTUAL : BodyThread.CALLER;
    }

    private static void warnBoolean() {
        if (WARNED_BOOLEAN.compareAndSet(false, true)) {
            System.getLogger(PinCheck.class.getName())
                    .log(
                            System.Logger.Level.WARNING,
                            "PinCheck.capture/verify with a boolean for the body's thread is deprecated:"
                                    + " pass PinCheck.BodyThread.VIRTUAL or CALLER (this warning is given once)");
        }
    }

    private static PinReport check(
            Body body, int atLeast, String what, BodyThread thread, Function<String, ? extends Throwable> failure)
            throws Throwable {
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(thread, "thread");
        Objects.requireNonNull(what, "what");
        Objects.requireNonNull(failure, "failure");
        PinCapture capture = PinCapture.start();
        try {
            if (thread == BodyThread.VIRTUAL) {
                onVirtualThread(body);
            } else {
                body.run();
            }
        } catch (Throwable t) {
            try {
                violation(capture.end(), atLeast, what).ifPresent(m -> t.addSuppressed(failure.apply(m)));
            } catch (RuntimeException e) {
                t.addSuppressed(e);
            }
            throw t;
        }
        PinReport r = capture.end();
        Optional<String> broken = violation(r, atLeast, what);
        if (broken.isPresent()) {
            throw failure.apply(broken.get());
        }
        return r;
    }

    /** Runs {@code body} on a new virtual thread and waits for it; rethrows what it threw. */
    private static void onVirtualThread(Body body) throws Throwable {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = THREADS.newThread(Context.wrap(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                thrown.set(e);
            }
        }));
        t.start();
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
                    // keep waiting: the body was told to stop, and must not outlive the check
                }
            }
            throw e;
        }
        if (thrown.get() != null) {
            throw thrown.get();
        }
    }

    /** The message for a report that breaks the rule, or empty. */
    private static Optional<String> violation(PinReport r, int atLeast, String what) {
        if (atLeast == 0 && r.pins() > 0) {
            return Optional.of("expected no pinned virtual threads, but " + what + " pinned " + times(r.pins()) + ":\n"
                    + r.toText().stripTrailing());
        }
        if (atLeast > 0 && r.pins() < atLeast) {
            return Optional.of("expected " + what + " to pin a virtual thread at least " + times(atLeast)
                    + ", but it pinned " + times(r.pins()) + (r.pins() == 0 ? "" : ":\n" + r.toText())
                    + JFR_BLIND_SPOT);
        }
        return Optional.empty();
    }

    /**
     * Said when demanded pins are missing on JDK 21-23: there, {@code Object.wait} inside
     * {@code synchronized} holds the carrier (the scheduler compensates with another) but JFR
     * records no {@code jdk.VirtualThreadPinned} event, so no recording can count it.
     */
    static final String JFR_BLIND_SPOT = Runtime.version().feature() >= 24
            ? ""
            : "\n(on JDK " + Runtime.version().feature() + ", Object.wait holds the carrier without any JFR pin event,"
                    + " so a check cannot count it; ./weft audit finds Object.wait in bytecode: see doc/pinning.md)";

    private static String times(long n) {
        return n == 1 ? "once" : n + " times";
    }
}
