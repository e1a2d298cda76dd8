package dev.weft.lab;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A JVM the lab starts to run part of a scenario (a server, a load generator, a variant that
 * needs JVM options of its own) or a whole scenario, and the one way the two sides talk
 * (decision 0805):
 *
 * <ul>
 *   <li>parent to child: lines on the child's standard input ({@link #send}); the end of that
 *       input ({@link #endInput}) tells the child to finish;</li>
 *   <li>child to parent: messages, lines on the child's standard output of the form
 *       {@code weft-lab: <tag> <payload>} ({@link #tell} in the child), which the parent waits
 *       for by tag ({@link #await}): {@code ready} when it can serve, a result when it has one.
 *       A payload is one line: a number, {@code key=value} pairs, compact JSON or EDN.</li>
 * </ul>
 *
 * <p>The child writes its output straight to its log (standard error with it, unless
 * {@link Builder#stderr} names a file of its own), messages included; the parent reads the new
 * lines of that log every 10 ms while it awaits a message ({@link #await}; {@link #awaitExit}
 * only with {@link Builder#onLine}, which gets each line that is not a message, and otherwise
 * blocks until the child exits). So the parent runs no thread per child (a scenario's JVM counts
 * its platform threads) and spends nothing on a child it is not waiting for. A wait that fails, because the child exited or took too long, says so with the
 * end of that log.
 *
 * <p>Every child is stopped by its PID (with the processes it started): by {@link #stop()}, by
 * {@link ScenarioContext#stopStartedJvms()} when its scenario ends, and, for any still alive, when
 * this JVM exits (a shutdown hook).
 *
 * <pre>{@code
 * // parent
 * ChildJvm server = ctx.startJvm("server", List.of("-Xmx512m"), Server.class.getName(), List.of());
 * int port = Integer.parseInt(server.await("listening", Duration.ofSeconds(60)));
 * server.send("report");
 * String json = server.await("report", Duration.ofSeconds(60));
 * server.stop();
 *
 * // child (Server.main)
 * ChildJvm.tell("listening", Integer.toString(port));
 * for (String line : ChildJvm.commands()) { ... ChildJvm.tell("report", json); }
 * }</pre>
 */
public final class ChildJvm implements AutoCloseable {

    /** What starts a message line on a child's standard output. */
    public static final String PREFIX = "weft-lab: ";

    private static final Set<ChildJvm> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(() -> List.copyOf(LIVE).forEach(ChildJvm::kill), "weft-lab-child-jvms"));
    }

    /** How often a waiting parent reads the child's new output. */
    private static final long POLL_MILLIS = 10;

    private final String label;
    private final Process process;
    private final Path log;
    private final Consumer<String> onLine;
    private final PrintWriter input;
    /** Messages read but not awaited yet, oldest first; guarded by this. */
    private final ArrayDeque<String[]> inbox = new ArrayDeque<>();
    /** How far the log has been read, and the start of a line not complete yet; guarded by this. */
    private long read;

    private final ByteArrayOutputStream partial = new ByteArrayOutputStream();

    private ChildJvm(String label, Process process, Path log, Consumer<String> onLine) {
        this.label = label;
        this.process = process;
        this.log = log;
        this.onLine = onLine;
        this.input = new PrintWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), true);
    }

    /** Starts building a child that runs {@code mainClass}. */
    public static Builder builder(String label, String mainClass) {
        return new Builder(label, mainClass);
    }

    // ---- the child's side ----

    /**
     * In the child: sends the message {@code tag payload} to the parent (one line on standard
     * output, flushed). {@code payload} may be empty and must be one line.
     *
     * @throws IllegalArgumentException if the tag is blank or holds a space, or the payload a line break
     */
    public static void tell(String tag, String payload) {
        Objects.requireNonNull(payload, "payload");
        if (tag.isBlank() || tag.contains(" ")) {
            throw new IllegalArgumentException("a message tag is one word, e.g. \"ready\"; got \"" + tag + "\"");
        }
        if (payload.contains("\n") || payload.contains("\r")) {
            throw new IllegalArgumentException(
                    "a message is one line; write JSON or EDN compact (got a line break in " + tag + "'s payload)");
        }
        PrintStream out = System.out;
        synchronized (out) {
            out.println(PREFIX + tag + (payload.isEmpty() ? "" : " " + payload));
            out.flush();
        }
    }

    /**
     * In the child: the parent's commands, one line each, until the parent ends the input (or
     * exits). Read them on one thread.
     */
    public static Iterable<String> commands() {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        return () -> new Iterator<>() {
            private String next;
            private boolean done;

            @Override
            public boolean hasNext() {
                if (next == null && !done) {
                    try {
                        next = in.readLine();
                    } catch (IOException e) {
                        next = null;
                    }
                    done = next == null;
                }
                return next != null;
            }

            @Override
            public String next() {
                if (!hasNext()) {
                    throw new java.util.NoSuchElementException("the parent ended its commands");
                }
                String line = next;
                next = null;
                return line;
            }
        };
    }

    // ---- the parent's side ----

    /** The name it was started under (its log is {@code <label>.log}). */
    public String label() {
        return label;
    }

    /** The child's process. */
    public Process process() {
        return process;
    }

    /** The file its output goes to. */
    public Path log() {
        return log;
    }

    /** Sends one command line to the child's standard input. */
    public void send(String line) {
        input.println(line);
    }

    /** Ends the child's standard input: the child's {@link #commands()} end, and it should finish. */
    public void endInput() {
        input.close();
    }

    /**
     * Waits for the child's next message tagged {@code tag} and returns its payload ("" when
     * none). Messages with other tags wait for their own {@code await}.
     *
     * @throws IOException if the child exits, or does not send it within {@code timeout}; the
     *                     message names the child and ends with its log's last lines
     */
    public String await(String tag, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean exited = !process.isAlive(); // before reading: what it wrote before it exited is read below
            String payload = take(tag);
            if (payload != null) {
                return payload;
            }
            if (exited) {
                throw new IOException(label + " JVM exited with status " + process.exitValue() + " before it said "
                        + tag + "; " + tail());
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IOException(
                        label + " JVM did not say " + tag + " within " + timeout.toMillis() + " ms; " + tail());
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    /** Reads the new output, then takes the oldest message tagged {@code tag}, or returns null. */
    private synchronized String take(String tag) throws IOException {
        readNewLines();
        for (Iterator<String[]> it = inbox.iterator(); it.hasNext(); ) {
            String[] m = it.next();
            if (m[0].equals(tag)) {
                it.remove();
                return m[1];
            }
        }
        return null;
    }

    /** Reads the log's complete lines written since the last read: messages to the inbox, the others to onLine. */
    private synchronized void readNewLines() throws IOException {
        try (FileChannel in = FileChannel.open(log, StandardOpenOption.READ)) {
            ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
            int n;
            while ((n = in.read(buffer.clear(), read)) > 0) {
                read += n;
                for (int i = 0; i < n; i++) {
                    byte b = buffer.get(i);
                    if (b != '\n') {
                        partial.write(b);
                        continue;
                    }
                    String line = partial.toString(StandardCharsets.UTF_8);
                    partial.reset();
                    line(line.endsWith("\r") ? line.substring(0, line.length() - 1) : line);
                }
            }
        }
    }

    private void line(String line) {
        if (line.startsWith(PREFIX)) {
            String body = line.substring(PREFIX.length());
            int space = body.indexOf(' ');
            inbox.add(
                    space < 0
                            ? new String[] {body, ""}
                            : new String[] {body.substring(0, space), body.substring(space + 1)});
        } else if (onLine != null) {
            onLine.accept(line);
        }
    }

    /**
     * Waits for the child to exit by itself and returns its status; its messages can be taken
     * afterwards ({@link #await} returns those already sent at once).
     *
     * @throws IOException if it is still running after {@code timeout} (it is then stopped)
     */
    public int awaitExit(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        // Without onLine nothing needs the lines before the end: block, costing the parent nothing.
        long step = onLine == null ? timeout.toNanos() : TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS);
        while (!process.waitFor(Math.max(0, Math.min(step, deadline - System.nanoTime())), TimeUnit.NANOSECONDS)) {
            if (System.nanoTime() - deadline >= 0) {
                stop();
                throw new IOException(label + " JVM did not finish within " + timeout.toSeconds() + " s; " + tail());
            }
            readNewLines(); // onLine sees the lines as they come
        }
        readNewLines();
        LIVE.remove(this);
        return process.exitValue();
    }

    /**
     * Ends the child: closes its input, gives it 2 s to finish, then ends it and what it started
     * by PID ({@link Jvm#stop}). Calling it again does nothing more.
     */
    public void stop() {
        endInput();
        try {
            process.waitFor(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        kill();
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    /** "see its log ..." with the last 20 lines of the child's log, for an error message. */
    public String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return "its log (" + log + ") ends:\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "its log " + log + " is unreadable (" + e.getMessage() + ")";
        }
    }

    private void kill() {
        Jvm.stop(process);
        LIVE.remove(this);
        try {
            readNewLines(); // onLine sees its last lines
        } catch (IOException e) {
            // the log is gone: nothing more to show
        }
    }

    /** How to start a child: its JVM, options, main class, arguments and where its output goes. */
    public static final class Builder {
        private final String label;
        private final String mainClass;
        private String java = Jvm.java();
        private String classpath = System.getProperty("java.class.path");
        private List<String> jvmArgs = List.of();
        private List<String> args = List.of();
        private Path log;
        private Path stderr;
        private Consumer<String> onLine;

        private Builder(String label, String mainClass) {
            this.label = Objects.requireNonNull(label, "label");
            this.mainClass = Objects.requireNonNull(mainClass, "mainClass");
        }

        /** The java launcher (default this JVM's, so the child runs on the same JDK). */
        public Builder java(String java) {
            this.java = Objects.requireNonNull(java, "java");
            return this;
        }

        /** The classpath (default this JVM's). */
        public Builder classpath(String classpath) {
            this.classpath = Objects.requireNonNull(classpath, "classpath");
            return this;
        }

        /** Options before the main class ({@code -Xmx512m}, {@code -Dkey=value}). */
        public Builder jvmArgs(List<String> jvmArgs) {
            this.jvmArgs = List.copyOf(jvmArgs);
            return this;
        }

        /** Arguments after the main class. */
        public Builder args(List<String> args) {
            this.args = List.copyOf(args);
            return this;
        }

        /** The file the child's output goes to (messages included); required. */
        public Builder log(Path log) {
            this.log = log;
            return this;
        }

        /** A file of its own for the child's standard error; by default it joins standard output. */
        public Builder stderr(Path stderr) {
            this.stderr = stderr;
            return this;
        }

        /** Called with each output line that is not a message, on the thread that waits for the child. */
        public Builder onLine(Consumer<String> onLine) {
            this.onLine = onLine;
            return this;
        }

        /**
         * Starts the child.
         *
         * @throws IllegalStateException if no {@link #log} was given
         */
        public ChildJvm start() throws IOException {
            if (log == null) {
                throw new IllegalStateException(label + ": name the file its output goes to, log(path)");
            }
            ProcessBuilder pb = new ProcessBuilder(Jvm.command(java, jvmArgs, classpath, mainClass, args))
                    .redirectOutput(log.toFile());
            if (stderr == null) {
                pb.redirectErrorStream(true);
            } else {
                pb.redirectError(stderr.toFile());
            }
            ChildJvm child = new ChildJvm(label, pb.start(), log, onLine);
            LIVE.add(child);
            return child;
        }
    }

    /** Every child started in this JVM and not stopped yet (for tests). */
    static List<ChildJvm> live() {
        return new ArrayList<>(LIVE);
    }
}
