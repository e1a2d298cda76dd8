package dev.weft.pin;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A thread dump of this JVM that lists its virtual threads, read back as stacks: what
 * {@code jcmd <pid> Thread.dump_to_file -format=json} writes, taken from inside the JVM
 * ({@link HotSpotDiagnosticMXBean#dumpThreads}, JSON format). For seeing where virtual threads
 * stand when something hangs, on any JDK from 21, where {@link Thread#getAllStackTraces()} lists
 * no virtual thread.
 *
 * <pre>{@code
 * ThreadDump dump = ThreadDump.write(Path.of("threads.json"));   // the file stays for a reader
 * for (ThreadDump.Site s : dump.sites(4)) {
 *     System.out.println(s.threads() + " x " + String.join(" <- ", s.frames()));
 * }
 * }</pre>
 *
 * <p>Cost: the dump takes every thread's stack (hundreds of milliseconds of one core with a few
 * hundred virtual threads, measured on JDK 21); take one when something is already wrong, not on a
 * schedule. On Temurin 25.0.3 a dump crashed the JVM (SIGSEGV in
 * {@code stackChunkOopDesc::sender}) once in four tries while virtual threads waited in
 * {@code Object.wait}; weft's own callers take none on JDK 24 and later.
 *
 * <p>Frames are kept as the dump writes them, as {@link StackTraceElement#toString()} does
 * ({@code java.base/java.lang.Object.wait0(Native Method)}), innermost first;
 * {@link #frame(String)} reads one as a {@link PinFrame}.
 */
public final class ThreadDump {

    private static final String VIRTUAL_THREAD_RUN = "java.lang.VirtualThread.run(";

    private final List<List<String>> stacks;

    private ThreadDump(List<List<String>> stacks) {
        this.stacks = stacks;
    }

    /**
     * Writes a JSON thread dump of this JVM to {@code file} (replacing one there) and reads it
     * back. The file is left for whoever wants the whole dump.
     *
     * @throws IOException           if the file cannot be written or read
     * @throws IllegalStateException if this runtime has no {@code jdk.management} module (a jlink
     *                               image without it)
     */
    public static ThreadDump write(Path file) throws IOException {
        Objects.requireNonNull(file, "file");
        HotSpotDiagnosticMXBean diagnostic;
        try {
            diagnostic = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        } catch (IllegalArgumentException | LinkageError e) {
            throw new IllegalStateException(
                    "a thread dump needs the jdk.management module, which this runtime lacks (" + e
                            + "); run on a full JDK 21+ (or add jdk.management to the jlink image)",
                    e);
        }
        Files.deleteIfExists(file); // dumpThreads refuses to replace a file
        diagnostic.dumpThreads(file.toAbsolutePath().toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON);
        return parse(Files.readString(file));
    }

    /**
     * Reads a JSON thread dump as {@link #write} (or {@code jcmd Thread.dump_to_file -format=json})
     * wrote it. Only the threads' stacks are read.
     */
    public static ThreadDump parse(String json) {
        return new ThreadDump(stacks(Objects.requireNonNull(json, "json")));
    }

    /** Every thread's stack (platform and virtual), innermost frame first; empty for a thread not started or queued to run. */
    public List<List<String>> stacks() {
        return stacks;
    }

    /**
     * The stacks of the virtual threads that have started and are not queued to run: those whose
     * stack ends in {@code VirtualThread.run}, whether mounted, parked or pinned.
     */
    public List<List<String>> startedVirtualThreads() {
        return stacks.stream().filter(ThreadDump::startedVirtual).toList();
    }

    /**
     * The stacks of the virtual threads that were on a carrier when the dump was taken, as
     * frames: running, or holding their carrier while blocked ({@code Object.wait}, a
     * {@code synchronized} block on JDK 21, a park while pinned). A virtual thread parked off its
     * carrier, or queued to run, is not one.
     */
    public List<List<PinFrame>> onCarrier() {
        List<List<PinFrame>> out = new ArrayList<>();
        for (List<String> stack : stacks) {
            if (onCarrier(stack)) {
                out.add(stack.stream().map(ThreadDump::frame).toList());
            }
        }
        return out;
    }

    /**
     * The started virtual threads ({@link #startedVirtualThreads()}) grouped by their innermost
     * {@code depth} frames, the site with most threads first (sites with as many threads in the
     * order the dump lists them).
     *
     * @throws IllegalArgumentException if {@code depth} is below 1
     */
    public List<Site> sites(int depth) {
        if (depth < 1) {
            throw new IllegalArgumentException("a site is at least 1 frame deep; got " + depth);
        }
        Map<List<String>, int[]> bySite = new LinkedHashMap<>();
        for (List<String> stack : startedVirtualThreads()) {
            bySite.computeIfAbsent(List.copyOf(stack.subList(0, Math.min(depth, stack.size()))), k -> new int[1])[0]++;
        }
        List<Site> out = new ArrayList<>();
        bySite.forEach((frames, n) -> out.add(new Site(frames, n[0])));
        out.sort(Comparator.comparingInt(Site::threads).reversed());
        return out;
    }

    /**
     * Virtual threads that stood at the same innermost frames.
     *
     * @param frames  the frames, innermost first, as the dump writes them
     * @param threads how many virtual threads stood there
     */
    public record Site(List<String> frames, int threads) {

        /** Copies the frames. */
        public Site {
            frames = List.copyOf(frames);
        }
    }

    private static boolean startedVirtual(List<String> stack) {
        return !stack.isEmpty() && stack.getLast().contains(VIRTUAL_THREAD_RUN);
    }

    /** Whether a dumped stack is a started virtual thread that was on a carrier. */
    static boolean onCarrier(List<String> stack) {
        if (!startedVirtual(stack)) {
            return false; // a platform thread, or a virtual thread not started or queued to run
        }
        PinFrame top = frame(stack.getFirst());
        boolean scheduler = top.className().equals("java.lang.VirtualThread")
                && (top.method().startsWith("park")
                        || top.method().equals("yieldContinuation")
                        || top.method().equals("tryYield"))
                && !top.method().equals("parkOnCarrierThread");
        return !scheduler && !top.className().startsWith("jdk.internal.vm.Continuation");
    }

    /**
     * A frame as {@link StackTraceElement#toString()} writes it,
     * {@code [loader/][module[@version]/]class.method(file:line)}, read as a {@link PinFrame}
     * (line -1 when the text has none).
     */
    public static PinFrame frame(String s) {
        int paren = s.indexOf('(');
        String qualified = paren < 0 ? s : s.substring(0, paren);
        qualified = qualified.substring(qualified.lastIndexOf('/') + 1);
        int dot = qualified.lastIndexOf('.');
        String className = dot < 0 ? qualified : qualified.substring(0, dot);
        String method = dot < 0 ? "?" : qualified.substring(dot + 1);
        int line = -1;
        int colon = s.lastIndexOf(':');
        if (paren >= 0 && colon > paren && s.endsWith(")")) {
            try {
                line = Integer.parseInt(s.substring(colon + 1, s.length() - 1));
            } catch (NumberFormatException notALine) {
                line = -1;
            }
        }
        return new PinFrame(className, method, line);
    }

    /** Every {@code "stack": [ ... ]} array of the dump, as its strings; only what a thread dump holds is parsed. */
    static List<List<String>> stacks(String json) {
        List<List<String>> out = new ArrayList<>();
        int i = 0;
        while ((i = json.indexOf("\"stack\"", i)) >= 0) {
            i = json.indexOf('[', i);
            if (i < 0) {
                break;
            }
            List<String> stack = new ArrayList<>();
            i++;
            while (i < json.length()) {
                char c = json.charAt(i);
                if (c == ']') {
                    i++;
                    break;
                }
                if (c == '"') {
                    StringBuilder b = new StringBuilder();
                    i = string(json, i + 1, b);
                    stack.add(b.toString());
                } else {
                    i++;
                }
            }
            out.add(List.copyOf(stack));
        }
        return List.copyOf(out);
    }

    /** Reads a JSON string's body from {@code i} (after the opening quote) into {@code b}; returns the index after the closing quote. */
    private static int string(String json, int i, StringBuilder b) {
        while (i < json.length()) {
            char c = json.charAt(i++);
            if (c == '"') {
                return i;
            }
            if (c != '\\' || i >= json.length()) {
                b.append(c);
                continue;
            }
            char e = json.charAt(i++);
            switch (e) {
                case 'n' -> b.append('\n');
                case 't' -> b.append('\t');
                case 'r' -> b.append('\r');
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'u' -> {
                    b.append((char) Integer.parseInt(json.substring(i, i + 4), 16));
                    i += 4;
                }
                default -> b.append(e); // \" \\ \/
            }
        }
        return i;
    }
}
