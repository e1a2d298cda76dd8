package dev.weft.lab;

import dev.weft.scheduler.SchedulerSamples;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a running {@link Scenario} gets from the lab: the mode, a place to report progress,
 * variants, notes and its limit, a scratch folder, and a way to start helper JVMs that the lab
 * ends for it.
 *
 * <p>One context serves one scenario in one JVM; its methods may be called from any thread.
 *
 * <pre>{@code
 * public void run(ScenarioContext ctx) {
 *     int n = ctx.size(10, 1_000, 100_000);
 *     ctx.limitNote("Little's law: " + n + " tasks sleeping 1 s finish in >= 1 s");
 *     double ms = measure(n);
 *     ctx.variant("virtual-threads").unit("ms").value(ms).limit(1000.0).published(3653.0).add();
 * }
 * }</pre>
 */
public final class ScenarioContext {

    private final Mode mode;
    private final PrintStream progress;
    private final Path workDir;
    private final List<Variant> variants = new ArrayList<>();
    private final List<Goal> goals = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<ChildJvm> started = new ArrayList<>();
    private final Map<String, Memory> memory = new LinkedHashMap<>();
    private String limitNote;
    private Instant deadline;

    /**
     * A context for one scenario run.
     *
     * @param mode     the sizes to run at
     * @param progress where progress lines go (the runner relays them to the console)
     * @param workDir  a scratch folder for this scenario (created if missing)
     */
    public ScenarioContext(Mode mode, PrintStream progress, Path workDir) {
        this.mode = Objects.requireNonNull(mode, "mode");
        this.progress = Objects.requireNonNull(progress, "progress");
        this.workDir = Objects.requireNonNull(workDir, "workDir");
    }

    /**
     * A context whose scenario has {@code budgetSeconds} from its JVM's start: {@link #rounds}
     * adds rounds only while they fit before then.
     *
     * @param budgetSeconds the descriptor's budget for the mode, or null for none
     */
    public ScenarioContext(Mode mode, PrintStream progress, Path workDir, Integer budgetSeconds) {
        this(mode, progress, workDir);
        if (budgetSeconds != null) {
            Instant start = ProcessHandle.current().info().startInstant().orElse(Instant.now());
            this.deadline = start.plusSeconds(budgetSeconds);
        }
    }

    /** The sizes to run at. */
    public Mode mode() {
        return mode;
    }

    /** The size for the current mode: {@code smoke}, {@code quick} or {@code full}. */
    public int size(int smoke, int quick, int full) {
        return switch (mode) {
            case SMOKE -> smoke;
            case QUICK -> quick;
            case FULL -> full;
        };
    }

    /**
     * The verdict on one of an issue's goals, worded the same in every scenario: "met" or
     * "NOT met", or "not judged (smoke run)" in smoke mode, whose sizes are too small to judge.
     *
     * <p>Kept until every scenario reports its goals with {@link #goal(String)}, which carries
     * the figure, the target and the verdict into results.json and the reports' verdict table;
     * a verdict built with this method appears only in a note.
     */
    public String verdict(boolean met) {
        if (mode == Mode.SMOKE) {
            return "not judged (smoke run)";
        }
        return met ? "met" : "NOT met";
    }

    /** Prints one line of progress; the runner shows it under the scenario's name. */
    public void progress(String message) {
        synchronized (progress) {
            progress.println(message);
            progress.flush();
        }
    }

    /** States in one line why the limits are the ceiling (Little's law for sleep-based scenarios). */
    public synchronized void limitNote(String line) {
        this.limitNote = line;
    }

    /** Adds a finding worth a sentence in the report, e.g. a published figure its own code cannot reach. */
    public synchronized void note(String line) {
        notes.add(Objects.requireNonNull(line, "line"));
    }

    /** Starts reporting a variant; finish with {@link VariantBuilder#add()}. */
    public VariantBuilder variant(String name) {
        return new VariantBuilder(name);
    }

