package dev.weft.kotlin

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertNotSame
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.api.extension.RegisterExtension
import java.util.concurrent.Executors

class IdentityTest {

    @JvmField
    @RegisterExtension
    val threads = ThreadCheck()

    @Test
    fun `Dispatchers Virtual is one object, the shared instance`() {
        assertSame(Dispatchers.Virtual, Dispatchers.Virtual)
        assertSame(VirtualThreadDispatcher.shared, Dispatchers.Virtual)
        assertEquals(Dispatchers.Virtual, VirtualThreadDispatcher.shared)
        assertEquals(Dispatchers.Virtual.hashCode(), VirtualThreadDispatcher.shared.hashCode())
        assertEquals("Dispatchers.Virtual", Dispatchers.Virtual.toString())
        assertEquals("virtual", Dispatchers.Virtual.name)
    }

    @Test
    fun `named instances are distinct even with the same name`() {
        val a = threads.open("same")
        val b = threads.open("same")
        assertNotSame(a, b)
        assertNotEquals(a, b)
        assertEquals("VirtualThreadDispatcher(same)", a.toString())
    }

    @Test
    fun `coroutines run on named virtual threads`() = runBlocking {
        val fetch = threads.open("fetch")
        assertTrue(withContext(Dispatchers.Virtual) { onWeftThread("virtual") })
        assertTrue(withContext(fetch) { onWeftThread("fetch") })
    }

    @Test
    fun `nested withContext on the same dispatcher runs in place, without a dispatch`() = runBlocking {
        val d = threads.open("nested", idleThreads = 0)
        withContext(d) {
            val outer = Thread.currentThread()
            val started = d.startedThreadCount
            val inner = withContext(d) { withContext(d) { Thread.currentThread() } }
            assertSame(outer, inner)
            assertEquals(started, d.startedThreadCount, "a nested withContext started a thread")
        }
        withContext(Dispatchers.Virtual) {
            val outer = Thread.currentThread()
            assertSame(outer, withContext(Dispatchers.Virtual) { Thread.currentThread() })
        }
    }

    /** The article's getter, kept here to show the fault the shared instance removes. */
    private val naiveLoom: CoroutineDispatcher
        get() = Executors.newVirtualThreadPerTaskExecutor().asCoroutineDispatcher()

    @Test
    fun `the copied one-liner re-dispatches every nested withContext`() = runBlocking {
        assertNotEquals(naiveLoom, naiveLoom)
        withContext(naiveLoom) {
            val outer = Thread.currentThread()
            assertNotSame(outer, withContext(naiveLoom) { Thread.currentThread() })
        }
    }

    @Test
    fun `bad names and idle counts are rejected with the fix`() {
        val blank = assertThrows<IllegalArgumentException> { VirtualThreadDispatcher(" ") }
        assertTrue(blank.message!!.contains("without spaces"), blank.message)
        val spaced = assertThrows<IllegalArgumentException> { VirtualThreadDispatcher("my pool") }
        assertTrue(spaced.message!!.contains("my pool"), spaced.message)
        val negative = assertThrows<IllegalArgumentException> { VirtualThreadDispatcher("x", -1) }
        assertTrue(negative.message!!.contains("got -1"), negative.message)
    }
}
