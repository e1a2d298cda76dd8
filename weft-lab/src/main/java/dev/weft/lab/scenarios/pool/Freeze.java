package dev.weft.lab.scenarios.pool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A variant that did not finish within its bound: the scheduler froze (every carrier held, the
 * virtual threads that would release them never run again) or the pool stalled. What the
 * scenario saw when the bound passed.
 *
 * @param variant   the variant's name
 * @param bound     how long it was given
 * @param completed queries completed by then
 * @param total     queries it was to run
 * @param carriers  the scheduler's carrier threads alive then (parallelism plus those added to
 *                  compensate for carriers held in {@code Object.wait})
 * @param sites     where the started virtual threads stood, most threads first ({@code count x frames}),
 *                  or a sentence saying why there is no thread dump
 * @param dump      the JSON thread dump, or null
 */
record Freeze(String variant, Duration bound, int completed, int total, int carriers, List<String> sites, Path dump) {

    /** The variant stayed frozen even after its borrowers were interrupted: the scenario cannot go on in this JVM. */
    static final class Unrecovered extends Exception {
        private static final long serialVersionUID = 1L;

        final transient Freeze freeze;

        Unrecovered(Freeze freeze, Duration waited) {
            super(freeze.variant() + " froze (" + freeze.summary() + ") and its virtual threads had not ended "
                    + waited.toSeconds() + " s after they were interrupted: every carrier is still held, so no other"
                    + " variant can run in this JVM");
            this.freeze = freeze;
        }
    }

    /**
     * Counts the carriers and, on JDK 21-23, writes a JSON thread dump of every thread (virtual
     * ones included) into {@code dumps} and groups the started virtual threads by their top frames.
     * Not on JDK 24 and later: there the dump crashed the JVM here once in four runs while virtual
     * threads waited in {@code Object.wait} (SIGSEGV in {@code stackChunkOopDesc::sender},
     * Temurin 25.0.3), and the scheduler does not freeze on a pool there anyway.
     */
    static Freeze diagnose(String variant, Duration bound, int completed, int total, Path dumps) {
        int carriers = carriersNow();
        if (Runtime.version().feature() >= 24) {
            return new Freeze(variant, bound, completed, total, carriers,
                    List.of("no thread dump on JDK 24+ (HotSpotDiagnosticMXBean.dumpThreads crashed the JVM here)"), null);
        }
        Path file = dumps.resolve("frozen-" + variant + ".json");
        try {
            Files.deleteIfExists(file);
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                    .dumpThreads(file.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON);
            return new Freeze(variant, bound, completed, total, carriers, sites(file), file);
        } catch (Exception | LinkageError e) {
            return new Freeze(variant, bound, completed, total, carriers, List.of("no thread dump: " + e), null);
        }
    }

    /**
     * The scheduler's carriers alive now: on JDK 21-25 they are {@code jdk.internal.misc.CarrierThread}s.
     * Enumerated from the root thread group, which takes no stack.
     */
    static int carriersNow() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] all = new Thread[root.activeCount() + 64];
        int n = root.enumerate(all, true);
        int carriers = 0;
        for (int i = 0; i < n; i++) {
            if (all[i].getClass().getName().equals("jdk.internal.misc.CarrierThread")) {
                carriers++;
            }
        }
        return carriers;
    }

    private static List<String> sites(Path file) throws java.io.IOException {
        JsonNode root = new ObjectMapper().readTree(file.toFile());
        Map<String, int[]> bySite = new LinkedHashMap<>();
        for (JsonNode container : root.path("threadDump").path("threadContainers")) {
            for (JsonNode thread : container.path("threads")) {
                List<String> stack = new ArrayList<>();
                thread.path("stack").forEach(f -> stack.add(f.asText()));
                if (stack.isEmpty() || !stack.getLast().contains("java.lang.VirtualThread.run")) {
                    continue;   // a platform thread, or a virtual thread not started yet or queued
                }
                String site = String.join(" <- ", stack.subList(0, Math.min(4, stack.size())));
                bySite.computeIfAbsent(site, k -> new int[1])[0]++;
            }
        }
        List<Map.Entry<String, int[]>> ranked = new ArrayList<>(bySite.entrySet());
        ranked.sort(Comparator.comparingInt((Map.Entry<String, int[]> e) -> e.getValue()[0]).reversed());
        return ranked.stream().limit(5).map(e -> e.getValue()[0] + " x " + e.getKey()).toList();
    }

    /** One line: what completed, the carriers, the top site. */
    String summary() {
        return String.format(Locale.ROOT, "%d of %d queries done after %d s, %d carriers; %s", completed, total,
                bound.toSeconds(), carriers, sites.isEmpty() ? "no virtual thread started" : sites.getFirst());
    }
}
