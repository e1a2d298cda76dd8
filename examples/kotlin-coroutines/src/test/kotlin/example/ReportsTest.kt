package example

import dev.weft.kotlin.VirtualThreadDispatcher
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

class ReportsTest {

    @Test
    fun rowsComeBackInOrderFromVirtualThreads() = runBlocking {
        val virtual = AtomicInteger()
        val reports = Reports { id ->
            if (Thread.currentThread().isVirtual) virtual.incrementAndGet()
            Thread.sleep(5)
            "row $id"
        }
        assertEquals((1..50).map { "row $it" }, reports.report((1..50).toList()))
        assertEquals(50, virtual.get(), "every blocking load ran on a virtual thread")
    }

    @Test
    fun moreBlockingCallsRunAtOnceThanDispatchersIoHasThreads() = runBlocking {
        val all = 200                                   // Dispatchers.IO has 64 threads
        val arrived = CountDownLatch(all)
        val reports = Reports { id ->
            arrived.countDown()
            check(arrived.await(30, TimeUnit.SECONDS)) { "only ${all - arrived.count} of $all loads ran at once" }
            "row $id"
        }
        assertEquals(all, reports.report((1..all).toList()).size)
    }

    @Test
    fun aDispatcherOfYourOwnNamesItsThreads() = runBlocking {
        val names = VirtualThreadDispatcher("reports").use { reports ->
            (1..10).map { async { withContext(reports) { Thread.currentThread().name } } }.awaitAll()
        }
        assertTrue(names.all { it.startsWith("weft-reports-") }, names.toString())
    }
}
