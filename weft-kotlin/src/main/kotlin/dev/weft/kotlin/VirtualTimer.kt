package dev.weft.kotlin

import dev.weft.thread.ThreadPolicy
import dev.weft.thread.WeftThreads
import java.util.concurrent.ScheduledFuture
import java.util.concurrent.ScheduledThreadPoolExecutor
import java.util.concurrent.TimeUnit

/**
 * The clock behind every weft dispatcher's `delay` and `withTimeout`: one JDK
 * [ScheduledThreadPoolExecutor] whose only worker is a virtual thread (`weft-timer-<n>`).
 *
 * The worker exists only while something is scheduled (it ends one second after the queue
 * empties), so an idle JVM holds no timer thread at all, and kotlinx's platform
 * `DefaultExecutor` thread is never started for these dispatchers. A fired task only hands work
 * to a dispatcher's threads; it never runs coroutine code on the timer thread, so one slow
 * coroutine cannot delay another one's timer.
 */
internal object VirtualTimer {

    private val executor = ScheduledThreadPoolExecutor(1, WeftThreads.factory("timer", ThreadPolicy.VIRTUAL)).apply {
        removeOnCancelPolicy = true // a cancelled delay frees its queue entry at once
        setKeepAliveTime(1, TimeUnit.SECONDS)
        allowCoreThreadTimeOut(true)
    }

    /** Runs [task] on the timer thread after [millis] milliseconds; [task] must be short. */
    fun schedule(millis: Long, task: Runnable): ScheduledFuture<*> =
        executor.schedule(Reporting(task), millis.coerceAtLeast(0), TimeUnit.MILLISECONDS)

    /** A scheduled future would keep a failure to itself; report it instead. */
    private class Reporting(private val task: Runnable) : Runnable {
        override fun run() {
            try {
                task.run()
            } catch (e: Throwable) {
                val t = Thread.currentThread()
                t.uncaughtExceptionHandler.uncaughtException(t, e)
            }
        }
    }
}
