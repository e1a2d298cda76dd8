package dev.weft.lab;

import dev.weft.thread.SchedulerSamples;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
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
    private final List<String> notes = new ArrayList<>();
    private final List<Process> started = new ArrayList<>();
    private String limitNote;

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
     * Adds a variant from a map with the keys {@code name}, {@code unit}, {@code value} (required)
     * and {@code limit}, {@code published}, {@code extra} (optional): the form Clojure and Kotlin
     * scenarios use.
     *
     * @throws IllegalArgumentException if a required key is missing or a number is not a number
     */
    public void addVariant(Map<String, ?> variant) {
        VariantBuilder b = variant(string(variant, "name"))
                .unit(string(variant, "unit"))
                .value(number(variant, "value"));
        if (variant.get("limit") != null) {
            b.limit(number(variant, "limit"));
        }
        if (variant.get("published") != null) {
            b.published(number(variant, "published"));
        }
        if (variant.get("extra") instanceof Map<?, ?> extra) {
            extra.forEach((k, v) -> b.extra(String.valueOf(k), v));
        }
        b.add();
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
     * Starts a helper JVM (a server, a load generator) with this JVM's java and classpath. The lab
     * ends it, by its PID, when the scenario ends, if the scenario has not already. Its output goes
     * to {@code <workDir>/<label>.log}.
     */
    public Process startJvm(String label, List<String> jvmArgs, String mainClass, List<String> args) throws IOException {
        Path log = workDir.resolve(label + ".log");
        Process p = new ProcessBuilder(Jvm.command(jvmArgs, classpath(), mainClass, args))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        synchronized (this) {
            started.add(p);
        }
        return p;
    }

    /** Ends every helper JVM this scenario started and that is still alive. */
    public void stopStartedJvms() {
        List<Process> toStop;
        synchronized (this) {
            toStop = List.copyOf(started);
            started.clear();
        }
        toStop.forEach(Jvm::stop);
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

    private static String string(Map<String, ?> m, String key) {
        Object v = m.get(key);
        if (v == null) {
            throw new IllegalArgumentException("variant map needs \"" + key + "\"; got keys " + m.keySet());
        }
        return v.toString();
    }

    private static double number(Map<String, ?> m, String key) {
        if (m.get(key) instanceof Number n) {
            return n.doubleValue();
        }
        throw new IllegalArgumentException("variant \"" + key + "\" must be a number; got " + m.get(key));
    }

    /** Builds one variant; {@link #add()} reports it. */
    public final class VariantBuilder {
        private final String name;
        private String unit;
        private Double value;
        private Double limit;
        private Double published;
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

        /** Keeps one more figure under {@code extra.<key>}. */
        public VariantBuilder extra(String key, Object value) {
            extra.put(key, value);
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
            Variant v = Variant.of(name, unit, value, limit, published, extra);
            ScenarioContext.this.add(v);
            return v;
        }
    }
}
