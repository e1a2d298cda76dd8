package dev.weft.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.tools.attach.AttachNotSupportedException;
import dev.weft.pin.PinEvent;
import dev.weft.pin.PinReport;
import dev.weft.pin.internal.PinAggregator;
import dev.weft.scheduler.SchedulerSampler;
import dev.weft.scheduler.SchedulerSamples;
import dev.weft.scheduler.SchedulerSnapshot;
import dev.weft.thread.internal.Durations;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import jdk.jfr.consumer.RecordingFile;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code weft pins <pid>}: records pinning in a running JVM and prints the aggregated report.
 *
 * <p>It attaches to the JVM (the Attach API, as {@code jcmd} does) and, through diagnostic commands
 * only, starts a JFR recording there with {@code jdk.VirtualThreadPinned} at threshold 0 and
 * {@code jdk.VirtualThreadSubmitFailed}, samples the virtual-thread scheduler
 * ({@code Thread.vthread_scheduler}, JDK 24+) and the platform-thread counters, then dumps the
 * recording to a file in a private temporary folder, stops it, and aggregates the pins by site, as
 * {@link dev.weft.pin.PinMonitor} does in-process. Nothing is left in the target: no recording (an
 * interrupted run or Ctrl-C stops it too), no file, and no JMX agent, which weft never starts
 * (decision 0205).
 */
@Command(
        name = "pins",
        sortOptions = false,
        customSynopsis = "weft pins <pid> [--for DURATION] [--depth N] [--json]",
        description =
                "Records pinned virtual threads in a running JVM (JFR through diagnostic commands, threshold 0) for a while, then"
                        + " prints them aggregated by site, with the JVM's scheduler health.",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:recorded",
            "1:the JVM could not be recorded (not running, not a JVM, no permission, no JFR) or weft was interrupted",
            "2:bad arguments"
        })
final class PinsCommand implements Callable<Integer> {

