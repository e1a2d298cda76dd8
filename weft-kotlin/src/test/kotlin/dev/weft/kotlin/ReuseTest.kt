package dev.weft.kotlin

import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit

class ReuseTest {

    @JvmField
    @RegisterExtension
    val threads = ThreadCheck()

    @Test
    fun `an idle thread takes the next block instead of a new thread`() = runBlocking {
        val d = threads.open("reuse", idleThreads = 4)
        repeat(50) {
            withContext(d) { Thread.sleep(0) }
            awaitTrue("the thread idles") { d.idleThreadCount == 1 }
        }
        assertEquals(1, d.startedThreadCount)
    }

    @Test
    fun `with no idle threads every block gets a new thread`() = runBlocking {
        val d = threads.open("fresh", idleThreads = 0)
        repeat(20) { withContext(d) { } }
        assertEquals(20, d.startedThreadCount)
        awaitTrue("every thread ended") { d.threadCount == 0 }
    }

    @Test
    fun `a block never waits behind a blocked one`() = runBlocking {
        val d = threads.open("noqueue", idleThreads = 4)
        // Warm the idle set, then block one thread until a later block releases it.
        (1..4).map { async(d) { Thread.sleep(1) } }.awaitAll()
        awaitTrue("threads idle") { d.idleThreadCount > 0 }
        val release = CountDownLatch(1)
        val blocker = launch(d) { assertTrue(release.await(20, TimeUnit.SECONDS), "nobody released the blocked block") }
        launch(d) { release.countDown() }.join()
        blocker.join()
    }

    @Test
    fun `no more threads idle than the cap`() = runBlocking {
        val d = threads.open("cap", idleThreads = 2)
        val together = CountDownLatch(10)
        (1..10).map {
            launch(d) {
                together.countDown()
                together.await(20, TimeUnit.SECONDS)
            }
        }.forEach { it.join() }
        awaitTrue("only the capped idle threads are left") { d.threadCount == 2 }
        assertEquals(2, d.idleThreadCount)
        assertEquals(10, d.startedThreadCount)
    }
}
