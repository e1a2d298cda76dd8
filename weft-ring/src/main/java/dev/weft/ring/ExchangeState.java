package dev.weft.ring;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The state of an {@link Exchange}, in one word changed by compare-and-set: who answers its
 * request, and when it is finished.
 *
 * <p>Two states, each moving one way:
 * <ul>
 *   <li><b>Answer</b>: UNANSWERED, then {@link #ANSWERED}. Several parties may want to answer a
 *       request: its handler (returning a response, or calling {@code respond}/{@code raise}), the
 *       request timeout, the read deadline, the limiter's rejection, a stop. The first to
 *       {@link #claim} it answers; every later claim fails, and that party drops what it has. The
 *       winner may record why it answered: {@link #TIMED_OUT} (the request timeout or the read
 *       deadline) or {@link #ABANDONED} (a stop gave up on the request).</li>
 *   <li><b>Completion</b>: RUNNING, then {@link #RESPONDED} (Jetty completed or failed the
 *       response's last write) and {@link #HANDLER_DONE} (the handler returned; an asynchronous
 *       handler responded, raised or was timed out), in either order, then FINISHED: both.</li>
 * </ul>
 *
 * <p>Invariants: {@link #ANSWERED} is set once, by exactly one party; {@link #TIMED_OUT} and
 * {@link #ABANDONED} only with it, by the party that set it; no bit is ever cleared; {@link #finished}
 * runs exactly once, on the thread whose {@link #complete} made the state FINISHED, after which the
 * exchange gives its permit back and leaves the handler's in-flight set.
 */
abstract class ExchangeState {

    /** Answer: the request has been answered, or is being answered, by the party that set it. */
    static final int ANSWERED = 1;
    /** Completion: Jetty completed (or failed) the response's last write. */
    static final int RESPONDED = 2;
    /** Completion: the handler is done with the request. */
    static final int HANDLER_DONE = 4;
    /** Why answered: the request timeout or the read deadline passed (answered 503 or 408). */
    static final int TIMED_OUT = 8;
    /** Why answered: the server's stop gave up on the request (its connection is closed). */
    static final int ABANDONED = 16;
    /**
     * Why answered: the client went away before the answer (decision 0900); nobody answers, the
     * request is dropped, and its response is neither written nor counted as lost.
     */
    static final int GONE = 32;
    /** What {@link #claim} records when the reason is the answer itself. */
    static final int NO_REASON = 0;

    private static final int FINISHED = RESPONDED | HANDLER_DONE;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(ExchangeState.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // through STATE
    private volatile int state;

    /** Takes the right to answer, recording {@code reason}; false when another party has it. */
    final boolean claim(int reason) {
        for (; ; ) {
            int s = (int) STATE.getVolatile(this);
            if ((s & ANSWERED) != 0) {
                return false;
            }
            if (STATE.compareAndSet(this, s, s | ANSWERED | reason)) {
                return true;
            }
        }
    }

    /** Sets completion {@code bits}; the call that makes the state FINISHED runs {@link #finished}. */
    final void complete(int bits) {
        for (; ; ) {
            int s = (int) STATE.getVolatile(this);
            int next = s | bits;
            if (s == next) {
                return;
            }
            if (STATE.compareAndSet(this, s, next)) {
                if ((next & FINISHED) == FINISHED && (s & FINISHED) != FINISHED) {
                    finished();
                }
                return;
            }
        }
    }

    /** Whether any of {@code bits} is set. */
    final boolean any(int bits) {
        return ((int) STATE.getVolatile(this) & bits) != 0;
    }

    /** Whether both the response and the handler are done. */
    final boolean isFinished() {
        return ((int) STATE.getVolatile(this) & FINISHED) == FINISHED;
    }

    /** Runs once, when the state becomes FINISHED. */
    abstract void finished();

    /** The state in words, e.g. "answered (timed out), responded, handler running". */
    final String describeState() {
        int s = (int) STATE.getVolatile(this);
        return ((s & ANSWERED) != 0 ? "answered" : "unanswered")
                + ((s & TIMED_OUT) != 0
                        ? " (timed out)"
                        : (s & ABANDONED) != 0 ? " (abandoned)" : (s & GONE) != 0 ? " (client gone)" : "")
                + ((s & RESPONDED) != 0 ? ", responded" : ", responding")
                + ((s & HANDLER_DONE) != 0 ? ", handler done" : ", handler running");
    }
}
