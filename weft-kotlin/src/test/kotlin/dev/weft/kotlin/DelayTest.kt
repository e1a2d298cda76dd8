package dev.weft.kotlin

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.runInterruptible
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.api.extension.RegisterExtension
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlin.time.TimeSource

class DelayTest {

    @JvmField
    @RegisterExtension
    val threads = ThreadCheck()

    @Test
    fun `delay is never early, resumes on the dispatcher and starts no kotlinx timer thread`() {
        // A JVM of its own: another test in this one may have started kotlinx's DefaultExecutor.
        val java = ProcessHandle.current().info().command().orElseThrow()
        val process = ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), FreshJvmDelays::class.java.name)
            .redirectErrorStream(true).start()
        val output = process.inputStream.bufferedReader().readText()
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the child JVM did not end")
        assertEquals(0, process.exitValue(), output)
        assertTrue(output.contains("default-executor-seen=false early=0 resumed-on-weft=100 timed-out=true"), output)
    }

    @Test
    fun `delay resumes on a thread of the dispatcher it was called on`() = runBlocking {
        val d = threads.open("delay")
        val resumed = (1..20).map {
            async(d) {
                delay(it.toLong())
                onWeftThread("delay")
            }
        }.awaitAll()
        assertEquals(List(20) { true }, resumed)
    }

    @Test
    fun `withTimeout ends a suspended and an interruptibly blocked coroutine at its time`() = runBlocking(Dispatchers.Virtual) {
        val mark = TimeSource.Monotonic.markNow()
        assertThrows<TimeoutCancellationException> { runBlocking(Dispatchers.Virtual) { withTimeout(100) { delay(60_000) } } }
        assertTrue(mark.elapsedNow() >= 100.milliseconds)
        val blocked = TimeSource.Monotonic.markNow()
        assertThrows<TimeoutCancellationException> {
            runBlocking(Dispatchers.Virtual) { withTimeout(100) { runInterruptible { Thread.sleep(60_000) } } }
        }
        assertTrue(blocked.elapsedNow() in 100.milliseconds..30.seconds)
    }

    @Test
    fun `a cancelled delay ends at once`() = runBlocking(Dispatchers.Virtual) {
        val job = launch { delay(60_000) }
        delay(10)
        val mark = TimeSource.Monotonic.markNow()
        job.cancel()
        job.join()
        assertTrue(job.isCancelled)
        assertTrue(mark.elapsedNow() < 30.seconds)
    }

    @Test
    fun `delays inside a limitedParallelism view keep its limit`() = runBlocking {
        val view = threads.open("view-delay").limitedParallelism(1)
        val running = AtomicInteger()
        val most = AtomicInteger()
        withContext(view) {
            repeat(20) {
                launch {
                    delay(5)
                    val now = running.incrementAndGet()
                    most.accumulateAndGet(now, ::maxOf)
                    Thread.sleep(2)
                    running.decrementAndGet()
                }
            }
        }
        assertEquals(1, most.get())
    }
}
