package dev.weft.kotlin

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.delay
import kotlinx.coroutines.test.currentTime
import kotlinx.coroutines.test.runTest
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import kotlin.time.Duration.Companion.hours
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.TimeSource

/** Code that moves blocking work to Dispatchers.Virtual stays testable with kotlinx-coroutines-test. */
@OptIn(ExperimentalCoroutinesApi::class) // currentTime
class TestDispatcherTest {

    @JvmField
    @RegisterExtension
    val threads = ThreadCheck()

    @Test
    fun `runTest skips its own delays while blocking work on Dispatchers Virtual runs in real time`() = runTest {
        delay(2.hours) // virtual time: returns at once
        assertEquals(2.hours.inWholeMilliseconds, currentTime)
        val mark = TimeSource.Monotonic.markNow()
        val onVirtual = withContext(Dispatchers.Virtual) {
            Thread.sleep(20)
            delay(20) // real time: Dispatchers.Virtual has its own clock
            onWeftThread("virtual")
        }
        assertTrue(onVirtual)
        assertTrue(mark.elapsedNow() >= 40.milliseconds)
        assertEquals(2.hours.inWholeMilliseconds, currentTime, "real-time work moved the test's virtual clock")
    }
}
