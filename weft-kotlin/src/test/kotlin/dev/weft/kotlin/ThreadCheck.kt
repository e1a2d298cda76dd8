package dev.weft.kotlin

import com.sun.management.HotSpotDiagnosticMXBean
import org.junit.jupiter.api.extension.AfterEachCallback
import org.junit.jupiter.api.extension.ExtensionContext
import java.lang.management.ManagementFactory
import java.nio.file.Files
import java.util.concurrent.TimeUnit
import kotlin.time.Duration
import kotlin.time.Duration.Companion.seconds

/**
 * Makes the dispatchers a test uses and checks, after each test, that no thread was left
 * behind: every named dispatcher is closed and all its threads end, and the shared dispatcher has
 * no thread still running a block (only idle ones, at most its cap).
 */
class ThreadCheck : AfterEachCallback {

    private val opened = mutableListOf<VirtualThreadDispatcher>()

    /** A named dispatcher that is closed and checked for leftover threads after the test. */
    fun open(name: String, idleThreads: Int = VirtualThreadDispatcher.DEFAULT_IDLE_THREADS): VirtualThreadDispatcher = VirtualThreadDispatcher(name, idleThreads).also { synchronized(opened) { opened += it } }

    override fun afterEach(context: ExtensionContext) {
        val all = synchronized(opened) { opened.toList().also { opened.clear() } }
        for (d in all) {
            d.close()
            awaitTrue("all threads of $d end after close (left: ${d.threadCount})") { d.threadCount == 0 }
            // The pool's own counters could be wrong in the same way as the pool: ask the JVM.
            awaitTrue("the JVM's thread dump shows no thread of $d") { liveThreadsNamed("weft-${d.name}-").isEmpty() }
        }
        val shared = VirtualThreadDispatcher.shared
        awaitTrue("no thread of the shared dispatcher still runs a block") {
            shared.threadCount - shared.idleThreadCount == 0
        }
        check(shared.idleThreadCount <= shared.idleThreads) { "more idle threads than the cap" }
    }
}

/** Waits until [condition] holds; the timeout only guards against a hang. */
fun awaitTrue(what: String, timeout: Duration = 20.seconds, condition: () -> Boolean) {
    val deadline = System.nanoTime() + timeout.inWholeNanoseconds
    while (!condition()) {
        if (System.nanoTime() > deadline) throw AssertionError("timed out waiting until $what")
        TimeUnit.MILLISECONDS.sleep(2)
    }
}

/**
 * Names of live threads, virtual ones included, that start with [prefix], from the JVM's own
 * JSON thread dump (HotSpotDiagnosticMXBean: it lists every virtual thread, where
 * Thread.getAllStackTraces lists platform threads only).
 */
fun liveThreadsNamed(prefix: String): List<String> {
    val dir = Files.createTempDirectory("weft-threads")
    val file = dir.resolve("dump.json")
    try {
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean::class.java)
            .dumpThreads(file.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON)
        return Regex("\"name\": \"(${Regex.escape(prefix)}[^\"]*)\"").findAll(Files.readString(file))
            .map { it.groupValues[1] }.toList()
    } finally {
        Files.deleteIfExists(file)
        Files.deleteIfExists(dir)
    }
}

/** True when the current thread is a virtual thread of the dispatcher named [name]. */
fun onWeftThread(name: String): Boolean = Thread.currentThread().isVirtual && Thread.currentThread().name.startsWith("weft-$name-")
