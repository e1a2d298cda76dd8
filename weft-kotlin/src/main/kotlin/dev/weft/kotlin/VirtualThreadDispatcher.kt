package dev.weft.kotlin

import dev.weft.context.Context
import dev.weft.thread.ThreadPolicy
import dev.weft.thread.WeftThreads
import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Delay
import kotlinx.coroutines.DisposableHandle
import kotlinx.coroutines.ExecutorCoroutineDispatcher
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.Job
import org.jetbrains.annotations.BlockingExecutor
import java.util.concurrent.Executor
import java.util.concurrent.RejectedExecutionException
import kotlin.coroutines.ContinuationInterceptor
import kotlin.coroutines.CoroutineContext

/**
 * A coroutine dispatcher that runs coroutines on virtual threads, so that blocking calls inside
 * them (JDBC, file I/O, `Thread.sleep`, a blocking HTTP client) cost a parked virtual thread
 * instead of one of the 64 threads of `Dispatchers.IO`.
 *
 * **Model.** Every dispatched block runs at once on a virtual thread that is free: one that has
 * just finished a block and is idle, or a new one. A block never waits behind another block, so
 * a coroutine that blocks holds up nobody else, exactly as with one new virtual thread per block.
 * Reusing idle threads cuts the virtual threads started per resume (see [idleThreads]): it is the
 * same thread reuse `Dispatchers.IO` and `Dispatchers.Default` already have, so code that was
 * correct there stays correct here.
 *
 * **Instances.** [Dispatchers.Virtual][kotlinx.coroutines.Dispatchers.Virtual] (also
 * [VirtualThreadDispatcher.shared]) is one instance for the whole JVM, with threads named
 * `weft-virtual-<n>`. It cannot be closed. Because it is always the same object, a nested
 * `withContext(Dispatchers.Virtual)` inside a coroutine already on it runs in place, without a
 * dispatch. Named instances, `VirtualThreadDispatcher("fetch")`, have threads named
 * `weft-fetch-<n>` and a lifecycle of their own ([close]).
 *
 * **Delays and timeouts.** `delay` and `withTimeout` in a coroutine on this dispatcher are timed
 * by weft's timer, a JDK scheduled executor whose worker is a virtual thread that exists only
 * while something is scheduled; kotlinx's platform `DefaultExecutor` thread is not involved.
 * When a delay ends, the coroutine resumes directly on the virtual thread handed the wake-up.
 *
 * **Blocking and interruption.** A blocking call inside the coroutine blocks only its virtual
 * thread. Cancelling the coroutine does not interrupt the call unless the caller asked for it
 * with `runInterruptible(...)`; interrupt status never carries over from one block to the next
 * on a reused thread.
 *
 * **Parallelism.** [limitedParallelism] gives a view that runs at most `n` blocks at once on this
 * dispatcher's threads (for example to cap calls to a database at its pool size) and follows
 * this dispatcher's [close].
 *
 * **Context.** weft context keys travel with a coroutine that carries a [WeftContext]: this
 * dispatcher binds them around every part of the coroutine it runs. Other thread-bound context
 * travels through kotlinx's `ThreadContextElement`, applied on every resume, whichever thread it
 * lands on.
 *
 * ```kotlin
 * val rows = withContext(Dispatchers.Virtual) { jdbc.query(sql) }   // blocks a virtual thread only
 *
 * VirtualThreadDispatcher("crawler").use { crawler ->
 *     runBlocking(crawler) {
 *         urls.map { url -> async { fetchBlocking(url) } }.awaitAll()
 *     }
 * }
 * ```
 *
 * From Java: `VirtualThreadDispatcher.getShared()`, `new VirtualThreadDispatcher("fetch")`
 * (an `AutoCloseable`), and [executor] for plain `Runnable`s.
 *
 * **Memory consistency effects:** actions in a thread before it dispatches a block (resumes a
 * coroutine, submits a `Runnable`) happen-before the block runs.
 *
 * **IDE.** The class, [Dispatchers.Virtual][kotlinx.coroutines.Dispatchers.Virtual] and
 * [limitedParallelism] are marked [BlockingExecutor], so IntelliJ does not flag blocking calls
 * in coroutines on this dispatcher as blocking calls in a non-blocking context.
 */
