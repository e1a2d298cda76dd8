package dev.weft.lab.scenarios.coroutines

import dev.weft.kotlin.Virtual
import dev.weft.kotlin.VirtualThreadDispatcher
import dev.weft.lab.Mode
import dev.weft.lab.Scenario
import dev.weft.lab.ScenarioContext
import dev.weft.lab.Stats
import dev.weft.thread.SchedulerSampler
import dev.weft.thread.SchedulerSamples
import java.time.Duration
import java.time.Instant
import java.util.Locale
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.Executors
import jdk.jfr.consumer.RecordingStream
import kotlin.math.ceil
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.IO_PARALLELISM_PROPERTY_NAME
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.supervisorScope
import kotlinx.coroutines.withContext
import kotlinx.coroutines.yield

/**
 * Article 004: N coroutines, each running `Thread.sleep(1000)` inside `withContext`, on
 * `Dispatchers.IO`, on the article's `Dispatchers.LOOM` one-liner, on weft's `Dispatchers.Virtual`,
 * and N plain tasks on a virtual-thread-per-task executor with no coroutines at all.
 *
 * Each coroutine is `launch(D) { withContext(D) { Thread.sleep(1000) } }` inside one
 * `supervisorScope`, with `D` read afresh at each use, as code that calls the article's getter
 * does: the one-liner therefore builds a new executor at each access, and its nested
 * `withContext` dispatches twice more (in and back out) where weft's shared instance runs in place.
 *
 * The value is the wall time from the first launch until every coroutine has ended, in seconds.
 * The limit for the virtual-thread variants is 1 s of sleep plus the creation cost measured in the
 * same run (starting and joining N empty virtual threads); for `Dispatchers.IO` it is Little's law
 * for its 64 threads, ceil(N / 64) s. `Dispatchers.IO` at the full N would take hours, so it runs a
 * subset in every mode and the figure is extrapolated per wave of 64, and labelled so.
 *
 * The scenario also counts virtual threads started per 1,000 resumes (JFR `jdk.VirtualThreadStart`)
 * for weft, weft without idle-thread reuse, and the one-liner.
 */
class CoroutinesScenario : Scenario {

    private val naiveLoom: CoroutineDispatcher
        // The article's getter, verbatim in substance: a new executor on every access.
        get() = Executors.newVirtualThreadPerTaskExecutor().asCoroutineDispatcher()

    override fun run(ctx: ScenarioContext) {
        val n = ctx.size(200, 10_000, 1_000_000)
        val iterations = ctx.size(1, 3, 3)
        val ioParallelism = System.getProperty(IO_PARALLELISM_PROPERTY_NAME)?.toInt()
            ?: maxOf(64, Runtime.getRuntime().availableProcessors())
        val ioSubset = ioParallelism * ctx.size(1, 3, 10)

        ctx.limitNote(String.format(Locale.ROOT, "Little's law: %,d sleeps of 1 s on virtual threads end in 1 s plus the"
            + " cost of creating %,d threads (measured here); Dispatchers.IO's %d threads need ceil(N / %d) = %,d s",
            n, n, ioParallelism, ioParallelism, ceil(n.toDouble() / ioParallelism).toLong()))

        warmUp(ctx, minOf(n, 100_000))
        val creation = Stats.median(List(iterations) { time { startAndJoinEmpty(n) } })
        val limit = 1.0 + creation
        ctx.progress(String.format(Locale.ROOT, "creation cost of %,d virtual threads: %.3f s", n, creation))

        // Interleaved, in a new order every iteration, so drift in the machine's load falls on
        // every variant alike.
        val variants = listOf(
            Measured("raw-virtual") { rawVirtual(n) },
            Measured("weft") { coroutines(n) { Dispatchers.Virtual } },
            Measured("naive-loom") { coroutines(n) { naiveLoom } },
        )
        repeat(iterations) { i ->
            for (v in variants.shuffled()) {
                ctx.progress("${v.name}: ${"%,d".format(n)} coroutines, iteration ${i + 1} of $iterations")
                v.run(last = i == iterations - 1)
            }
        }
        ctx.progress("dispatchers-io: ${"%,d".format(ioSubset)} of ${"%,d".format(n)} coroutines, then extrapolated")
        val io = Measured("dispatchers-io") { coroutines(ioSubset) { Dispatchers.IO } }
        io.run(last = true)

        ctx.progress("threads per 1,000 resumes (JFR jdk.VirtualThreadStart)")
        val perResume = threadsPerThousandResumes(ctx.size(50, 1_000, 10_000))

        val raw = variants[0].median
        val weft = variants[1].median
        val naive = variants[2].median
        val ioWaves = ceil(ioSubset.toDouble() / ioParallelism)
        val ioPerWave = io.median / ioWaves
        val nWaves = ceil(n.toDouble() / ioParallelism)
        val ioExtrapolated = ioPerWave * nWaves
        val full = ctx.mode() == Mode.FULL

        report(ctx, variants[0], raw, limit, null, n, creation)
        report(ctx, variants[1], weft, limit, null, n, creation, perResume.weft, perResume.weftNoReuse)
        report(ctx, variants[2], naive, limit, if (full) 6.0 else null, n, creation, perResume.naive)
        ctx.variant("dispatchers-io").unit("s").value(ioExtrapolated).limit(nWaves * 1.0)
            .published(if (full) 1_000_000 * 1.0 / 64 else null)
            .extra("extrapolated", true)
            .extra("measured_coroutines", ioSubset)
            .extra("measured_s", io.median)
            .extra("method", "measured $ioSubset coroutines (${ioWaves.toInt()} waves of $ioParallelism threads),"
                + " scaled per wave to ${nWaves.toLong()} waves")
            .extra("parallelism", ioParallelism)
            .extra("coroutines", n)
            .apply { if (full) extra("published_is", "the article's estimate, 1,000,000 x 1 s / 64 threads (4 h 20 min), not a measurement") }
            .scheduler(io.samples!!)
            .add()

        notes(ctx, n, raw, weft, naive, ioExtrapolated, ioSubset, ioParallelism, perResume)
    }

