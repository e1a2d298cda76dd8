package dev.weft.thread.internal;

import dev.weft.thread.ThreadPolicy;
import dev.weft.thread.WeftThreads;
import java.util.Objects;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * weft's one clock for the whole JVM: runs short tasks after a delay on a single virtual thread
 * that exists only while something is scheduled.
 *
 * <p>It is a JDK {@link ScheduledThreadPoolExecutor} whose only worker is a virtual thread named
 * {@code weft-timer-<n>}; the worker ends one second after the queue empties, so an idle JVM
 * holds no timer thread at all, and no platform thread is ever started for it. Scope deadlines
 * ({@code dev.weft.scope.Scope}) and the Kotlin dispatchers' {@code delay} and
 * {@code withTimeout} (which therefore never start kotlinx's {@code DefaultExecutor}) run on it.
 *
 * <p>A task must be short: it should only hand work over (wake a thread, interrupt one, resume a
 * coroutine on its dispatcher), so that one task cannot delay the next one's time. A task that
 * throws is reported to the timer thread's uncaught-exception handler rather than kept in its
 * future, where nobody would look. A cancelled task leaves the queue at once.
 *
 * <pre>{@code
 * ScheduledFuture<?> alarm = VirtualTimer.schedule(owner::interrupt, 2, TimeUnit.SECONDS);
 * try {
 *     work();
 * } finally {
 *     alarm.cancel(false);
 * }
 * }</pre>
 *
 * <p>Memory consistency effects: as for {@link ScheduledThreadPoolExecutor}, actions before
 * {@code schedule} happen-before the task runs.
 *
 * <p>Internal to weft: weft-core's module exports this package only to weft's own modules (it was
 * {@code dev.weft.thread.VirtualTimer}; doc/decisions/0107). Not an API; it may change in any
 * release.
 */
public final class VirtualTimer {

    private static final ScheduledThreadPoolExecutor EXECUTOR = create();

    private VirtualTimer() {}

    private static ScheduledThreadPoolExecutor create() {
        ScheduledThreadPoolExecutor e =
                new ScheduledThreadPoolExecutor(1, WeftThreads.factory("timer", ThreadPolicy.VIRTUAL));
        e.setRemoveOnCancelPolicy(true); // a cancelled deadline or delay frees its queue entry at once
        e.setKeepAliveTime(1, TimeUnit.SECONDS);
        e.allowCoreThreadTimeOut(true); // no thread while nothing is scheduled
        return e;
    }

    /**
     * Runs {@code task} on the timer's thread after {@code delay} (at once when not positive).
     *
     * @return the future of the scheduled task; cancel it to unschedule the task
     * @throws NullPointerException if {@code task} or {@code unit} is null
     */
    public static ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(unit, "unit");
        return EXECUTOR.schedule(new Reporting(task), Math.max(0, delay), unit);
    }

    /** A scheduled future would keep a failure to itself; report it instead. */
    private record Reporting(Runnable task) implements Runnable {
        @Override
        public void run() {
            try {
                task.run();
            } catch (Throwable e) {
                Thread t = Thread.currentThread();
                t.getUncaughtExceptionHandler().uncaughtException(t, e);
            }
        }
    }
}