    /**
     * Adds a variant from a map, the form Clojure and Kotlin scenarios use. Keys (dashes or
     * underscores): {@code name}, {@code unit}, {@code value} (required); {@code limit},
     * {@code published}, {@code published-range} ({@code [low high]}), {@code better}
     * ({@code higher}/{@code lower}), {@code kind} ({@code measured}/{@code extrapolated}/
     * {@code estimated}), {@code limit-label}, {@code rounds} (the per-round figures),
     * {@code peak-platform-threads} and {@code extra} (a map), optional. See the builder's
     * methods for what each means.
     *
     * @throws IllegalArgumentException if a required key is missing or a number is not a number
     */
    public void addVariant(Map<String, ?> variant) {
        Map<String, Object> m = new LinkedHashMap<>();
        variant.forEach((k, v) -> m.put(String.valueOf(k).replace('-', '_'), v));
        VariantBuilder b = variant(string(m, "name")).unit(string(m, "unit")).value(number(m, "value"));
        if (m.get("limit") != null) {
            b.limit(number(m, "limit"));
        }
        if (m.get("published") != null) {
            b.published(number(m, "published"));
        }
        if (m.get("published_range") != null) {
            List<Double> range = numbers(m, "published_range");
            if (range.size() != 2) {
                throw new IllegalArgumentException("variant \"published-range\" is [low high]; got " + range);
            }
            b.publishedRange(range.get(0), range.get(1));
        }
        if (m.get("better") != null) {
            b.better(m.get("better").toString());
        }
        if (m.get("kind") != null) {
            b.kind(m.get("kind").toString());
        }
        if (m.get("limit_label") != null) {
            b.limitLabel(m.get("limit_label").toString());
        }
        if (m.get("rounds") != null) {
            b.rounds(numbers(m, "rounds"));
        }
        if (m.get("peak_platform_threads") != null) {
            b.peakPlatformThreads((long) number(m, "peak_platform_threads"));
        }
        if (m.get("extra") instanceof Map<?, ?> extra) {
            extra.forEach((k, v) -> b.extra(String.valueOf(k), v));
        }
        b.add();
    }

    /**
     * A loop of paired rounds that runs at least {@code minimum} and, while a watched goal is
     * still inconclusive and the scenario's budget has room for another round, more, up to
     * {@code maximum} (smoke runs: {@code minimum} only). Rounds run one after another; after
     * each, the interval of every watched goal is recomputed from its per-round figures.
     *
     * <pre>{@code
     * Rounds rounds = ctx.rounds(8, 20)
     *         .watch(Goal.AT_MOST, 1.10, weftMs, argMs);  // live lists: the loop reads them anew
     * while (rounds.another()) {
     *     argMs.add(time(explicitArg));
     *     weftMs.add(time(weftContext));
     * }
     * }</pre>
     */
    public Rounds rounds(int minimum, int maximum) {
        return new Rounds(this, minimum, mode == Mode.SMOKE ? minimum : maximum, deadline);
    }

    /**
     * When the scenario's budget ends (its descriptor's budget for the mode, from its JVM's start),
     * or null when it has none: for a scenario that plans its own rounds against the time left.
     */
    public Instant deadline() {
        return deadline;
    }

    /**
     * Opens a memory window for {@code variant} in this (the scenario's) JVM: close it when the
     * variant's measured run ends. Each window's collector pauses, heap peak and allocated bytes
     * ({@link MemoryMeter}) are added to the variant's, and the variant carries their sum in
     * {@code memory} when it is reported (unless the builder was given one with
     * {@link VariantBuilder#memory}). Open one window at a time: the heap peak is the JVM's.
     *
     * <pre>{@code
     * for (int round = 0; round < rounds; round++) {
     *     try (var w = ctx.measuring("no-lock")) { times.add(run()); }
     * }
     * }</pre>
     */
    public MemoryWindow measuring(String variant) {
        return new MemoryWindow(Objects.requireNonNull(variant, "variant"), MemoryMeter.mark());
    }

    /** A variant's memory window; see {@link #measuring(String)}. */
    public final class MemoryWindow implements AutoCloseable {
        private final String variant;
        private final MemoryMeter.Mark mark;
        private boolean closed;

        private MemoryWindow(String variant, MemoryMeter.Mark mark) {
            this.variant = variant;
            this.mark = mark;
        }

        /** Ends the window and adds what it measured to its variant's memory. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            Memory m = mark.since("scenario");
            synchronized (ScenarioContext.this) {
                memory.merge(variant, m, Memory::plus);
            }
        }
    }

    /**
     * Starts reporting one of the scenario's goals; finish with {@link GoalBuilder#add()}.
     *
     * <pre>{@code
     * // judged by the median of paired per-round ratios, with their spread
     * ctx.goal("weft-context within 1.10x of explicit-arg")
     *    .pairedRatios(weftRunsMs, explicitArgRunsMs).atMost(1.10).add();
     * // one figure
     * ctx.goal("weft at N = 10,000 within 1.3 s").measured(1.07).unit("s").atMost(1.3).add();
     * }</pre>
     *
     * In a smoke run the goal is recorded with the verdict {@code not_judged}.
     */
    public GoalBuilder goal(String name) {
        return new GoalBuilder(name);
    }