    private class Measured(val name: String, val body: () -> Unit) {
        val times = mutableListOf<Double>()
        var samples: SchedulerSamples? = null
        val median: Double get() = Stats.median(times)

        fun run(last: Boolean) {
            System.gc()
            val sampler = if (last) SchedulerSampler.start(Duration.ofMillis(50)) else null
            try {
                times += time(body)
            } finally {
                if (sampler != null) samples = sampler.stop()
            }
        }
    }

    private fun report(ctx: ScenarioContext, v: Measured, value: Double, limit: Double, published: Double?, n: Int,
                       creation: Double, threadsPer1000: Double? = null, noReuse: Double? = null) {
        ctx.variant(v.name).unit("s").value(value).limit(limit).published(published)
            .extra("coroutines", n)
            .extra("iterations_s", v.times.toList())
            .extra("creation_cost_s", creation)
            .apply { if (threadsPer1000 != null) extra("threads_per_1000_resumes", threadsPer1000) }
            .apply { if (noReuse != null) extra("threads_per_1000_resumes_without_reuse", noReuse) }
            .scheduler(v.samples!!)
            .add()
    }

    private fun notes(ctx: ScenarioContext, n: Int, raw: Double, weft: Double, naive: Double, io: Double, ioSubset: Int,
                      ioParallelism: Int, perResume: PerResume) {
        val size = "%,d".format(n)
        ctx.note(String.format(Locale.ROOT, "At N = %s: weft %.2f s, raw virtual threads %.2f s (weft / raw = %.3f),"
            + " the one-liner %.2f s, Dispatchers.IO %.0f s extrapolated (IO / weft = %.0fx).",
            size, weft, raw, weft / raw, naive, io, io / weft))
        if (n == 10_000) {
            ctx.note(String.format(Locale.ROOT, "Goal at N = 10,000: weft within 1.3 s; measured %.2f s (%s).",
                weft, ctx.verdict(weft <= 1.3)))
        }
        if (n == 1_000_000) {
            ctx.note(String.format(Locale.ROOT, "Goal at N = 1,000,000: weft within 1.10x of the raw executor; measured %.3fx (%s).",
                weft / raw, ctx.verdict(weft / raw <= 1.10)))
        }
        if (n >= 10_000) {
            ctx.note(String.format(Locale.ROOT, "Goal: Dispatchers.IO at least 100x slower than weft; measured %.0fx (%s).",
                io / weft, ctx.verdict(io / weft >= 100)))
        }
        ctx.note(String.format(Locale.ROOT, "dispatchers-io is extrapolated, not measured at N = %s: %,d coroutines ran"
            + " (waves of $ioParallelism sleeps on its $ioParallelism threads) and the time per wave was scaled to the ceil(N / $ioParallelism) waves of N.",
            size, ioSubset))
        ctx.note(String.format(Locale.ROOT, "Virtual threads started per 1,000 resumes: the one-liner %.0f, weft %.0f"
            + " (%.0f without idle-thread reuse). Workload: coroutines that each start, then 4 times enter and leave a"
            + " nested withContext, yield and delay(1) (17 resumes each). weft cuts threads by running nested withContext"
            + " in place, resuming a delay on the thread handed its wake-up, and reusing idle threads; the one-liner"
            + " starts one per resume and times every delay on kotlinx's DefaultExecutor platform thread.",
            perResume.naive, perResume.weft, perResume.weftNoReuse))
    }

