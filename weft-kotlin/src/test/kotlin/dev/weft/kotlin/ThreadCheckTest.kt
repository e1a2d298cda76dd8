package dev.weft.kotlin

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test
import java.util.concurrent.locks.LockSupport

/** The leak check itself must see a live virtual thread, or it would pass vacuously. */
class ThreadCheckTest {

    @Test
    fun `the thread dump lists a parked virtual thread by name, and not once it ended`() {
        val parked = Thread.ofVirtual().name("weft-dump-check-1").start { LockSupport.park() }
        try {
            awaitTrue("the thread parks") { parked.state == Thread.State.WAITING }
            assertEquals(listOf("weft-dump-check-1"), liveThreadsNamed("weft-dump-check-"))
        } finally {
            LockSupport.unpark(parked)
            parked.join()
        }
        assertEquals(emptyList<String>(), liveThreadsNamed("weft-dump-check-"))
    }
}
