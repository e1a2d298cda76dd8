package dev.weft.kotlin

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.runInterruptible
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicReference

class CancellationTest {

    @JvmField
    @RegisterExtension
    val threads = ThreadCheck()

    @Test
    fun `cancelling runInterruptible interrupts the blocked call`() = runBlocking {
        val blocked = CountDownLatch(1)
        val interrupted = AtomicBoolean()
        val job = launch(Dispatchers.Virtual) {
            runInterruptible {
                blocked.countDown()
                try {
                    Thread.sleep(60_000)
                } catch (e: InterruptedException) {
                    interrupted.set(true)
                    throw e
                }
            }
        }
        assertTrue(blocked.await(20, TimeUnit.SECONDS))
        job.cancel()
        job.join()
        assertTrue(job.isCancelled)
        assertTrue(interrupted.get(), "runInterruptible did not interrupt the blocked call")
    }

    @Test
    fun `a blocking call outside runInterruptible is not interrupted by cancellation`() = runBlocking {
        val blocked = CountDownLatch(1)
        val cancelled = CountDownLatch(1)
        val sawInterrupt = AtomicBoolean()
        val finished = AtomicBoolean()
        val job = launch(Dispatchers.Virtual) {
            blocked.countDown()
            cancelled.await(20, TimeUnit.SECONDS) // blocking, on purpose
            sawInterrupt.set(Thread.currentThread().isInterrupted)
            finished.set(true)
        }
        assertTrue(blocked.await(20, TimeUnit.SECONDS))
        job.cancel()
        cancelled.countDown()
        job.join()
        assertTrue(finished.get())
        assertFalse(sawInterrupt.get())
    }

    @Test
    fun `interrupt status never carries over to the next block on a reused thread`() = runBlocking {
        val d = threads.open("interrupt", idleThreads = 1)
        val first = AtomicReference<Thread>()
        withContext(d) {
            first.set(Thread.currentThread())
            Thread.currentThread().interrupt() // left set on purpose
        }
        awaitTrue("the thread idles") { d.idleThreadCount == 1 }
        // Parked, not spinning: park returns at once while the flag is set, and a thread that
        // loops on it stays RUNNABLE forever, eating a carrier.
        awaitTrue("the idle thread parks (state now: ${first.get().state})") { first.get().state == Thread.State.WAITING }
        withContext(d) {
            assertSame(first.get(), Thread.currentThread(), "the idle thread was not reused")
            assertFalse(Thread.currentThread().isInterrupted)
        }
    }

    @Test
    fun `an interrupt sent to an idle thread does not make it spin`() = runBlocking {
        val d = threads.open("interrupt-idle", idleThreads = 1)
        val worker = withContext(d) { Thread.currentThread() }
        awaitTrue("the thread idles") { d.idleThreadCount == 1 && worker.state == Thread.State.WAITING }
        worker.interrupt()
        awaitTrue("the interrupted idle thread parks again (state now: ${worker.state})") {
            worker.state == Thread.State.WAITING && !worker.isInterrupted
        }
        assertEquals(1, d.idleThreadCount)
    }
}
