package dev.weft.pin.internal;

import dev.weft.pin.PinCapture;
import dev.weft.pin.PinEvent;
import dev.weft.pin.PinFrame;
import dev.weft.pin.PinMonitor;
import dev.weft.pin.PinReport;
import dev.weft.pin.PinSite;
import dev.weft.scheduler.SchedulerSamples;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * Counts pins by site: the pinned reason plus the top frames of the stack. This is the part of a
 * {@link PinMonitor} that does not depend on where events come from, so that a recording read
 * from a file or another JVM ({@code ./weft pins}) is aggregated the same way.
 *
 * <p>The frames that identify a site start below the virtual-thread machinery
 * ({@code java.lang.VirtualThread}, {@code jdk.internal.vm.Continuation}), which is on top of every
 * pinned stack and tells nothing about the cause; then the next {@code topFrames} frames count.
 * Method-handle plumbing ({@code java.lang.invoke.*}, {@code jdk.internal.reflect.*}: lambda forms,
 * invokers, accessors) is left out, so it does not use up the frames. {@link #reachingCallers}
 * instead takes as many frames as it needs to reach the application's frame that called into native
 * code (a native method, or an FFM downcall through {@code jdk.internal.foreign.abi}), at least
 * {@link #DEFAULT_TOP_FRAMES}.
 * At most {@code maxSites} sites are kept; pins at further sites are counted in
 * {@link PinReport#otherPins()}, so memory stays bounded however long a monitor runs.
 *
 * <pre>{@code
 * PinAggregator sites = new PinAggregator(12, 1_000);
 * try (RecordingFile file = new RecordingFile(Path.of("app.jfr"))) {
 *     sites.addAll(file, e -> true);
 * }
 * System.out.println(sites.report(from, to, Duration.ZERO, null).toText());
 * }</pre>
 *
 * <p>Thread-safe: events may be added while reports are taken.
 *
 * <p>Internal to weft: weft-diagnostics' module exports this package only to weft's own modules
 * ({@code weft pins} in weft-cli uses it; it was {@code dev.weft.pin.PinAggregator};
 * doc/decisions/0107). Users get the same aggregation through {@link PinMonitor},
 * {@link PinCapture} and {@code PinCheck}.
 */
public final class PinAggregator {

    /** The default number of frames that identify a site. */
    public static final int DEFAULT_TOP_FRAMES = 12;
    /** The default number of sites kept. */
    public static final int DEFAULT_MAX_SITES = 1_000;
    /** The JFR event of a virtual thread that could not be scheduled, which {@link #addSubmitFailure} counts. */
    public static final String SUBMIT_FAILED_JFR_EVENT = "jdk.VirtualThreadSubmitFailed";

    private static final int MAX_MESSAGES = 10;

    private final int topFrames;
    private final boolean reachCallers;
    private final int maxSites;
    private final Map<Key, Stats> sites = new HashMap<>();
    private long pins;
    private long otherPins;
    private Duration pinned = Duration.ZERO;
    private long submitFailures;
    private final Set<String> submitFailureMessages = new LinkedHashSet<>();

    /**
     * @param topFrames how many frames below the virtual-thread machinery identify a site
     * @param maxSites  how many sites to keep
     * @throws IllegalArgumentException if either is below 1
     */
    public PinAggregator(int topFrames, int maxSites) {
        this(topFrames, maxSites, false);
    }

    private PinAggregator(int topFrames, int maxSites, boolean reachCallers) {
        if (topFrames < 1) {
            throw new IllegalArgumentException(
                    "topFrames must be >= 1 (frames that identify a pin site); got " + topFrames);
        }
        if (maxSites < 1) {
            throw new IllegalArgumentException("maxSites must be >= 1; got " + maxSites);
        }
        this.topFrames = topFrames;
        this.maxSites = maxSites;
        this.reachCallers = reachCallers;
    }

    /**
     * An aggregator whose sites have {@link #DEFAULT_TOP_FRAMES} frames, or more where a pin's
     * stack needs them to reach the application's frame that called into native code (what
     * {@code weft pins} shows without {@code --depth}).
     *
     * @throws IllegalArgumentException if {@code maxSites} is below 1
     */
    public static PinAggregator reachingCallers(int maxSites) {
        return new PinAggregator(DEFAULT_TOP_FRAMES, maxSites, true);
    }

    /** Counts one pin at its site. */
    public synchronized void add(PinEvent pin) {
        Objects.requireNonNull(pin, "pin");
        pins++;
        pinned = pinned.plus(pin.duration());
        Key key =
                new Key(pin.reason(), siteFrames(pin.frames(), reachCallers ? depthToCaller(pin.frames()) : topFrames));
        Stats s = sites.get(key);
        if (s == null) {
            if (sites.size() >= maxSites) {
                otherPins++;
                return;
            }
            s = new Stats(pin);
            sites.put(key, s);
        }
        s.add(pin);
    }

    /** Counts one failed virtual-thread submission ({@code jdk.VirtualThreadSubmitFailed}). */
    public synchronized void addSubmitFailure(String message) {
        submitFailures++;
        if (message != null && submitFailureMessages.size() < MAX_MESSAGES) {
            submitFailureMessages.add(message);
        }
    }

    /**
     * Reads every event left in {@code file} and adds the pins ({@link PinEvent#JFR_EVENT}) and
     * submit failures ({@link #SUBMIT_FAILED_JFR_EVENT}) that {@code filter} accepts. The filter
     * sees every event, in the file's order, whatever its type, so it may also watch for events
     * of its own (a {@link PinCapture} looks for its end marker this way); only pins and submit
     * failures are added.
     *
     * @throws IOException if the file cannot be read
     */
    public void addAll(RecordingFile file, Predicate<RecordedEvent> filter) throws IOException {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(filter, "filter");
        while (file.hasMoreEvents()) {
            RecordedEvent e = file.readEvent();
            if (!filter.test(e)) {
                continue;
            }
            String type = e.getEventType().getName();
            if (type.equals(PinEvent.JFR_EVENT)) {
                add(PinEvent.of(e));
            } else if (type.equals(SUBMIT_FAILED_JFR_EVENT)) {
                addSubmitFailure(e.hasField("exceptionMessage") ? e.getString("exceptionMessage") : null);
            }
        }
    }

    /** How many pins were added so far. */
    public synchronized long pins() {
        return pins;
    }

    /**
     * The pins added so far, as a report for the period {@code from}-{@code to}.
     *
     * @param threshold the recording threshold, stated in the report
     * @param scheduler the scheduler samples of the period, or null
     */
    public synchronized PinReport report(Instant from, Instant to, Duration threshold, SchedulerSamples scheduler) {
        List<PinSite> list = new ArrayList<>(sites.size());
        sites.forEach((k, s) -> list.add(s.site(k)));
        list.sort(Comparator.comparing(PinSite::total)
                .reversed()
                .thenComparing(PinSite::count, Comparator.reverseOrder()));
        return new PinReport(
                from,
                to,
                threshold,
                pins,
                pinned,
                list,
                otherPins,
                submitFailures,
                List.copyOf(submitFailureMessages),
                scheduler);
    }

    /**
     * The frames that identify a site: the top {@code n} below the virtual-thread machinery,
     * method-handle plumbing left out.
     */
    public static List<PinFrame> siteFrames(List<PinFrame> frames, int n) {
        List<PinFrame> meaningful = meaningful(frames);
        return List.copyOf(meaningful.subList(0, Math.min(meaningful.size(), n)));
    }

    /** The frames below the virtual-thread machinery, without method-handle plumbing. */
    private static List<PinFrame> meaningful(List<PinFrame> frames) {
        int first = 0;
        while (first < frames.size() && machinery(frames.get(first).className())) {
            first++;
        }
        if (first == frames.size()) {
            return frames; // nothing but machinery: keep it rather than nothing
        }
        List<PinFrame> kept = new ArrayList<>(frames.size() - first);
        for (PinFrame f : frames.subList(first, frames.size())) {
            if (!plumbing(f.className())) {
                kept.add(f);
            }
        }
        return kept.isEmpty() ? frames.subList(first, frames.size()) : kept;
    }

    /**
     * How many site frames reach the application's frame that called into native code: the
     * first frame outside the JDK below the innermost native frame (or FFM stub frame); at least
     * {@link #DEFAULT_TOP_FRAMES}.
     */
    public static int depthToCaller(List<PinFrame> frames) {
        List<PinFrame> meaningful = meaningful(frames);
        int nativeAt = -1;
        for (int i = 0; i < meaningful.size() && nativeAt < 0; i++) {
            PinFrame f = meaningful.get(i);
            if (f.nativeFrame() || f.className().startsWith("jdk.internal.foreign.abi.")) {
                nativeAt = i;
            }
        }
        if (nativeAt < 0) {
            return DEFAULT_TOP_FRAMES;
        }
        for (int i = nativeAt + 1; i < meaningful.size(); i++) {
            if (!jdkClass(meaningful.get(i).className())) {
                return Math.max(DEFAULT_TOP_FRAMES, i + 1);
            }
        }
        return Math.max(DEFAULT_TOP_FRAMES, meaningful.size());
    }

    /**
     * Whether {@code name} is a class of the JDK by its package ({@code java.}, {@code jdk.},
     * {@code sun.}, {@code javax.}, {@code com.sun.}): the frames a site's first application
     * frame is looked for below ({@link PinSite#firstApplicationFrame()}).
     */
    public static boolean jdkClass(String name) {
        return name.startsWith("java.")
                || name.startsWith("jdk.")
                || name.startsWith("sun.")
                || name.startsWith("javax.")
                || name.startsWith("com.sun.");
    }

    /** Method-handle and reflection plumbing: lambda forms, invokers, accessors (hidden classes included). */
    private static boolean plumbing(String className) {
        return className.startsWith("java.lang.invoke.") || className.startsWith("jdk.internal.reflect.");
    }

    private static boolean machinery(String className) {
        return className.equals("java.lang.VirtualThread") || className.startsWith("jdk.internal.vm.Continuation");
    }

    private record Key(String reason, List<PinFrame> frames) {}

    private static final class Stats {
        final String blockingOperation;
        long count;
        Duration total = Duration.ZERO;
        Duration max = Duration.ZERO;
        Instant first;
        Instant last;

        Stats(PinEvent first) {
            this.blockingOperation = first.blockingOperation();
            this.first = first.start();
            this.last = first.start();
        }

        void add(PinEvent p) {
            count++;
            total = total.plus(p.duration());
            if (p.duration().compareTo(max) > 0) {
                max = p.duration();
            }
            if (p.start().isBefore(first)) {
                first = p.start();
            }
            if (p.start().isAfter(last)) {
                last = p.start();
            }
        }

        PinSite site(Key k) {
            return new PinSite(k.reason(), blockingOperation, k.frames(), count, total, max, first, last);
        }
    }
}
