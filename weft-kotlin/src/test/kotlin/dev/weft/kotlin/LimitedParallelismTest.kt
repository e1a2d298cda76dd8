package dev.weft.kotlin

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.api.extension.RegisterExtension
import java.util.concurrent.CyclicBarrier
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

class LimitedParallelismTest {

    @JvmField
    @RegisterExtension
    val threads = ThreadCheck()

    @Test
    fun `a view runs exactly its parallelism of blocking coroutines at once`() = runBlocking {
        val d = threads.open("limited")
        val view = d.limitedParallelism(2)
        // Each coroutine blocks until a partner arrives: with fewer than 2 at once this breaks,
        // with more the count shows it.
        val pairs = CyclicBarrier(2)
        val running = AtomicInteger()
        val most = AtomicInteger()
        val onWeft = AtomicInteger()
        withContext(view) {
            repeat(12) {
                launch {
                    most.accumulateAndGet(running.incrementAndGet(), ::maxOf)
                    if (onWeftThread("limited")) onWeft.incrementAndGet()
                    pairs.await(20, TimeUnit.SECONDS)
                    Thread.sleep(2)
                    running.decrementAndGet()
                }
            }
        }
        assertEquals(2, most.get())
        assertEquals(12, onWeft.get())
    }

    @Test
    fun `nested withContext on a view runs in place`() = runBlocking {
        val view = Dispatchers.Virtual.limitedParallelism(1)
        withContext(view) {
            val outer = Thread.currentThread()
            assertSame(outer, withContext(view) { Thread.currentThread() })
        }
        assertSame(view, view.limitedParallelism(4))
    }

    @Test
    fun `a parallelism below 1 is rejected`() {
        val e = assertThrows<IllegalArgumentException> { Dispatchers.Virtual.limitedParallelism(0) }
        assertTrue(e.message!!.contains("0"), e.message)
    }
}