    /**
     * Adds a goal from a map, the form Clojure and Kotlin scenarios use. Keys: {@code name},
     * {@code target} and {@code direction} ({@code "at-most"}/{@code "at_most"} or
     * {@code "at-least"}/{@code "at_least"}), required; then exactly one of {@code measured}
     * (one figure), {@code per-round} (a list of per-round figures, judged by their median) or
     * {@code numerators} with {@code denominators} (two lists of per-round figures, judged by the
     * median of their paired ratios); optionally {@code unit} (default {@code x}). Keys may use
     * dashes or underscores.
     *
     * @throws IllegalArgumentException naming the missing or malformed key
     */
    public Goal addGoal(Map<String, ?> goal) {
        Map<String, Object> g = new LinkedHashMap<>();
        goal.forEach((k, v) -> g.put(String.valueOf(k).replace('-', '_'), v));
        GoalBuilder b = goal(text(g, "name", "goal"));
        if (g.get("unit") != null) {
            b.unit(g.get("unit").toString());
        }
        boolean measured = g.get("measured") != null;
        boolean perRound = g.get("per_round") != null;
        boolean paired = g.get("numerators") != null || g.get("denominators") != null;
        if ((measured ? 1 : 0) + (perRound ? 1 : 0) + (paired ? 1 : 0) != 1) {
            throw new IllegalArgumentException(
                    "goal \"" + g.get("name") + "\" needs exactly one of measured, per-round,"
                            + " or numerators with denominators; got keys " + goal.keySet());
        }
        if (measured) {
            b.measured(figure(g, "measured", "goal"));
        } else if (perRound) {
            b.perRound(numbers(g, "per_round"));
        } else {
            b.pairedRatios(numbers(g, "numerators"), numbers(g, "denominators"));
        }
        String direction = text(g, "direction", "goal").replace('-', '_');
        double target = figure(g, "target", "goal");
        switch (direction) {
            case Goal.AT_MOST -> b.atMost(target);
            case Goal.AT_LEAST -> b.atLeast(target);
            default ->
                throw new IllegalArgumentException("goal \"" + g.get("name")
                        + "\": direction is \"at-most\" or \"at-least\"; got " + g.get("direction"));
        }
        return b.add();
    }

    /** The goals reported so far. */
    public synchronized List<Goal> goals() {
        return List.copyOf(goals);
    }

    /** The variants reported so far. */
    public synchronized List<Variant> variants() {
        return List.copyOf(variants);
    }

    /** A scratch folder that belongs to this scenario. */
    public Path workDir() {
        return workDir;
    }

    /** The classpath of this JVM, for helper JVMs that run weft code. */
    public String classpath() {
        return System.getProperty("java.class.path");
    }

    /**
     * Starts a helper JVM (a server, a load generator, a variant that needs JVM options of its
     * own) with this JVM's java and classpath, talking the lab's one protocol ({@link ChildJvm}:
     * commands on its input, {@code weft-lab: <tag> <payload>} messages on its output). Its other
     * output goes to {@code <workDir>/<label>.log}. The lab ends it, by its PID, when the scenario
     * ends, if the scenario has not already.
     */
    public ChildJvm startJvm(String label, List<String> jvmArgs, String mainClass, List<String> args)
            throws IOException {
        ChildJvm child = ChildJvm.builder(label, mainClass)
                .classpath(classpath())
                .jvmArgs(jvmArgs)
                .args(args)
                .log(workDir.resolve(label + ".log"))
                .start();
        synchronized (this) {
            started.add(child);
        }
        return child;
    }

    /** Ends every helper JVM this scenario started and that is still alive. */
    public void stopStartedJvms() {
        List<ChildJvm> toStop;
        synchronized (this) {
            toStop = List.copyOf(started);
            started.clear();
        }
        toStop.forEach(ChildJvm::stop);
    }

    /** The limit note set so far, or null. */
    public synchronized String limitNote() {
        return limitNote;
    }

    /** The notes added so far. */
    public synchronized List<String> notes() {
        return List.copyOf(notes);
    }

    private synchronized void add(Variant v) {
        if (variants.stream().anyMatch(existing -> existing.name().equals(v.name()))) {
            throw new IllegalStateException("variant " + v.name() + " was reported twice; report each variant once");
        }
        variants.add(v);
    }

    private synchronized void add(Goal g) {
        if (goals.stream().anyMatch(existing -> existing.name().equals(g.name()))) {
            throw new IllegalStateException("goal \"" + g.name() + "\" was reported twice; report each goal once");
        }
        goals.add(g);
    }

    private static String string(Map<String, ?> m, String key) {
        return text(m, key, "variant");
    }

