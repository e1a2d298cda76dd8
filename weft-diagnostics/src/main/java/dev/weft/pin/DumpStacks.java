package dev.weft.pin;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The stacks of the virtual threads that hold the carriers, taken while a starvation episode is
 * going on: a platform thread watches the canary and, once it is overdue by the threshold, writes
 * a JSON thread dump ({@link HotSpotDiagnosticMXBean#dumpThreads}, which lists virtual threads)
 * and keeps the stacks of the virtual threads that were on a carrier.
 *
 * <p>For JDK 21-23, where JFR takes no execution samples of virtual threads: a dump costs
 * hundreds of milliseconds of one core (measured here: 140-600 ms with a few hundred threads), so
 * at most one is taken per episode, and none while nothing starves. Kept apart so the detector
 * loads without the {@code jdk.management} module.
 *
 * <p>On a JDK 21 dump, a virtual thread on a carrier has a stack that ends in
 * {@code VirtualThread.run} and does not start at the scheduler's park or yield (an unmounted one
 * starts at {@code VirtualThread.park}/{@code parkNanos}; one queued to run has an empty stack).
 * One pinned in {@code Object.wait} or a {@code synchronized} block counts as on a carrier, as it is.
 */
final class DumpStacks implements StackSource {


    private final HotSpotDiagnosticMXBean diagnostic;
    private final Path folder;
    private final LongSupplier overdueSince;
    private final long threshold;
    private final long period;
    private final SampleWindow samples = new SampleWindow(java.time.Duration.ofSeconds(10));
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean dumping;

    /**
     * @param overdueSince the {@link System#nanoTime()} at which the canary became due and has not
     *                     run since, or {@link Long#MAX_VALUE} when it is not waiting
     */
    DumpStacks(LongSupplier overdueSince, long thresholdNanos, long periodNanos) throws IOException {
        this.diagnostic = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        this.folder = Files.createTempDirectory("weft-starvation-");
        this.overdueSince = overdueSince;
        this.threshold = thresholdNanos;
        this.period = periodNanos;
        this.thread = Thread.ofPlatform().name("weft-starvation-stacks").daemon(true).start(this::watch);
    }

    private void watch() {
        long dumpedFor = Long.MIN_VALUE;
        while (running) {
            LockSupport.parkNanos(this, Math.max(1_000_000L, period / 2));
            long due = overdueSince.getAsLong();
            if (due == Long.MAX_VALUE || due == dumpedFor || System.nanoTime() - due < threshold || !running) {
                continue;
            }
            dumpedFor = due;
            dumping = true;
            try {
                add(Instant.now(), mounted(dump()));
            } catch (IOException | RuntimeException failed) {
                // no stacks for this episode; it is still timed
            } finally {
                dumping = false;
            }
        }
    }

    private String dump() throws IOException {
        Path file = folder.resolve("threads.json");
        Files.deleteIfExists(file);
        try {
            diagnostic.dumpThreads(file.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON);
            return Files.readString(file);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private void add(Instant at, List<List<PinFrame>> stacks) {
        for (List<PinFrame> frames : stacks) {
            samples.add(new SampleWindow.Sample(at, frames));
        }
    }

    /** Not while a dump is being taken (the canary may wake before it is done). */
    @Override
    public boolean deliveredUpTo(Instant t) {
        return !dumping;
    }

    @Override
    public List<SampleWindow.Sample> between(Instant from, Instant to) {
        return samples.between(from, to);
    }

    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(java.time.Duration.ofSeconds(5));
            Files.deleteIfExists(folder.resolve("threads.json"));
            Files.deleteIfExists(folder);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // a temporary folder left behind; nothing else to do
        }
    }

    /** The stacks of the virtual threads on a carrier in a JSON thread dump, innermost frame first. */
    static List<List<PinFrame>> mounted(String json) {
        List<List<PinFrame>> out = new ArrayList<>();
        for (List<String> stack : stacks(json)) {
            if (onCarrier(stack)) {
                out.add(stack.stream().map(DumpStacks::frame).toList());
            }
        }
        return out;
    }

    /** Whether a dumped stack is a started virtual thread that was on a carrier. */
    static boolean onCarrier(List<String> stack) {
        if (stack.isEmpty() || !stack.getLast().contains("java.lang.VirtualThread.run(")) {
            return false;   // a platform thread, or a virtual thread not started or queued to run
        }
        PinFrame top = frame(stack.getFirst());
        boolean scheduler = top.className().equals("java.lang.VirtualThread")
                && (top.method().startsWith("park") || top.method().equals("yieldContinuation") || top.method().equals("tryYield"))
                && !top.method().equals("parkOnCarrierThread");
        return !scheduler && !top.className().startsWith("jdk.internal.vm.Continuation");
    }

    /**
     * A frame as {@link StackTraceElement#toString()} writes it: {@code [loader/][module[@version]/]class.method(file:line)}.
     */
    static PinFrame frame(String s) {
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
            out.add(stack);
        }
        return out;
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
                default -> b.append(e);   // \" \\ \/
            }
        }
        return i;
    }
}
