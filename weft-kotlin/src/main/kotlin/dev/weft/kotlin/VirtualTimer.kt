package dev.weft.kotlin

import java.util.concurrent.ScheduledFuture
import java.util.concurrent.TimeUnit

/**
 * The clock behind every weft dispatcher's `delay` and `withTimeout`: weft-core's one JVM-wide
 * timer, [dev.weft.thread.internal.VirtualTimer], a JDK `ScheduledThreadPoolExecutor` whose only worker
 * is a virtual thread (`weft-timer-<n>`), shared with scope deadlines.
 *
 * The worker exists only while something is scheduled (it ends one second after the queue
 * empties), so an idle JVM holds no timer thread at all, and kotlinx's platform
 * `DefaultExecutor` thread is never started for these dispatchers. A fired task only hands work
 * to a dispatcher's threads; it never runs coroutine code on the timer thread, so one slow
 * coroutine cannot delay another one's timer. A task that throws is reported to the timer
 * thread's uncaught-exception handler.
 */
internal object VirtualTimer {

    /** Runs [task] on the timer thread after [millis] milliseconds; [task] must be short. */
    fun schedule(millis: Long, task: Runnable): ScheduledFuture<*> = dev.weft.thread.internal.VirtualTimer.schedule(task, millis, TimeUnit.MILLISECONDS)
}
