package dev.weft.kotlin

import dev.weft.context.Context
import dev.weft.context.ContextKey
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.yield
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import java.util.concurrent.CyclicBarrier

class WeftContextTest {

    @JvmField
    @RegisterExtension
    val threads = ThreadCheck()

    private val user: ContextKey<String> = ContextKey.of("user")
    private val tenant: ContextKey<String> = ContextKey.of("tenant", "none")

    @Test
    fun `keys follow a coroutine across every resume, whichever thread it lands on`() {
        val seen = mutableListOf<String?>()
        val threadNames = mutableSetOf<String>()
        Context.where(user, "ann").where(tenant, "acme").run {
            runBlocking(Dispatchers.Virtual + WeftContext()) {
                repeat(5) {
                    seen += user.get()
                    threadNames += Thread.currentThread().name
                    delay(1)
                    yield()
                }
                seen += tenant.get()
            }
        }
        assertEquals(List(5) { "ann" } + "acme", seen)
    }

    @Test
    fun `children inherit the keys, and a coroutine without the element sees none`() {
        val seen = Context.where(user, "bob").call<List<String?>, RuntimeException> {
            runBlocking(Dispatchers.Virtual + WeftContext()) {
                val inherited = (1..20).map {
                    async {
                        delay(1)
                        user.get()
                    }
                }.awaitAll()
                // Launched from a thread that has bob bound, but its context carries no element.
                val plain = withContext(Dispatchers.Virtual + WeftContext(Context.Snapshot.empty())) {
                    yield()
                    user.get()
                }
                inherited + plain
            }
        }
        assertEquals(List(20) { "bob" } + listOf(null), seen)
    }

    @Test
    fun `a reused thread keeps nothing of the previous coroutine's keys`() {
        val dispatcher = threads.open("ctx-reuse", idleThreads = 1)
        Context.where(user, "carol").run {
            runBlocking(dispatcher + WeftContext()) { assertEquals("carol", user.get()) }
        }
        awaitTrue("the thread that ran carol's coroutine is idle") { dispatcher.idleThreadCount == 1 }
        val nextThread = runBlocking(dispatcher) { user.get() to Thread.currentThread().name }
        assertNull(nextThread.first, "a block without WeftContext on a reused thread sees no key")
        assertEquals(1, dispatcher.startedThreadCount, "the same thread ran both: ${nextThread.second}")
    }

    @Test
    fun `concurrent coroutines each see their own keys`() {
        val barrier = CyclicBarrier(8)
        val results = runBlocking {
            (0 until 8).map { i ->
                val ctx = WeftContext(Context.Snapshot.empty().with(user, "u$i"))
                async(Dispatchers.Virtual + ctx) {
                    barrier.await() // all 8 are running at once, on 8 threads
                    delay(1)
                    user.get()
                }
            }.awaitAll()
        }
        assertEquals((0 until 8).map { "u$it" }, results)
    }

    @Test
    fun `a limitedParallelism view binds each coroutine's own keys`() {
        val view = threads.open("ctx-view").limitedParallelism(2)
        val results = runBlocking {
            (0 until 10).map { i ->
                async(view + WeftContext(Context.Snapshot.empty().with(user, "v$i"))) {
                    yield()
                    user.get()
                }
            }.awaitAll()
        }
        assertEquals((0 until 10).map { "v$it" }, results)
    }

    @Test
    fun `other dispatchers ignore the element, and weft's binds it again on the way back`() {
        val seen = Context.where(user, "dan").call<List<String?>, RuntimeException> {
            runBlocking(Dispatchers.Virtual + WeftContext()) {
                val onDefault = withContext(Dispatchers.Default) { user.get() }
                val back = user.get()
                listOf(onDefault, back)
            }
        }
        assertEquals(listOf(null, "dan"), seen)
    }

    @Test
    fun `an in-place withContext takes its new keys from its first resume`() {
        val seen = Context.where(user, "eve").call<List<String?>, RuntimeException> {
            runBlocking(Dispatchers.Virtual + WeftContext()) {
                withContext(WeftContext(Context.Snapshot.empty().with(user, "frank"))) {
                    val inPlace = user.get()
                    yield()
                    listOf(inPlace, user.get())
                }
            }
        }
        assertEquals(listOf("eve", "frank"), seen)
    }
}