@BlockingExecutor
@OptIn(InternalCoroutinesApi::class, ExperimentalCoroutinesApi::class)
public class VirtualThreadDispatcher private constructor(
    /** The name in this dispatcher's thread names, `weft-<name>-<n>`. */
    public val name: String,
    /**
     * How many finished threads may wait, parked, for the next block instead of ending: the
     * trade-off between virtual threads started per resume (0 starts one per block, as
     * `newVirtualThreadPerTaskExecutor` does) and thread reuse. A reused thread keeps the
     * `ThreadLocal`s earlier blocks set, like any pooled thread; idle threads cost about 1 KB each.
     */
    public val idleThreads: Int,
    private val closeable: Boolean,
    private val label: String,
) : ExecutorCoroutineDispatcher(),
    Delay {

    /**
     * A dispatcher of its own, with threads named `weft-<name>-<n>`, to be [closed][close] when
     * its coroutines are done.
     *
     * @param name the name in thread names: non-blank, without whitespace (e.g. `"fetch"`)
     * @param idleThreads at most this many finished threads wait for the next block (>= 0)
     * @throws IllegalArgumentException when [name] or [idleThreads] is not valid
     */
    @JvmOverloads
    public constructor(name: String, idleThreads: Int = DEFAULT_IDLE_THREADS) :
        this(name, checkIdleThreads(idleThreads), true, "VirtualThreadDispatcher($name)")

    private val pool = VirtualThreadPool(WeftThreads.factory(name, ThreadPolicy.VIRTUAL), idleThreads)

    @Volatile
    private var closed = false

    /** True once [close] was called. */
    public val isClosed: Boolean get() = closed

    /** This dispatcher's threads alive now: running a block, or idle. */
    public val threadCount: Int get() = pool.threadCount

    /** This dispatcher's threads parked waiting for a block (at most [idleThreads]). */
    public val idleThreadCount: Int get() = pool.idleThreadCount

    /** How many virtual threads this dispatcher has started since it was made. */
    public val startedThreadCount: Int get() = pool.startedThreadCount

    /**
     * Runs plain `Runnable`s on this dispatcher's threads, for Java and for APIs that take an
     * [Executor]. Like every weft executor it conveys the weft context keys bound where
     * `execute` is called ([Context.wrap]). After [close] it throws [RejectedExecutionException].
     */
    override val executor: Executor = Executor { command ->
        if (closed) throw RejectedExecutionException("$this is closed and accepts no new tasks; submit before close(), or use a dispatcher that is open")
        pool.execute(Context.wrap(command))
    }

    /**
     * Runs [block] on a free virtual thread of this dispatcher, with the keys of the coroutine's
     * [WeftContext] bound if it has one. Once the dispatcher is closed, the
     * coroutine in [context] is first cancelled with [DispatcherClosedException] and [block] then
     * runs on a new virtual thread of this dispatcher, so the coroutine completes (its `finally`
     * blocks run) and is neither lost nor moved to another dispatcher.
     */
    override fun dispatch(context: CoroutineContext, block: Runnable) {
        val task = context.withWeftContext(block)
        if (closed) {
            cancelClosed(context)
            pool.start(task)
        } else {
            pool.execute(task)
        }
    }

    /**
     * A view that runs at most [parallelism] blocks at once on this dispatcher's threads; blocks
     * beyond that wait in the view's queue. The view shares this dispatcher's threads, timer and
     * close: after [close], coroutines dispatched through the view are cancelled like those of
     * this dispatcher.
     *
     * @throws IllegalArgumentException if [parallelism] is less than 1
     */
    override fun limitedParallelism(parallelism: Int, name: String?): @BlockingExecutor CoroutineDispatcher = LimitedView(this, super.limitedParallelism(parallelism, name))

    /**
     * Closes a named dispatcher: it accepts no new work from now on. Idle threads end at once and
     * running blocks run to their end. A coroutine started or resumed on it afterwards is cancelled
     * with [DispatcherClosedException] and finishes on a virtual thread of this dispatcher;
     * [executor] rejects new tasks. Closing twice does nothing more.
     *
     * That includes cleanup: a `finally` block that suspends on this dispatcher after close (even
     * inside `withContext(NonCancellable)`) is cancelled at that suspension, since a dispatcher
     * cannot tell a coroutine's cleanup from new work. To let coroutines finish normally, wait for
     * them (`join`, `coroutineScope`, the end of `runBlocking`) before closing.
     *
     * @throws UnsupportedOperationException on the shared instance, which cannot be closed
     */
    override fun close() {
        if (!closeable) {
            throw UnsupportedOperationException(
                "$label is shared by the whole JVM and cannot be closed;" +
                    " for a dispatcher you can close, create one: VirtualThreadDispatcher(\"my-name\")",
            )
        }
        closed = true
        pool.close()
    }

    /** Resumes [continuation] after [timeMillis] ms, timed by weft's virtual-thread timer. */
    override fun scheduleResumeAfterDelay(timeMillis: Long, continuation: CancellableContinuation<Unit>) {
        val future = VirtualTimer.schedule(timeMillis) {
            if (continuation.context[ContinuationInterceptor] === this) {
                // The thread handed the wake-up runs the coroutine: no second dispatch.
                dispatch(continuation.context) { with(continuation) { resumeUndispatched(Unit) } }
            } else {
                // A view (limitedParallelism) forwards its delays here; it must keep its limit.
                continuation.resumeWith(Result.success(Unit))
            }
        }
        continuation.invokeOnCancellation { future.cancel(false) }
    }

    /** Runs [block] on a thread of this dispatcher after [timeMillis] ms, unless disposed first. */
    override fun invokeOnTimeout(timeMillis: Long, block: Runnable, context: CoroutineContext): DisposableHandle {
        val future = VirtualTimer.schedule(timeMillis) {
            if (closed) pool.start(block) else pool.execute(block)
        }
        return DisposableHandle { future.cancel(false) }
    }

    internal fun cancelClosed(context: CoroutineContext) {
        if (!closed) return
        context[Job]?.cancel(
            DispatcherClosedException(
                "$label was closed; this coroutine was" +
                    " started or resumed on it afterwards. Wait for coroutines to finish before close()," +
                    " or launch them on a dispatcher that is open",
            ),
        )
    }

    override fun toString(): String = label

    public companion object {
        /** How many finished threads wait for the next block unless a constructor says otherwise. */
        public const val DEFAULT_IDLE_THREADS: Int = 64

        /**
         * The dispatcher shared by the whole JVM, threads named `weft-virtual-<n>`; the same
         * object as [Dispatchers.Virtual][kotlinx.coroutines.Dispatchers.Virtual]. It cannot be
         * closed.
         */
        @JvmStatic
        public val shared: VirtualThreadDispatcher =
            VirtualThreadDispatcher("virtual", DEFAULT_IDLE_THREADS, false, "Dispatchers.Virtual")

        private fun checkIdleThreads(n: Int): Int {
            require(n >= 0) { "idleThreads must be 0 or more (0 starts a new virtual thread per block); got $n" }
            return n
        }
    }
}
