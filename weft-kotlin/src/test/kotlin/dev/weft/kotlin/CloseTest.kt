package dev.weft.kotlin

import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.async
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.api.extension.RegisterExtension
import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.atomic.AtomicReference

class CloseTest {

    @JvmField
    @RegisterExtension
    val threads = ThreadCheck()

    @Test
    fun `the shared instance cannot be closed`() {
        val e = assertThrows<UnsupportedOperationException> { Dispatchers.Virtual.close() }
        assertTrue(e.message!!.contains("VirtualThreadDispatcher(\"my-name\")"), e.message)
        assertTrue(!Dispatchers.Virtual.isClosed)
    }

    @Test
    fun `a coroutine started after close is cancelled with a clear error before its body runs`() = runBlocking {
        val d = threads.open("closed")
        d.close()
        d.close() // twice is fine
        assertTrue(d.isClosed)
        val ran = AtomicReference<String>()
        val result = CoroutineScope(SupervisorJob()).async(d) { ran.set(Thread.currentThread().name) }
        val e = assertThrows<DispatcherClosedException> { result.await() }
        assertTrue(e.message!!.contains("VirtualThreadDispatcher(closed) was closed"), e.message)
        assertEquals(null, ran.get(), "the body of a coroutine launched after close ran")
    }

    @Test
    fun `a coroutine suspended at close fails when resumed, and unwinds on its own dispatcher`() = runBlocking {
        val d = threads.open("suspended")
        val gate = CompletableDeferred<Unit>()
        val cleanup = AtomicReference<String>()
        val job = CoroutineScope(SupervisorJob()).async(d, start = CoroutineStart.UNDISPATCHED) {
            try {
                gate.await()
            } finally {
                cleanup.set(Thread.currentThread().name)
            }
        }
        d.close()
        gate.complete(Unit)
        val e = assertThrows<DispatcherClosedException> { job.await() }
        assertTrue(e.message!!.contains("suspended"), e.message)
        assertTrue(cleanup.get().startsWith("weft-suspended-"), cleanup.get())
    }

    @Test
    fun `cleanup that suspends on the closed dispatcher is cancelled too, and says why`() = runBlocking {
        val d = threads.open("cleanup")
        val gate = CompletableDeferred<Unit>()
        val cleanupFailure = AtomicReference<Throwable>()
        val job = CoroutineScope(SupervisorJob()).launch(d, start = CoroutineStart.UNDISPATCHED) {
            try {
                gate.await()
            } finally {
                try {
                    withContext(NonCancellable) { delay(1) }
                } catch (e: Throwable) {
                    cleanupFailure.set(e)
                }
            }
        }
        d.close()
        gate.complete(Unit)
        job.join()
        assertTrue(cleanupFailure.get() is DispatcherClosedException, cleanupFailure.get().toString())
    }

    @Test
    fun `coroutines that finish before close are untouched, and idle threads end at close`() = runBlocking {
        val d = threads.open("finish")
        val results = (1..20).map { i ->
            async(d) {
                Thread.sleep(5)
                i
            }
        }.map { it.await() }
        assertEquals((1..20).toList(), results)
        awaitTrue("some threads idle") { d.idleThreadCount > 0 }
        d.close()
        awaitTrue("every thread ended") { d.threadCount == 0 }
    }

    @Test
    fun `the executor rejects tasks after close`() {
        val d = threads.open("exec")
        val ran = CompletableDeferred<String>()
        d.executor.execute { ran.complete(Thread.currentThread().name) }
        runBlocking { assertTrue(ran.await().startsWith("weft-exec-")) }
        d.close()
        val e = assertThrows<RejectedExecutionException> { d.executor.execute { } }
        assertTrue(e.message!!.contains("is closed"), e.message)
    }

    @Test
    fun `a limitedParallelism view follows its dispatcher's close`() = runBlocking {
        val d = threads.open("view-close")
        val view = d.limitedParallelism(2)
        assertEquals(3, withContext(view) { 1 + 2 })
        d.close()
        val late = CoroutineScope(SupervisorJob()).async(view) { "ran" }
        assertThrows<DispatcherClosedException> { late.await() }
        Unit
    }
}
