package dev.weft.cli;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.weft.pin.PinAggregator;
import dev.weft.pin.PinEvent;
import dev.weft.pin.PinReport;
import dev.weft.thread.Durations;
import dev.weft.thread.SchedulerSampler;
import dev.weft.thread.SchedulerSamples;
import dev.weft.thread.SchedulerSnapshot;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.RuntimeMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMX;
import javax.management.MBeanServerConnection;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import jdk.jfr.consumer.RecordingFile;
import jdk.management.jfr.FlightRecorderMXBean;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code weft pins <pid>}: records pinning in a running JVM and prints the aggregated report.
 *
 * <p>It attaches to the JVM (the Attach API, as {@code jcmd} does), starts its local JMX agent,
 * and runs a JFR recording there through {@code FlightRecorderMXBean} with
 * {@code jdk.VirtualThreadPinned} at threshold 0 and {@code jdk.VirtualThreadSubmitFailed}, while
 * sampling the JVM's virtual-thread scheduler. Then it stops and closes the recording, copies its
 * data over JMX (no file is left in the target) and aggregates the pins by site, as
 * {@link dev.weft.pin.PinMonitor} does in-process. An interrupted run (Ctrl-C) closes the
 * recording in the target too. The local JMX agent stays in the target, as after
 * {@code jconsole}: it listens on the loopback interface only.
 */
@Command(name = "pins", sortOptions = false,
        customSynopsis = "weft pins <pid> [--for DURATION] [--json]",
        description = "Records pinned virtual threads in a running JVM (JFR through JMX, threshold 0) for a while, then"
                + " prints them aggregated by site, with the JVM's scheduler health.",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:recorded", "1:the JVM could not be recorded (not running, not a JVM, no permission, no JFR)",
                "2:bad arguments"})
final class PinsCommand implements Callable<Integer> {