    /** Runs every variant once at a small size, so that the measured runs start with compiled code. */
    private fun warmUp(ctx: ScenarioContext, n: Int) {
        ctx.progress("warm-up: ${"%,d".format(n)} short sleeps per variant")
        val short = { Thread.sleep(10) }
        Executors.newVirtualThreadPerTaskExecutor().use { ex -> repeat(n) { ex.submit(short) } }
        coroutines(n, short) { Dispatchers.Virtual }
        coroutines(n, short) { naiveLoom }
        startAndJoinEmpty(n)
    }

    private fun rawVirtual(n: Int) {
        Executors.newVirtualThreadPerTaskExecutor().use { ex -> repeat(n) { ex.submit { Thread.sleep(1000) } } }
    }

    private fun coroutines(n: Int, work: () -> Unit = { Thread.sleep(1000) }, dispatcher: () -> CoroutineDispatcher) =
        runBlocking {
            supervisorScope {
                repeat(n) { launch(dispatcher()) { withContext(dispatcher()) { work() } } }
            }
        }

    private fun startAndJoinEmpty(n: Int) {
        Executors.newVirtualThreadPerTaskExecutor().use { ex -> repeat(n) { ex.submit { } } }
    }

    private class PerResume(val weft: Double, val weftNoReuse: Double, val naive: Double)

    /**
     * Virtual threads started per 1,000 resumes, counted from JFR's `jdk.VirtualThreadStart` events
     * (timers included), for [coroutineCount] coroutines of 17 resumes each on every dispatcher.
     */
    private fun threadsPerThousandResumes(coroutineCount: Int): PerResume {
        val starts = ConcurrentLinkedQueue<Instant>()
        val resumes = coroutineCount * 17.0
        VirtualThreadDispatcher("lab-no-reuse", idleThreads = 0).use { noReuse ->
            RecordingStream().use { stream ->
                stream.enable("jdk.VirtualThreadStart")
                stream.onEvent("jdk.VirtualThreadStart") { starts += it.startTime }
                stream.startAsync()
                val windows = listOf<() -> CoroutineDispatcher>({ Dispatchers.Virtual }, { noReuse }, { naiveLoom })
                    .map { d -> window { resumeWorkload(coroutineCount, d) } }
                stream.stop() // returns once every recorded event has been delivered
                val counts = windows.map { (from, to) -> starts.count { it >= from && it <= to } }
                return PerResume(counts[0] * 1000 / resumes, counts[1] * 1000 / resumes, counts[2] * 1000 / resumes)
            }
        }
    }

    /** Runs [body] between two instants, with a quiet gap either side so windows do not overlap. */
    private fun window(body: () -> Unit): Pair<Instant, Instant> {
        Thread.sleep(100)
        val from = Instant.now()
        body()
        val to = Instant.now()
        Thread.sleep(100)
        return from to to
    }

    private fun resumeWorkload(coroutineCount: Int, dispatcher: () -> CoroutineDispatcher) = runBlocking {
        supervisorScope {
            repeat(coroutineCount) {
                launch(dispatcher()) {
                    repeat(4) {
                        withContext(dispatcher()) { Thread.sleep(1) }
                        yield()
                        delay(1)
                    }
                }
            }
        }
    }

    private companion object {
        fun time(body: () -> Unit): Double {
            val start = System.nanoTime()
            body()
            return (System.nanoTime() - start) / 1e9
        }
    }
}
