package dev.weft.kotlin

import java.util.concurrent.ConcurrentLinkedDeque
import java.util.concurrent.ThreadFactory
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference
import java.util.concurrent.atomic.LongAdder
import java.util.concurrent.locks.LockSupport

/*
 * Implementation overview
 *
 * Every task gets a virtual thread that is free at the moment it is submitted: either an idle
 * worker (a virtual thread that finished its previous task and parked) or a new one. A task never
 * waits in a queue behind a running task, so a task that blocks delays nothing else: the
 * semantics of one-thread-per-task, with fewer threads started.
 *
 * Idle workers sit on a LIFO deque (the most recently active thread is reused first; its stack
 * and caches are warm) and park without a timeout, so going idle costs no timer. At most
 * maxIdle workers idle at once: idleCount reserves a place before a worker goes on the deque, so
 * the cap holds under races; a worker that finishes when the cap is reached ends. Idle
 * workers are handed a task or EXIT through their own slot (an AtomicReference): whoever polls a
 * worker off the deque owns it, so the hand-off itself never races.
 *
 * Closing stops workers from going idle and hands EXIT to every idle one; a worker that pushed
 * itself just as the pool closed takes itself back off the deque, or, if a closer or a dispatch
 * already took it, waits for what they hand it.
 */

/** The marker handed to an idle worker to make it end. */
private val EXIT = Runnable { }

/**
 * Runs every task at once on a virtual thread of its own: an idle one when there is one, a new
 * one otherwise. At most [maxIdle] finished threads park to wait for the next task.
 */
internal class VirtualThreadPool(private val factory: ThreadFactory, private val maxIdle: Int) {

    private val idle = ConcurrentLinkedDeque<Worker>()
    private val idleCount = AtomicInteger()

    // Counted on every thread start and end, from the dispatching thread and every carrier at
    // once: adders keep those counts off one contended cache line. Only diagnostics read them.
    private val live = LongAdder()
    private val started = LongAdder()

    @Volatile
    private var closed = false

    /** Threads alive now: running a task or idle. */
    val threadCount: Int get() = live.sum().toInt()

    /** Threads waiting for a task, ready to be handed one (a diagnostic: O(idle threads)). */
    val idleThreadCount: Int get() = idle.size

    /** Threads started since this pool was made (for the lab's accounting). */
    val startedThreadCount: Int get() = started.sum().toInt()

    /** Runs [task] on an idle thread, or on a new one when none is idle. */
    fun execute(task: Runnable) {
        if (maxIdle > 0) {
            while (true) {
                val worker = idle.pollFirst() ?: break
                idleCount.decrementAndGet()
                if (worker.handOff(task)) return
            }
        }
        start(task)
    }

    /** Runs [task] on a new thread that ends after it (used once the owner is closed). */
    fun start(task: Runnable) {
        val thread = factory.newThread(Worker(task))
        live.increment()
        started.increment()
        try {
            thread.start()
        } catch (e: Throwable) {
            live.decrement()
            throw e
        }
    }

    /** Idle threads end now; running ones end after their current task. */
    fun close() {
        closed = true
        while (true) {
            val worker = idle.pollFirst() ?: break
            idleCount.decrementAndGet()
            worker.handOff(EXIT)
        }
    }

    private inner class Worker(private var first: Runnable?) :
        AtomicReference<Runnable?>(null),
        Runnable {

        private lateinit var thread: Thread

        override fun run() {
            thread = Thread.currentThread()
            var task = first
            first = null
            try {
                while (task != null) {
                    runTask(task)
                    task = null // nothing of a finished task stays reachable while this thread idles
                    task = awaitNext()
                }
            } finally {
                live.decrement()
            }
        }

        /** Gives this idle worker its next task (or [EXIT]); false if it already has one. */
        fun handOff(task: Runnable): Boolean {
            if (!compareAndSet(null, task)) return false
            LockSupport.unpark(thread)
            return true
        }

        private fun runTask(task: Runnable) {
            // An interrupt aimed at an earlier task (or sent while idle) must not reach this one.
            Thread.interrupted()
            try {
                task.run()
            } catch (e: Throwable) {
                // kotlinx's own tasks never throw; a plain Runnable's failure is reported as a
                // thread-per-task executor would, and the thread stays usable.
                val t = Thread.currentThread()
                t.uncaughtExceptionHandler.uncaughtException(t, e)
            }
        }

        private fun awaitNext(): Runnable? {
            if (maxIdle == 0 || closed) return null
            if (idleCount.incrementAndGet() > maxIdle) {
                idleCount.decrementAndGet()
                return null
            }
            set(null)
            idle.offerFirst(this)
            if (closed && idle.remove(this)) {
                idleCount.decrementAndGet()
                return null
            }
            while (true) {
                val next = get()
                if (next != null) return if (next === EXIT) null else next
                LockSupport.park(this)
                // park returns at once while the interrupt flag is set, so a flag left by the last
                // task (the "restore the interrupt" idiom) or aimed at an idle thread would make
                // this loop spin a carrier forever. No task runs here: drop it (runTask clears it
                // again before the next task anyway).
                Thread.interrupted()
            }
        }
    }
}