    private static double number(Map<String, ?> m, String key) {
        return figure(m, key, "variant");
    }

    private static String text(Map<String, ?> m, String key, String what) {
        Object v = m.get(key);
        if (v == null) {
            throw new IllegalArgumentException(what + " map needs \"" + key + "\"; got keys " + m.keySet());
        }
        return v.toString();
    }

    private static double figure(Map<String, ?> m, String key, String what) {
        if (m.get(key) instanceof Number n) {
            return n.doubleValue();
        }
        throw new IllegalArgumentException(what + " \"" + key + "\" must be a number; got " + m.get(key));
    }

    private static List<Double> numbers(Map<String, ?> m, String key) {
        Object v = m.get(key);
        if (v instanceof Collection<?> c && !c.isEmpty() && c.stream().allMatch(x -> x instanceof Number)) {
            return c.stream().map(x -> ((Number) x).doubleValue()).toList();
        }
        throw new IllegalArgumentException("\"" + key + "\" must be a non-empty list of numbers; got " + v);
    }

    /** Builds one goal; {@link #atMost}/{@link #atLeast} set its target, {@link #add()} reports it. */
    public final class GoalBuilder {
        private final String name;
        private String unit = "x";
        private Double measured;
        private List<Double> perRound = List.of();
        private String direction;
        private Double target;

        private GoalBuilder(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException(
                        "a goal needs a name, one sentence, e.g. \"weft within 1.10x of raw\"");
            }
            this.name = name;
        }

        /** The unit of the figure and the target; {@code x} (a ratio) unless set. */
        public GoalBuilder unit(String unit) {
            this.unit = Objects.requireNonNull(unit, "unit");
            return this;
        }

        /** The figure judged, when there are no rounds. */
        public GoalBuilder measured(double value) {
            this.measured = value;
            this.perRound = List.of();
            return this;
        }

        /** Per-round figures: the goal judges their median and keeps them all. */
        public GoalBuilder perRound(List<? extends Number> values) {
            List<Double> v = values.stream().map(Number::doubleValue).toList();
            if (v.isEmpty()) {
                throw new IllegalArgumentException(
                        "goal \"" + name + "\": no per-round figures; measure at least one round");
            }
            this.perRound = v;
            this.measured = Stats.median(v);
            return this;
        }

        /**
         * Two variants' per-round figures, paired by round (same index, same round): the goal
         * judges the median of {@code numerators[i] / denominators[i]} and keeps every ratio.
         *
         * @throws IllegalArgumentException if the lists differ in length or are empty
         */
        public GoalBuilder pairedRatios(List<? extends Number> numerators, List<? extends Number> denominators) {
            if (numerators.size() != denominators.size() || numerators.isEmpty()) {
                throw new IllegalArgumentException("goal \"" + name
                        + "\": paired ratios need two lists of one figure per" + " round, of the same length; got "
                        + numerators.size() + " and " + denominators.size());
            }
            List<Double> ratios = new ArrayList<>();
            for (int i = 0; i < numerators.size(); i++) {
                ratios.add(numerators.get(i).doubleValue() / denominators.get(i).doubleValue());
            }
            return perRound(ratios);
        }

        /** The figure must not exceed {@code target} (times, slowdowns). */
        public GoalBuilder atMost(double target) {
            this.direction = Goal.AT_MOST;
            this.target = target;
            return this;
        }

        /** The figure must reach {@code target} (rates, speed-ups). */
        public GoalBuilder atLeast(double target) {
            this.direction = Goal.AT_LEAST;
            this.target = target;
            return this;
        }

        /**
         * Judges and reports the goal ({@code not_judged} in a smoke run).
         *
         * @throws IllegalStateException if the figure or the target is missing, or a goal of
         *                               this name was already reported
         */
        public Goal add() {
            if (measured == null) {
                throw new IllegalStateException(
                        "goal \"" + name + "\" needs measured(), perRound() or pairedRatios() before add()");
            }
            if (direction == null) {
                throw new IllegalStateException("goal \"" + name + "\" needs atMost() or atLeast() before add()");
            }
            Goal g = Goal.judge(name, unit, measured, target, direction, perRound, mode != Mode.SMOKE);
            ScenarioContext.this.add(g);
            return g;
        }
    }

    /** Builds one variant; {@link #add()} reports it. */
    public final class VariantBuilder {
        private final String name;
        private String unit;
        private Double value;
        private Double limit;
        private Double published;
        private List<Double> publishedRange;
        private String better;
        private String kind;
        private String limitLabel;
        private List<Double> rounds = List.of();
        private Long peakPlatformThreads;
        private Memory memory;
        private final Map<String, Object> extra = new LinkedHashMap<>();