    private static final Duration MAX_FOR = Duration.ofDays(1);
    private static final int MAX_DEPTH = 2048;
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "<pid>", description = "The process id of the JVM (jps -l lists them).")
    long pid;

    @Option(
            names = "--for",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "How long to record: e.g. 500ms, 30s, 5m, 1h or PT30S (default 10s).")
    Duration duration = Duration.ofSeconds(10);

    @Option(
            names = "--depth",
            paramLabel = "N",
            description = "Frames shown per pin site, method-handle plumbing not counted (default: 12, or as many as it"
                    + " takes to reach the application's frame that called into native code).")
    Integer depth;

    @Option(names = "--json", description = "Print the report as JSON instead of text.")
    boolean json;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "Show this help and exit.")
    boolean help;

    @Override
    public Integer call() throws Exception {
        if (duration.isZero() || duration.isNegative() || duration.compareTo(MAX_FOR) > 0) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--for must be more than 0 and at most 24h; got " + duration);
        }
        if (depth != null && (depth < 1 || depth > MAX_DEPTH)) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--depth must be 1 to " + MAX_DEPTH + " frames (JFR records at most 64 by default); got " + depth);
        }
        PrintWriter err = spec.commandLine().getErr();
        Target target;
        try {
            target = Target.attach(pid);
        } catch (CannotRecord e) {
            err.println("weft pins: " + e.getMessage());
            return 1;
        }
        try (target) {
            err.printf(
                    Locale.ROOT,
                    "weft pins: recording pinned virtual threads in JVM %d (%s, Java %s) for %s ...%n",
                    pid,
                    target.name,
                    target.javaVersion,
                    Durations.human(duration));
            err.flush();
            PinReport report = target.record(duration, depth);
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("pid", pid);
                m.put("jvm", target.name);
                m.put("java_version", target.javaVersion);
                m.putAll(report.toMap());
                out.println(JSON.writeValueAsString(m));
            } else {
                out.printf(
                        Locale.ROOT,
                        "JVM %d (%s, Java %s), %s:%n",
                        pid,
                        target.name,
                        target.javaVersion,
                        Durations.human(duration));
                out.print(report.toText());
            }
            out.flush();
            return 0;
        } catch (CannotRecord e) {
            err.println("weft pins: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.printf(
                    Locale.ROOT,
                    "weft pins: interrupted; the recording in JVM %d was stopped, nothing is reported%n",
                    pid);
            err.flush();
            return 1;
        }
    }

    /** Why a JVM cannot be recorded, said so that the user knows what to do. */
    static final class CannotRecord extends Exception {
        private static final long serialVersionUID = 1L;

        CannotRecord(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** A JVM attached to through the attach API; JFR and the scheduler are driven by diagnostic commands. */
    static final class Target implements AutoCloseable {
        private static final String PINNED = PinEvent.JFR_EVENT;
        private static final String SUBMIT_FAILED = PinAggregator.SUBMIT_FAILED_JFR_EVENT;
        /** The recording's settings: only the two events weft reads, so the target pays for nothing else. */
        private static final String SETTINGS = """
                <?xml version="1.0" encoding="UTF-8"?>
                <configuration version="2.0" label="weft pins" description="Pinned virtual threads, threshold 0">
                  <event name="%s">
                    <setting name="enabled">true</setting>
                    <setting name="stackTrace">true</setting>
                    <setting name="threshold">0 ms</setting>
                  </event>
                  <event name="%s">
                    <setting name="enabled">true</setting>
                    <setting name="stackTrace">true</setting>
                  </event>
                </configuration>
                """.formatted(PINNED, SUBMIT_FAILED);

        final long pid;
        final String name;
        final String javaVersion;
        private final DiagnosticCommands jvm;
        private final PerfCounters counters;
        private final RemoteScheduler scheduler;

        private Target(long pid, DiagnosticCommands jvm, String name, String javaVersion) {
            this.pid = pid;
            this.jvm = jvm;
            this.counters = PerfCounters.of(pid, jvm);
            this.scheduler = new RemoteScheduler(jvm, counters);
            this.name = name;
            this.javaVersion = javaVersion;
        }

        static Target attach(long pid) throws CannotRecord {
            Optional<ProcessHandle> process = ProcessHandle.of(pid);
            if (process.isEmpty() || !process.get().isAlive()) {
                throw new CannotRecord(
                        "no process with pid " + pid + " is running; jps -l lists the running JVMs", null);
            }
            if (pid == ProcessHandle.current().pid()) {
                throw new CannotRecord(
                        "pid " + pid + " is this weft command itself; give the pid of another JVM", null);
            }
            if (!mapsAJvm(pid)) {
                // Before JDK 22 the attach API sends SIGQUIT to any process it tries, which ends one
                // that is not a JVM (seen on 21.0.8 with `sleep`): never attach to such a process.
                throw new CannotRecord(
                        attachFailure(
                                pid,
                                process.get().info().user().orElse(null),
                                System.getProperty("user.name"),
                                process.get().info().command().orElse(null),
                                new IOException("it is not a JVM (no libjvm in /proc/" + pid + "/maps)"),
                                true),
                        null);
            }
            DiagnosticCommands jvm;
            Properties props;
            try {
                jvm = DiagnosticCommands.attach(pid);
            } catch (AttachNotSupportedException | IOException | SecurityException e) {
                throw new CannotRecord(
                        attachFailure(
                                pid,
                                process.get().info().user().orElse(null),
                                System.getProperty("user.name"),
                                process.get().info().command().orElse(null),
                                e,
                                process.get().isAlive()),
                        e);
            }
            try {
                props = jvm.systemProperties();
                String version = props.getProperty("java.specification.version", "unknown");
                if (feature(version) < 21) {
                    throw new CannotRecord(
                            "JVM " + pid + " runs Java " + version + ", which has no virtual threads;"
                                    + " pinning needs Java 21 or newer",
                            null);
                }
                return new Target(pid, jvm, mainOf(props.getProperty("sun.java.command", "")), version);
            } catch (IOException | RuntimeException e) {
                closeQuietly(jvm);
                throw new CannotRecord("cannot read JVM " + pid + "'s properties through the attach API: " + e, e);
            } catch (CannotRecord e) {
                closeQuietly(jvm);
                throw e;
            }
        }

        /**
         * Records for {@code duration}; the recording is stopped in the target however this ends
         * (an exception, an interrupt, or Ctrl-C through a shutdown hook).
         */
        /** Records for {@code duration}; sites have {@code depth} frames, or as many as reach a native call's caller when null. */
        PinReport record(Duration duration, Integer depth) throws CannotRecord, InterruptedException, IOException {
            String recording = "weft-pins-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
            Path dir = Files.createTempDirectory("weft-pins-");
            Path settings = Files.writeString(dir.resolve("weft-pins.jfc"), SETTINGS);
            Path file = dir.resolve("recording.jfr");
            Runnable cleanUp = () -> {
                stop(recording);
                deleteQuietly(file, settings, dir);
            };
            // Ctrl-C or SIGTERM end the JVM without running the finally block below: the hook does its work
            Thread stopper = new Thread(cleanUp, "weft-pins-stop-recording");
            try {
                Runtime.getRuntime().addShutdownHook(stopper);
                String started = command("JFR.start name=" + recording + " settings=" + settings);
                if (!started.contains("Started recording")) {
                    throw new CannotRecord(
                            "JVM " + pid + " did not start a JFR recording (is Flight Recorder in its"
                                    + " runtime? jlink --add-modules jdk.jfr): " + started.strip(),
                            null);
                }
                Instant from = Instant.now();
                SchedulerSampler sampler = SchedulerSampler.start(samplingInterval(duration), 1_000, this::snapshot);
                Instant to;
                try {
                    Thread.sleep(duration);
                } finally {
                    to = Instant.now();
                }
                SchedulerSamples samples = sampler.stop();
                String dumped = command("JFR.dump name=" + recording + " filename=" + file);
                if (!Files.isRegularFile(file)) {
                    throw new CannotRecord(
                            "JVM " + pid + " did not write its recording to " + file
                                    + " (it must run as the same user as weft): " + dumped.strip(),
                            null);
                }
                return aggregate(file, from, to, samples, depth);
            } finally {
                cleanUp.run();
                try {
                    Runtime.getRuntime().removeShutdownHook(stopper);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is running or about to: it does the same, harmlessly twice
                }
            }
        }

        private String command(String command) throws CannotRecord {
            try {
                return jvm.run(command);
            } catch (IOException e) {
                throw new CannotRecord(
                        "the diagnostic command " + command.split(" ")[0] + " failed in JVM " + pid + ": "
                                + rootMessage(e)
                                + (ProcessHandle.of(pid)
                                                .map(ProcessHandle::isAlive)
                                                .orElse(false)
                                        ? ""
                                        : " (the JVM has ended)"),
                        e);
            }
        }

        /** Stops (and so discards) the recording; a recording already stopped, or a JVM gone, leaves nothing to stop. */
        private void stop(String recording) {
            try {
                jvm.run("JFR.stop name=" + recording);
            } catch (IOException | RuntimeException e) {
                // the JVM has ended or cannot be reached: its recording ended with it, or the
                // stop already happened (the hook and the finally block both try)
            }
        }

        /** Deletes weft's temporary files, in order (the folder last); one that cannot go is left, not fatal. */
        private static void deleteQuietly(Path... paths) {
            for (Path p : paths) {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // a folder the target wrote into with another owner: left in the system's temp folder
                }
            }
        }

        private SchedulerSnapshot snapshot() {
            try {
                return scheduler.snapshot();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static PinReport aggregate(Path file, Instant from, Instant to, SchedulerSamples samples, Integer depth)
                throws IOException {
            PinAggregator sites = depth == null
                    ? PinAggregator.reachingCallers(PinAggregator.DEFAULT_MAX_SITES)
                    : new PinAggregator(depth, PinAggregator.DEFAULT_MAX_SITES);
            try (RecordingFile in = new RecordingFile(file)) {
                sites.addAll(in, e -> true); // the recording is this command's own: everything in it counts
            }
            return sites.report(from, to, Duration.ZERO, samples);
        }

        @Override
        public void close() {
            counters.close();
            closeQuietly(jvm);
        }

        private static void closeQuietly(DiagnosticCommands jvm) {
            try {
                jvm.close();
            } catch (IOException e) {
                // detached either way: the target keeps nothing of this connection
            }
        }
    }

    /**
     * False only when {@code /proc/<pid>/maps} is readable and maps no HotSpot library: the process
     * is surely not a JVM. True where that cannot be told (no /proc, another user's process).
     */
    static boolean mapsAJvm(long pid) {
        Path maps = Path.of("/proc", Long.toString(pid), "maps");
        try (java.util.stream.Stream<String> lines = Files.lines(maps)) {
            return lines.anyMatch(l -> l.contains("/libjvm."));
        } catch (IOException | UncheckedIOException | SecurityException e) {
            return true;
        }
    }

    /**
     * The message for a failed attach: a missing process, another user's process, one that is not
     * a JVM or does not accept attaching.
     */
    static String attachFailure(long pid, String owner, String me, String command, Exception e) {
        return attachFailure(pid, owner, me, command, e, false);
    }

    /**
     * As above, knowing whether the process is still alive: JDK 21's attach says "non existent JVM
     * pid" also for a live process that is not a JVM, which is then named as such.
     */
    static String attachFailure(long pid, String owner, String me, String command, Exception e, boolean alive) {
        String why = rootMessage(e);
        if (!alive && (why.contains("non existent JVM pid") || why.contains("No such process"))) {
            return "no JVM with pid " + pid + " is running; jps -l lists the running JVMs";
        }
        if (owner != null && me != null && !owner.equals(me) && !me.equals("root")) {
            return "JVM " + pid + " belongs to user " + owner + " and weft runs as " + me + "; attaching needs the same"
                    + " user: run sudo -u " + owner + " ./weft pins " + pid;
        }
        if (why.toLowerCase(Locale.ROOT).contains("permission")) {
            return "no permission to attach to JVM " + pid + " (" + why + "); run weft as the user that started it";
        }
        return "cannot attach to process " + pid + (command == null ? "" : " (" + command + ")") + ": " + why
                + ". It must be a JVM (Java 21+) that allows attaching: not started with -XX:+DisableAttachMechanism,"
                + " and run by the same user as weft";
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }

    private static String mainOf(String command) {
        String c = command.strip();
        int space = c.indexOf(' ');
        return c.isEmpty() ? "unknown main" : space < 0 ? c : c.substring(0, space);
    }

    private static int feature(String specVersion) {
        try {
            String v = specVersion.startsWith("1.") ? specVersion.substring(2) : specVersion;
            return Integer.parseInt(v.split("\\.")[0]);
        } catch (RuntimeException e) {
            return Integer.MAX_VALUE; // an unknown version string: try rather than refuse
        }
    }

    /** About 20 scheduler samples per recording, at least 100 ms and at most 5 s apart. */
    private static Duration samplingInterval(Duration d) {
        long ms = Math.max(100, Math.min(5_000, d.toMillis() / 20));
        return Duration.ofMillis(ms);
    }

    /** Parses {@code 500ms}, {@code 30s}, {@code 1.5m}, {@code 2h} and ISO-8601 ({@code PT30S}). */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return Durations.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
