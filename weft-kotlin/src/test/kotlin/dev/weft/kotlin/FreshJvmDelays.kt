package dev.weft.kotlin

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import java.util.concurrent.atomic.AtomicInteger
import kotlin.system.exitProcess
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.TimeSource

/**
 * Run by [DelayTest] in a JVM of its own, where no other test can have started kotlinx's
 * `DefaultExecutor`: 100 delays and a timeout on [Dispatchers.Virtual], watching for that thread
 * while they are pending and after. Prints one line of `key=value` pairs.
 */
object FreshJvmDelays {
    @JvmStatic
    fun main(args: Array<String>) {
        val early = AtomicInteger()
        val resumedOnWeft = AtomicInteger()
        var seen = defaultExecutorAlive()
        var timedOut = false
        runBlocking(Dispatchers.Virtual) {
            repeat(100) { i ->
                launch {
                    val requested = (50 + i).milliseconds
                    val mark = TimeSource.Monotonic.markNow()
                    delay(requested)
                    if (mark.elapsedNow() < requested) early.incrementAndGet()
                    if (onWeftThread("virtual")) resumedOnWeft.incrementAndGet()
                }
            }
            try {
                withTimeout(30) { delay(60_000) }
            } catch (e: TimeoutCancellationException) {
                timedOut = true
            }
            seen = seen || defaultExecutorAlive()
        }
        seen = seen || defaultExecutorAlive()
        println("default-executor-seen=$seen early=${early.get()} resumed-on-weft=${resumedOnWeft.get()} timed-out=$timedOut")
        exitProcess(0)
    }

    private fun defaultExecutorAlive(): Boolean = Thread.getAllStackTraces().keys.any { it.name == "kotlinx.coroutines.DefaultExecutor" }
}