    private static final Duration MAX_FOR = Duration.ofDays(1);
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final Pattern SIMPLE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)");

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "<pid>", description = "The process id of the JVM (jps -l lists them).")
    long pid;

    @Option(names = "--for", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long to record: e.g. 500ms, 30s, 5m, 1h or PT30S (default 10s).")
    Duration duration = Duration.ofSeconds(10);

    @Option(names = "--json", description = "Print the report as JSON instead of text.")
    boolean json;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Override
    public Integer call() throws Exception {
        if (duration.isZero() || duration.isNegative() || duration.compareTo(MAX_FOR) > 0) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--for must be more than 0 and at most 24h; got " + duration);
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
            err.printf(Locale.ROOT, "weft pins: recording pinned virtual threads in JVM %d (%s, Java %s) for %s ...%n",
                    pid, target.name, target.javaVersion, Durations.human(duration));
            err.flush();
            PinReport report = target.record(duration);
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("pid", pid);
                m.put("jvm", target.name);
                m.put("java_version", target.javaVersion);
                m.putAll(report.toMap());
                out.println(JSON.writeValueAsString(m));
            } else {
                out.printf(Locale.ROOT, "JVM %d (%s, Java %s), %s:%n", pid, target.name, target.javaVersion, Durations.human(duration));
                out.print(report.toText());
            }
            out.flush();
            if (target.startedAgent != null) {
                // the JDK has no way to stop the local connector once started (ManagementAgent.stop
                // leaves it listening): say what stays open, decision 203
                err.printf(Locale.ROOT, "weft pins: note: JVM %d keeps the local JMX agent weft started (%s), which"
                        + " listens on every interface without authentication until the JVM exits; the JDK cannot stop"
                        + " it. Restart the JVM if that matters here (doc/pinning.md).%n", pid, target.startedAgent);
                err.flush();
            }
            return 0;
        } catch (CannotRecord e) {
            err.println("weft pins: " + e.getMessage());
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

    /** A JVM attached to over JMX. */
    static final class Target implements AutoCloseable {
        private static final String PINNED = PinEvent.JFR_EVENT;
        private static final String SUBMIT_FAILED = PinAggregator.SUBMIT_FAILED_JFR_EVENT;

        final long pid;
        final String name;
        final String javaVersion;
        /** The connector address when this command started the target's local JMX agent, else null. */
        String startedAgent;
        private final JMXConnector connector;
        private final MBeanServerConnection jvm;
        private final FlightRecorderMXBean jfr;

        private Target(long pid, JMXConnector connector, MBeanServerConnection jvm, FlightRecorderMXBean jfr,
                       String name, String javaVersion) {
            this.pid = pid;
            this.connector = connector;
            this.jvm = jvm;
            this.jfr = jfr;
            this.name = name;
            this.javaVersion = javaVersion;
        }

        static Target attach(long pid) throws CannotRecord {
            Optional<ProcessHandle> process = ProcessHandle.of(pid);
            if (process.isEmpty() || !process.get().isAlive()) {
                throw new CannotRecord("no process with pid " + pid + " is running; jps -l lists the running JVMs", null);
            }
            if (pid == ProcessHandle.current().pid()) {
                throw new CannotRecord("pid " + pid + " is this weft command itself; give the pid of another JVM", null);
            }
            String address;
            boolean agentWasRunning;
            if (!mapsAJvm(pid)) {
                // Before JDK 22 the attach API sends SIGQUIT to any process it tries, which ends one
                // that is not a JVM (seen on 21.0.8 with `sleep`): never attach to such a process.
                throw new CannotRecord(attachFailure(pid, process.get().info().user().orElse(null),
                        System.getProperty("user.name"), process.get().info().command().orElse(null),
                        new IOException("it is not a JVM (no libjvm in /proc/" + pid + "/maps)"), true), null);
            }
            try {
                VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
                try {
                    agentWasRunning = vm.getAgentProperties()
                            .getProperty("com.sun.management.jmxremote.localConnectorAddress") != null;
                    address = vm.startLocalManagementAgent();
                } finally {
                    vm.detach();
                }
            } catch (AttachNotSupportedException | IOException | SecurityException e) {
                throw new CannotRecord(attachFailure(pid, process.get().info().user().orElse(null),
                        System.getProperty("user.name"), process.get().info().command().orElse(null), e,
                        process.get().isAlive()), e);
            }
            JMXConnector connector = null;
            try {
                connector = JMXConnectorFactory.connect(new JMXServiceURL(address));
                MBeanServerConnection jvm = connector.getMBeanServerConnection();
                RuntimeMXBean runtime = JMX.newMXBeanProxy(jvm, new ObjectName(ManagementFactory.RUNTIME_MXBEAN_NAME),
                        RuntimeMXBean.class);
                String version = runtime.getSpecVersion();
                String name = mainOf(runtime);
                if (feature(version) < 21) {
                    throw new CannotRecord("JVM " + pid + " runs Java " + version + ", which has no virtual threads;"
                            + " pinning needs Java 21 or newer", null);
                }
                ObjectName jfrName = new ObjectName("jdk.management.jfr:type=FlightRecorder");
                if (!jvm.isRegistered(jfrName)) {
                    throw new CannotRecord("JVM " + pid + " has no Flight Recorder MXBean (its runtime lacks the jdk.jfr"
                            + " and jdk.management.jfr modules); add them to its image (jlink --add-modules"
                            + " jdk.jfr,jdk.management.jfr) or run it on a full JDK", null);
                }
                Target target = new Target(pid, connector, jvm, JMX.newMXBeanProxy(jvm, jfrName, FlightRecorderMXBean.class),
                        name, version);
                target.startedAgent = agentWasRunning ? null : address;
                return target;
            } catch (IOException | MalformedObjectNameException | RuntimeException e) {
                closeQuietly(connector);
                throw new CannotRecord("cannot talk to JVM " + pid + " over its local JMX agent: " + e, e);
            } catch (CannotRecord e) {
                closeQuietly(connector);
                throw e;
            }
        }

        /** Records for {@code duration}; the recording is closed in the target however this ends. */
        PinReport record(Duration duration) throws CannotRecord, InterruptedException, IOException {
            long id;
            try {
                id = jfr.newRecording();
                jfr.setRecordingOptions(id, Map.of("name", "weft-pins", "disk", "true"));
                jfr.setRecordingSettings(id, Map.of(
                        PINNED + "#enabled", "true", PINNED + "#threshold", "0 ms", PINNED + "#stackTrace", "true",
                        SUBMIT_FAILED + "#enabled", "true", SUBMIT_FAILED + "#stackTrace", "true"));
            } catch (RuntimeException e) {
                throw new CannotRecord("JVM " + pid + " cannot start a JFR recording: " + rootMessage(e)
                        + " (is Flight Recorder available in it?)", e);
            }
            Thread closer = new Thread(() -> closeRecording(id), "weft-pins-close-recording");
            Runtime.getRuntime().addShutdownHook(closer); // Ctrl-C must not leave a recording running there
            Path file = Files.createTempFile("weft-pins-" + pid + "-", ".jfr");
            try {
                jfr.startRecording(id);
                Instant from = Instant.now();
                SchedulerSampler sampler = SchedulerSampler.start(samplingInterval(duration), 1_000, this::snapshot);
                Instant to;
                try {
                    Thread.sleep(duration);
                } finally {
                    to = Instant.now();
                    jfr.stopRecording(id);
                }
                SchedulerSamples samples = sampler.stop();
                copy(id, file);
                return aggregate(file, from, to, samples);
            } catch (RuntimeException e) {
                throw new CannotRecord("recording in JVM " + pid + " failed: " + rootMessage(e)
                        + (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) ? "" : " (the JVM has ended)"), e);
            } finally {
                closeRecording(id);
                try {
                    Runtime.getRuntime().removeShutdownHook(closer);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is running or about to: it closes the recording
                }
                Files.deleteIfExists(file);
            }
        }

        private SchedulerSnapshot snapshot() {
            try {
                return SchedulerSnapshot.take(jvm);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private void copy(long id, Path file) throws IOException {
            long stream = jfr.openStream(id, Map.of());
            try (OutputStream out = Files.newOutputStream(file)) {
                byte[] chunk;
                while ((chunk = jfr.readStream(stream)) != null) {
                    out.write(chunk);
                }
            } finally {
                jfr.closeStream(stream);
            }
        }

        private static PinReport aggregate(Path file, Instant from, Instant to, SchedulerSamples samples) throws IOException {
            PinAggregator sites = new PinAggregator(PinAggregator.DEFAULT_TOP_FRAMES, PinAggregator.DEFAULT_MAX_SITES);
            try (RecordingFile in = new RecordingFile(file)) {
                sites.addAll(in, e -> true);   // the recording is this command's own: everything in it counts
            }
            return sites.report(from, to, Duration.ZERO, samples);
        }

        private void closeRecording(long id) {
            try {
                jfr.closeRecording(id);
            } catch (IOException | RuntimeException e) {
                // already closed, or the JVM has ended: nothing is left running there
            }
        }

        @Override
        public void close() {
            closeQuietly(connector);
        }

        private static void closeQuietly(JMXConnector connector) {
            if (connector != null) {
                try {
                    connector.close();
                } catch (IOException e) {
                    // the connection is gone either way
                }
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

    private static String mainOf(RuntimeMXBean runtime) {
        String command = runtime.getSystemProperties().getOrDefault("sun.java.command", "").strip();
        int space = command.indexOf(' ');
        return command.isEmpty() ? "unknown main" : space < 0 ? command : command.substring(0, space);
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
            String v = value.strip().toLowerCase(Locale.ROOT);
            Matcher m = SIMPLE.matcher(v);
            if (m.matches()) {
                double n = Double.parseDouble(m.group(1));
                double millis = switch (m.group(2)) {
                    case "ms" -> n;
                    case "s" -> n * 1_000;
                    case "m" -> n * 60_000;
                    default -> n * 3_600_000;
                };
                return Duration.ofMillis(Math.round(millis));
            }
            try {
                return Duration.parse(value.strip().toUpperCase(Locale.ROOT));
            } catch (DateTimeParseException e) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not a duration; write e.g. 500ms, 30s,"
                        + " 5m, 1h or PT30S");
            }
        }
    }
}