        private VariantBuilder(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("a variant needs a name, e.g. \"no-lock\"");
            }
            this.name = name;
        }

        /** The unit of value, limit and published, e.g. {@code tasks/s} or {@code ms}. */
        public VariantBuilder unit(String unit) {
            this.unit = unit;
            return this;
        }

        /** The measured figure. */
        public VariantBuilder value(double value) {
            this.value = value;
            return this;
        }

        /**
         * A published range, as the article gave it ("200-500 ns"): recorded as
         * {@code published_range = [low, high]} and {@code published} = its midpoint.
         */
        public VariantBuilder publishedRange(double low, double high) {
            this.publishedRange = List.of(low, high);
            this.published = (low + high) / 2;
            return this;
        }

        /**
         * Which way the figure improves: {@code higher} (a rate) or {@code lower} (a time). Unless
         * set, {@code lower} for a unit of time ({@code ms}, {@code s}, {@code ns/switch}...) and
         * {@code higher} otherwise.
         */
        public VariantBuilder better(String better) {
            this.better = better;
            return this;
        }

        /**
         * {@code measured} (the default), {@code extrapolated} (measured on a subset and scaled;
         * say how in an extra or a note) or {@code estimated} (computed, not run). Reports draw
         * anything but measured visibly differently.
         */
        public VariantBuilder kind(String kind) {
            this.kind = kind;
            return this;
        }

        /**
         * What the limit is, when it is not this machine's physical limit: e.g. {@code explicit-arg
         * in this run} for a floor that is another variant's time. Reports name it.
         */
        public VariantBuilder limitLabel(String label) {
            this.limitLabel = label;
            return this;
        }

        /**
         * The figure of every measured round, in the order they ran (the value is usually their
         * median). Kept in results.json so that {@code --compare} can judge a change against
         * the run-to-run spread.
         */
        public VariantBuilder rounds(List<? extends Number> rounds) {
            this.rounds = rounds.stream().map(Number::doubleValue).toList();
            return this;
        }

        /**
         * The peak number of platform threads while the variant ran. Unless set, taken from
         * {@code extra.peak_platform_threads} or the scheduler samples ({@link #scheduler}).
         */
        public VariantBuilder peakPlatformThreads(long peak) {
            this.peakPlatformThreads = peak;
            return this;
        }

        /** The physical limit on this machine, in the same unit. */
        public VariantBuilder limit(Double limit) {
            this.limit = limit;
            return this;
        }

        /** The figure the article published, in the same unit. */
        public VariantBuilder published(Double published) {
            this.published = published;
            return this;
        }

        /**
         * Keeps one more figure under {@code extra.<key>}. A number that is not finite (NaN, an
         * infinity: a figure a frozen or empty run could not measure) is kept as null, since JSON
         * has no such number and results.json must stay valid JSON.
         */
        public VariantBuilder extra(String key, Object value) {
            boolean notFinite = (value instanceof Double d && !Double.isFinite(d))
                    || (value instanceof Float f && !Float.isFinite(f));
            extra.put(key, notFinite ? null : value);
            return this;
        }

        /**
         * What the memory of the JVM that ran the variant did (e.g. a server JVM's, read there with
         * {@link MemoryMeter}); unless set, the sum of the variant's {@link #measuring} windows, if any.
         */
        public VariantBuilder memory(Memory memory) {
            this.memory = memory;
            return this;
        }

        /** Keeps what the scheduler did during this variant under {@code extra.scheduler}. */
        public VariantBuilder scheduler(SchedulerSamples samples) {
            return extra("scheduler", samples.toMap());
        }

        /**
         * Reports the variant.
         *
         * @throws IllegalStateException if unit or value is missing, the value is not finite, or a
         *                               variant of this name was already reported
         */
        public Variant add() {
            if (unit == null || value == null) {
                throw new IllegalStateException("variant " + name + " needs a unit and a value before add()");
            }
            if (!Double.isFinite(value)) {
                throw new IllegalStateException("variant " + name + " measured " + value + "; a figure must be finite");
            }
            Memory m = memory;
            if (m == null) {
                synchronized (ScenarioContext.this) {
                    m = ScenarioContext.this.memory.get(name);
                }
            }
            Variant v = new Variant(
                    name,
                    unit,
                    value,
                    limit,
                    Variant.ratio(value, limit),
                    published,
                    publishedRange,
                    better,
                    kind,
                    limitLabel,
                    rounds,
                    peakPlatformThreads,
                    null,
                    m,
                    extra);
            ScenarioContext.this.add(v);
            return v;
        }
    }
}
