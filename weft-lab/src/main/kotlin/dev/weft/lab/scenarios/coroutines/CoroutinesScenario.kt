package dev.weft.lab.scenarios.coroutines

import dev.weft.kotlin.Virtual
import dev.weft.kotlin.VirtualThreadDispatcher
import dev.weft.lab.Goal
import dev.weft.lab.MemoryMeter
import dev.weft.lab.Mode
import dev.weft.lab.Scenario
import dev.weft.lab.ScenarioContext
import dev.weft.lab.Stats
import dev.weft.recording.EventRecording
import dev.weft.scheduler.SchedulerSampler
import dev.weft.scheduler.SchedulerSamples
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.IO_PARALLELISM_PROPERTY_NAME
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.asExecutor
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.supervisorScope
import kotlinx.coroutines.withContext
import kotlinx.coroutines.yield
import java.lang.management.ManagementFactory
import java.time.Duration
import java.time.Instant
import java.util.Locale
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executor
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference
import java.util.function.Supplier
import kotlin.coroutines.CoroutineContext
import kotlin.math.ceil

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
 * A fifth variant, `weft-executor`, runs the same N sleeps on weft's dispatcher used as a plain
 * `Executor`, without coroutines: the dispatcher's own cost, so that `weft` minus `weft-executor`
 * is what kotlinx's `launch` and `withContext` add per coroutine.
 *
 * At a million tasks the run is bound by memory as much as by CPU: every sleeping task keeps its
 * objects and its frozen stack on the heap for a second, and the collector copies that live set.
 * So each variant also reports the collector's pause time during its runs and the live heap per
 * sleeping task, measured on the same workload at up to 100,000 tasks.
 *
 * `--full` (and smoke) adds `kotlinx-floor`: the same coroutines on the cheapest dispatcher there is
 * (one shared instance, so nested `withContext` runs in place as on weft; every dispatch starts a new
 * unnamed virtual thread; no reuse, no names, no context, no timer). It is what kotlinx's `launch` and
 * `withContext` cost on virtual threads whatever the dispatcher: raw to `kotlinx-floor` is kotlinx's
 * share of the gap at a million coroutines, `kotlinx-floor` to `weft` is weft's (decision 0870). Every
 * measured variant also reports the bytes it allocated per task and the JVM's CPU seconds per run,
 * which a loaded machine distorts far less than the wall time.
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
        // Waves of ioParallelism sleeps of 1 s each: 2 in quick mode are enough to scale per wave.
        val ioSubset = ioParallelism * ctx.size(1, 2, 10)

        ctx.limitNote(
            String.format(
                Locale.ROOT,
                "Little's law: %,d sleeps of 1 s on virtual threads end in 1 s plus the" +
                    " cost of creating %,d threads (measured here); Dispatchers.IO's %d threads need ceil(N / %d) = %,d s",
                n,
                n,
                ioParallelism,
                ioParallelism,
                ceil(n.toDouble() / ioParallelism).toLong(),
            ),
        )

        warmUp(ctx, minOf(n, 100_000))
        val creation = Stats.median(List(iterations) { time { startAndJoinEmpty(n) } })
        val limit = 1.0 + creation
        ctx.progress(String.format(Locale.ROOT, "creation cost of %,d virtual threads: %.3f s", n, creation))

        // Interleaved, in a new order every iteration, so drift in the machine's load falls on
        // every variant alike.
        val variants = listOf(
            Measured("raw-virtual", n) { size, work -> rawVirtual(size, work) },
            Measured("weft", n) { size, work -> coroutines(size, work) { Dispatchers.Virtual } },
            Measured("naive-loom", n) { size, work -> coroutines(size, work) { naiveLoom } },
            Measured("weft-executor", n) { size, work -> onExecutor(size, work, Dispatchers.Virtual.asExecutor()) },
        ) + if (ctx.mode() == Mode.QUICK) {
            // The quick lab's budget has no room for it; its share is measured at a million.
            emptyList()
        } else {
            listOf(Measured(FLOOR, n) { size, work -> coroutines(size, work) { KotlinxFloor } })
        }
        // More iterations, up to three times as many, while the weft goal is inconclusive and the
        // budget keeps 12 s for Dispatchers.IO, the heap readings and the JFR count (decision 0804).
        val (rawRuns, weftRuns) = variants
        val rounds = ctx.rounds(iterations, 3 * iterations).reserve(Duration.ofSeconds(12))
            .watch(
                Goal.AT_MOST,
                if (n < 1_000_000) WEFT_SECONDS_TARGET else WEFT_VS_RAW_TARGET,
                Supplier {
                    if (n < 1_000_000) {
                        weftRuns.times.toList()
                    } else {
                        weftRuns.times.zip(rawRuns.times) { w, r -> w / r }
                    }
                },
            )
        while (rounds.another()) {
            for (v in variants.shuffled()) {
                ctx.progress("${v.name}: ${"%,d".format(n)} coroutines, iteration ${rounds.count()}")
                v.run(ctx)
            }
        }
        ctx.progress("dispatchers-io: ${"%,d".format(ioSubset)} of ${"%,d".format(n)} coroutines, then extrapolated")
        val io = Measured("dispatchers-io", ioSubset) { size, work -> coroutines(size, work) { Dispatchers.IO } }
        io.run(ctx)
        // The article's elastic variant: 5,000 threads at most. Only in full runs (and a tiny smoke
        // check): thousands of platform threads do not fit the quick lab's time budget.
        val io5000 = if (ctx.mode() == Mode.QUICK) {
            null
        } else {
            val subset = ctx.size(500, 0, 2 * IO_5000)
            ctx.progress("dispatchers-io-5000: ${"%,d".format(subset)} of ${"%,d".format(n)} coroutines, then extrapolated")
            Measured("dispatchers-io-5000", subset) { size, work -> coroutines(size, work) { io5000Dispatcher } }
                .also { it.run(ctx) }
        }

        // 20,000 sleeping tasks hold tens of MB, well above the heap reading's noise, in a third of
        // the time 100,000 take (the quick lab's budget for this scenario is 30 s).
        val memorySize = ctx.size(200, 20_000, 100_000)
        // Long enough for every task to be asleep when the heap is read (a reading taken after one
        // woke is taken again with twice the sleep); its length does not change the bytes held.
        val memorySleepMillis = ctx.size(1_000, 500, 1_000).toLong()
        for (v in variants) {
            ctx.progress("${v.name}: live heap per sleeping task, at ${"%,d".format(memorySize)} tasks")
            v.bytesPerTask = liveBytesPerTask(memorySize, memorySleepMillis) { work -> v.body(memorySize, work) }
        }

        ctx.progress("threads per 1,000 resumes (JFR jdk.VirtualThreadStart)")
        val perResume = threadsPerThousandResumes(ctx.size(50, 1_000, 10_000))

        val raw = variants[0].median
        val weft = variants[1].median
        val naive = variants[2].median
        val executorOnly = variants[3].median
        val ioWaves = ceil(ioSubset.toDouble() / ioParallelism)
        val ioPerWave = io.median / ioWaves
        val nWaves = ceil(n.toDouble() / ioParallelism)
        val ioExtrapolated = ioPerWave * nWaves
        val full = ctx.mode() == Mode.FULL

        report(ctx, variants[0], raw, limit, null, n, creation)
        report(ctx, variants[1], weft, limit, null, n, creation, perResume.weft, perResume.weftNoReuse)
        report(ctx, variants[2], naive, limit, if (full) 6.0 else null, n, creation, perResume.naive)
        report(ctx, variants[3], executorOnly, limit, null, n, creation)
        variants.getOrNull(4)?.let { floor -> report(ctx, floor, floor.median, limit, null, n, creation) }
        ctx.variant("dispatchers-io").unit("s").value(ioExtrapolated).limit(nWaves * 1.0)
            .published(if (full) 1_000_000 * 1.0 / 64 else null)
            .kind(dev.weft.lab.Variant.EXTRAPOLATED)
            .rounds(io.times)
            .extra("extrapolated", true)
            .extra("measured_coroutines", ioSubset)
            .extra("measured_s", io.median)
            .extra(
                "method",
                "measured $ioSubset coroutines (${ioWaves.toInt()} waves of $ioParallelism threads)," +
                    " scaled per wave to ${nWaves.toLong()} waves",
            )
            .extra("parallelism", ioParallelism)
            .extra("gc_pause_s", io.gcPause)
            .extra("coroutines", n)
            .apply { if (full) extra("published_is", "the article's estimate, 1,000,000 x 1 s / 64 threads (4 h 20 min), not a measurement") }
            .scheduler(io.samples!!)
            .add()

        if (io5000 != null) {
            val waves = ceil(io5000.size.toDouble() / IO_5000)
            val total = io5000.median / waves * ceil(n.toDouble() / IO_5000)
            ctx.variant("dispatchers-io-5000").unit("s").value(total).limit(ceil(n.toDouble() / IO_5000))
                // The article: ~3 min 20 s for a million sleeps, peaking at 5,556 threads.
                .published(if (full) 200.0 else null)
                .kind(dev.weft.lab.Variant.EXTRAPOLATED)
                .rounds(io5000.times)
                .extra("extrapolated", true)
                .extra("measured_coroutines", io5000.size)
                .extra("measured_s", io5000.median)
                .extra(
                    "method",
                    "measured ${io5000.size} coroutines on Dispatchers.IO.limitedParallelism($IO_5000)" +
                        " (${waves.toInt()} waves), scaled per wave to ${ceil(n.toDouble() / IO_5000).toLong()} waves",
                )
                .extra("parallelism", IO_5000)
                .extra("coroutines", n)
                .apply { if (full) extra("published_peak_threads", 5_556) }
                .scheduler(io5000.samples!!)
                .add()
            val peak = io5000.samples!!.toMap()["peak_platform_threads"]
            ctx.note(
                String.format(
                    Locale.ROOT,
                    "dispatchers-io-5000 (Dispatchers.IO.limitedParallelism(5000)) is extrapolated:" +
                        " %,d coroutines ran (%d waves of up to 5,000 sleeps) in %.2f s, scaled to the %,d waves of N = %,d; its" +
                        " JVM peaked at %s platform threads (the article: 5,556 threads, about 3 min 20 s for a million).",
                    io5000.size,
                    waves.toInt(),
                    io5000.median,
                    ceil(n.toDouble() / IO_5000).toLong(),
                    n,
                    peak,
                ),
            )
        }

        notes(ctx, n, raw, weft, naive, ioExtrapolated, ioSubset, ioParallelism, perResume)
        goals(ctx, n, variants, ioExtrapolated)
        memoryNote(ctx, n, variants, memorySize)
        variants.getOrNull(4)?.let { floor -> floorNote(ctx, n, variants[0], variants[1], floor) }
    }

    /**
     * Why weft at N stays above raw virtual threads: the share of kotlinx itself (`kotlinx-floor`,
     * coroutines on the cheapest dispatcher, against raw) and weft's own (weft against the floor), in
     * time (paired by iteration), CPU, bytes allocated and held per task, and collector pauses.
     */
    private fun floorNote(ctx: ScenarioContext, n: Int, raw: Measured, weft: Measured, floor: Measured) {
        val floorVsRaw = Stats.median(floor.times.zip(raw.times) { f, r -> f / r })
        val weftVsFloor = Stats.median(weft.times.zip(floor.times) { w, f -> w / f })
        ctx.note(
            String.format(
                Locale.ROOT,
                "Where weft's gap to raw virtual threads goes at N = %,d: kotlinx-floor, the same coroutines on the" +
                    " cheapest dispatcher (a new unnamed virtual thread per dispatch, nested withContext in place), takes" +
                    " %.3fx raw's time (paired medians; CPU %.2f s against %.2f s), and weft %.3fx kotlinx-floor's (CPU %.2f s)." +
                    " Per task, raw allocates %.0f B and holds %.0f B while asleep; kotlinx-floor %.0f B and %.0f B (launch," +
                    " withContext, their jobs, contexts and continuations, and a deeper frozen stack); weft %.0f B and %.0f B" +
                    " (a thread name and a reusable worker on top). Collector pauses per run: raw %.2f s, kotlinx-floor %.2f s," +
                    " weft %.2f s. The part from raw to kotlinx-floor is kotlinx's own cost per coroutine, which no dispatcher" +
                    " removes; decision 0870 has the per-class table.",
                n, floorVsRaw, floor.cpu, raw.cpu, weftVsFloor, weft.cpu,
                raw.allocPerTask, raw.bytesPerTask, floor.allocPerTask, floor.bytesPerTask, weft.allocPerTask, weft.bytesPerTask,
                raw.gcPause, floor.gcPause, weft.gcPause,
            ),
        )
    }

    /**
     * One variant: [body] runs `size` tasks, each calling the `work` it is given, and returns once
     * all have ended; [run] times it at [size].
     */
    private class Measured(val name: String, val size: Int, val body: (size: Int, work: () -> Unit) -> Unit) {
        val times = mutableListOf<Double>()
        private val gcPauses = mutableListOf<Double>()
        private val allocations = mutableListOf<Double>()
        private val cpuTimes = mutableListOf<Double>()
        var samples: SchedulerSamples? = null
        var bytesPerTask: Double = Double.NaN
        val median: Double get() = Stats.median(times)

        /** The collector's pause time during the runs, median over them, in seconds. */
        val gcPause: Double get() = Stats.median(gcPauses)

        /** Heap bytes the JVM allocated per task during a run (carriers included), median over the runs; NaN when unreadable. */
        val allocPerTask: Double get() = if (allocations.isEmpty()) Double.NaN else Stats.median(allocations)

        /** The JVM's CPU time during a run (every thread: carriers, collector, compiler), median over the runs, in seconds; NaN when unreadable. */
        val cpu: Double get() = if (cpuTimes.isEmpty()) Double.NaN else Stats.median(cpuTimes)

        /** One timed run in a memory window of its own; the scheduler samples of the latest run are kept. */
        fun run(ctx: ScenarioContext) {
            System.gc()
            val sampler = SchedulerSampler.start(Duration.ofMillis(50))
            val before = MemoryMeter.now() // the collector's pauses and the bytes allocated so far
            val cpuBefore = processCpuNanos()
            try {
                ctx.measuring(name).use { times += time { body(size, SLEEP_1S) } }
                val cpuAfter = processCpuNanos()
                if (cpuBefore >= 0 && cpuAfter >= 0) cpuTimes += (cpuAfter - cpuBefore) / 1e9
                val allocatedAfter = MemoryMeter.allocatedBytes()
                if (before.allocatedBytes() >= 0 && allocatedAfter >= 0) {
                    allocations += (allocatedAfter - before.allocatedBytes()).toDouble() / size
                }
            } finally {
                gcPauses += (MemoryMeter.now().gcPauseMs() - before.gcPauseMs()) / 1e3
                samples = sampler.stop()
            }
        }
    }

    private fun report(
        ctx: ScenarioContext,
        v: Measured,
        value: Double,
        limit: Double,
        published: Double?,
        n: Int,
        creation: Double,
        threadsPer1000: Double? = null,
        noReuse: Double? = null,
    ) {
        ctx.variant(v.name).unit("s").value(value).limit(limit).published(published)
            .rounds(v.times)
            .extra("coroutines", n)
            .extra("iterations_s", v.times.toList())
            .extra("creation_cost_s", creation)
            .apply { if (threadsPer1000 != null) extra("threads_per_1000_resumes", threadsPer1000) }
            .apply { if (noReuse != null) extra("threads_per_1000_resumes_without_reuse", noReuse) }
            .extra("gc_pause_s", v.gcPause)
            .extra("live_bytes_per_task", v.bytesPerTask)
            .extra("alloc_bytes_per_task", v.allocPerTask)
            .extra("cpu_s", v.cpu)
            .scheduler(v.samples!!)
            .add()
    }

    private fun notes(
        ctx: ScenarioContext,
        n: Int,
        raw: Double,
        weft: Double,
        naive: Double,
        io: Double,
        ioSubset: Int,
        ioParallelism: Int,
        perResume: PerResume,
    ) {
        val size = "%,d".format(n)
        ctx.note(
            String.format(
                Locale.ROOT,
                "At N = %s: weft %.2f s, raw virtual threads %.2f s (weft / raw = %.3f)," +
                    " the one-liner %.2f s, Dispatchers.IO %.0f s extrapolated (IO / weft = %.0fx).",
                size, weft, raw, weft / raw, naive, io, io / weft,
            ),
        )
        ctx.note(
            String.format(
                Locale.ROOT,
                "dispatchers-io is extrapolated, not measured at N = %s: %,d coroutines ran" +
                    " (waves of $ioParallelism sleeps on its $ioParallelism threads) and the time per wave was scaled to the ceil(N / $ioParallelism) waves of N.",
                size,
                ioSubset,
            ),
        )
        ctx.note(
            String.format(
                Locale.ROOT,
                "Virtual threads started per 1,000 resumes: the one-liner %.0f, weft %.0f" +
                    " (%.0f without idle-thread reuse). Workload: coroutines that each start, then 4 times enter and leave a" +
                    " nested withContext, yield and delay(1) (17 resumes each). weft cuts threads by running nested withContext" +
                    " in place, resuming a delay on the thread handed its wake-up, and reusing idle threads; the one-liner" +
                    " starts one per resume and times every delay on kotlinx's DefaultExecutor platform thread.",
                perResume.naive,
                perResume.weft,
                perResume.weftNoReuse,
            ),
        )
    }

    /** The issue's goals, judged by the median over iterations (paired by iteration for ratios). */
    private fun goals(ctx: ScenarioContext, n: Int, variants: List<Measured>, ioExtrapolated: Double) {
        val (raw, weft) = variants
        val size = "%,d".format(n)
        if (n < 1_000_000) {
            ctx.goal("weft: $size coroutines sleeping 1 s end within 1.3 s (per iteration)")
                .perRound(weft.times).unit("s").atMost(WEFT_SECONDS_TARGET).add()
        } else {
            ctx.goal("weft within 1.10x of the raw virtual-thread executor at N = $size (paired by iteration)")
                .pairedRatios(weft.times, raw.times).atMost(WEFT_VS_RAW_TARGET).add()
        }
        ctx.goal("Dispatchers.IO (extrapolated) at least 100x slower than weft at N = $size")
            .measured(ioExtrapolated / weft.median).atLeast(100.0).add()
    }

    /**
     * Where the time between raw threads and weft goes: the dispatcher alone (weft-executor), what
     * kotlinx adds per coroutine, the collector's pauses and the live heap each sleeping task holds.
     */
    private fun memoryNote(ctx: ScenarioContext, n: Int, variants: List<Measured>, memorySize: Int) {
        val (raw, weft, naive, executorOnly) = variants
        ctx.note(
            String.format(
                Locale.ROOT,
                "Where the time goes at N = %,d: weft's dispatcher alone (weft-executor, the same" +
                    " sleeps without coroutines) takes %.2f s, %.3fx raw; kotlinx's launch + withContext add %.2f s on top (weft %.2f s)." +
                    " Collector pauses during the runs: raw %.2f s, weft-executor %.2f s, weft %.2f s, the one-liner %.2f s;" +
                    " of the %.2f s between weft and raw, pauses alone account for %.2f s.",
                n, executorOnly.median, executorOnly.median / raw.median, weft.median - executorOnly.median, weft.median,
                raw.gcPause, executorOnly.gcPause, weft.gcPause, naive.gcPause,
                weft.median - raw.median, weft.gcPause - raw.gcPause,
            ),
        )
        ctx.note(
            String.format(
                Locale.ROOT,
                "Live heap per sleeping task (after a full GC with %,d tasks asleep): raw %.0f B," +
                    " weft-executor %.0f B, weft %.0f B (%.2fx raw), the one-liner %.0f B. A coroutine keeps kotlinx's job," +
                    " context and continuation objects and a deeper frozen stack alive while it sleeps, and the collector" +
                    " copies that live set while the run goes on.",
                memorySize,
                raw.bytesPerTask,
                executorOnly.bytesPerTask,
                weft.bytesPerTask,
                weft.bytesPerTask / raw.bytesPerTask,
                naive.bytesPerTask,
            ),
        )
    }

    /**
     * The live heap each task holds while it sleeps, in bytes: the heap after a full GC taken once
     * all [count] tasks are asleep, less the heap after a full GC once they have all ended, over
     * [count]. The baseline is taken after, not before: the JDK frees some garbage of earlier runs
     * lazily (the registry of the one-liner's million executors is purged when the next executor
     * registers), and that must not count against the tasks measured. If a task woke before the
     * reading (a slow machine), the reading mixes asleep and finished tasks: it is taken again with
     * a sleep twice as long, starting from [firstSleepMillis].
     */
    private fun liveBytesPerTask(count: Int, firstSleepMillis: Long, run: (work: () -> Unit) -> Unit): Double {
        val memory = ManagementFactory.getMemoryMXBean()
        var sleepMillis = firstSleepMillis
        repeat(4) {
            val asleep = CountDownLatch(count)
            val woke = AtomicInteger()
            var reading = -1L
            val observer = Thread.ofPlatform().name("weft-lab-heap-reader").start {
                try {
                    asleep.await()
                } catch (_: InterruptedException) {
                    return@start
                }
                System.gc()
                val used = memory.heapMemoryUsage.used
                if (woke.get() == 0) reading = used
            }
            val sleep = sleepMillis
            try {
                run {
                    asleep.countDown()
                    Thread.sleep(sleep)
                    woke.incrementAndGet()
                }
            } finally {
                if (asleep.count > 0) observer.interrupt()
                observer.join()
            }
            check(asleep.count == 0L) { "live heap per task: only ${count - asleep.count} of $count tasks ran" }
            System.gc()
            val baseline = memory.heapMemoryUsage.used
            if (reading >= 0) return (reading - baseline).toDouble() / count
            sleepMillis *= 2
        }
        throw IllegalStateException(
            "live heap per task: tasks kept waking before the heap could be read, even with" +
                " sleeps of ${sleepMillis / 2} ms; the machine is too loaded to take this reading",
        )
    }

    /** Runs every variant once at a small size, so that the measured runs start with compiled code. */
    private fun warmUp(ctx: ScenarioContext, n: Int) {
        ctx.progress("warm-up: ${"%,d".format(n)} short sleeps per variant")
        val short = { Thread.sleep(10) }
        Executors.newVirtualThreadPerTaskExecutor().use { ex -> repeat(n) { ex.submit(short) } }
        coroutines(n, short) { Dispatchers.Virtual }
        coroutines(n, short) { naiveLoom }
        onExecutor(n, short, Dispatchers.Virtual.asExecutor())
        if (ctx.mode() != Mode.QUICK) coroutines(n, short) { KotlinxFloor }
        startAndJoinEmpty(n)
    }

    private fun rawVirtual(n: Int, work: () -> Unit) {
        Executors.newVirtualThreadPerTaskExecutor().use { ex -> repeat(n) { ex.submit { work() } } }
    }

    /** Runs [work] [n] times on [executor] and waits for all of them; a failure surfaces here. */
    private fun onExecutor(n: Int, work: () -> Unit, executor: Executor) {
        val done = CountDownLatch(n)
        val failure = AtomicReference<Throwable>()
        repeat(n) {
            executor.execute {
                try {
                    work()
                } catch (e: Throwable) {
                    failure.compareAndSet(null, e)
                } finally {
                    done.countDown()
                }
            }
        }
        done.await()
        failure.get()?.let { throw it }
    }

    private fun coroutines(n: Int, work: () -> Unit, dispatcher: () -> CoroutineDispatcher) = runBlocking {
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
            EventRecording.start({ starts += it.startTime }, "jdk.VirtualThreadStart").use { recording ->
                val windows = listOf<() -> CoroutineDispatcher>({ Dispatchers.Virtual }, { noReuse }, { naiveLoom })
                    .map { d -> window { resumeWorkload(coroutineCount, d) } }
                recording.stop() // returns once every recorded event has been delivered
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

    /**
     * The cheapest coroutine dispatcher on virtual threads, `kotlinx-floor`'s: one instance (so a nested
     * `withContext` on it runs in place, as on weft) that starts a new unnamed virtual thread per
     * dispatch, with nothing else (no reuse, names, context, close or timer). What remains at N is
     * kotlinx's own cost per coroutine.
     */
    private object KotlinxFloor : CoroutineDispatcher() {
        override fun dispatch(context: CoroutineContext, block: Runnable) {
            Thread.ofVirtual().start(block)
        }

        override fun toString(): String = "kotlinx-floor"
    }

    private companion object {
        /** The variant of kotlinx on [KotlinxFloor]: full and smoke runs only. */
        const val FLOOR = "kotlinx-floor"

        /** The article's elastic dispatcher's cap: Dispatchers.IO.limitedParallelism(5000). */
        const val IO_5000 = 5_000

        /** Below 1,000,000 coroutines: weft's wall time, at most this many seconds. */
        const val WEFT_SECONDS_TARGET = 1.3

        /** At 1,000,000: weft's time over the raw virtual-thread executor's, at most this. */
        const val WEFT_VS_RAW_TARGET = 1.10

        /** One instance: kotlinx's views of Dispatchers.IO share its elastic pool. */
        val io5000Dispatcher: CoroutineDispatcher = Dispatchers.IO.limitedParallelism(IO_5000)

        /** The articles' task: a blocking sleep of one second. */
        val SLEEP_1S: () -> Unit = { Thread.sleep(1000) }

        /** This JVM's CPU time so far (all its threads), in nanoseconds, or -1 when the JVM does not tell. */
        fun processCpuNanos(): Long = (ManagementFactory.getOperatingSystemMXBean() as? com.sun.management.OperatingSystemMXBean)?.processCpuTime ?: -1L

        fun time(body: () -> Unit): Double {
            val start = System.nanoTime()
            body()
            return (System.nanoTime() - start) / 1e9
        }
    }
}
