package dev.weft.lab.report;

import dev.weft.lab.Goal;
import dev.weft.lab.LabResult;
import dev.weft.lab.Machine;
import dev.weft.lab.ScenarioResult;
import dev.weft.lab.Variant;
import java.util.List;
import java.util.Map;

/**
 * A lab run with every kind of figure the reports draw, shaped like a real quick run: rates on a
 * log axis, close times on a linear one, an extrapolated figure, a floor that is another
 * variant's time, published figures and ranges, thread counts, met and missed goals, a failed
 * scenario and one run on a second JDK.
 */
final class SampleLab {

    private SampleLab() {}

    static Variant variant(
            String name,
            String unit,
            double value,
            Double limit,
            Double published,
            List<Double> range,
            String kind,
            String limitLabel,
            List<Double> rounds,
            Long threads) {
        return new Variant(
                name,
                unit,
                value,
                limit,
                limit == null ? null : value / limit,
                published,
                range,
                null,
                kind,
                limitLabel,
                rounds,
                threads,
                null,
                Map.of());
    }

    static Goal goal(String name, double measured, double target, String direction, List<Double> perRound) {
        return Goal.judge(name, "x", measured, target, direction, perRound, true);
    }

    static LabResult result() {
        ScenarioResult fanout = new ScenarioResult(
                "fanout",
                "N HTTP GETs",
                "Tianxiang Xiong, core.async and virtual"
                        + " threads (2025) https://www.tianxiangxiong.com/2025/10/26/core-async-and-virtual-threads.html",
                "25.0.1+8-LTS",
                25,
                "every call waits 1,000 ms",
                "ok",
                null,
                31.2,
                40,
                List.of("published, not drawn: N = 100 remote"),
                List.of(goal(
                        "N=1,000: weft-process within 1.10x the wall time of virtual-threads (per round)",
                        1.02,
                        1.10,
                        Goal.AT_MOST,
                        List.of(1.01, 1.02, 1.05))),
                List.of(
                        variant(
                                "core-async-thread",
                                "ms",
                                1_090,
                                1_000.0,
                                null,
                                null,
                                null,
                                null,
                                List.of(1_080.0, 1_090.0, 1_120.0),
                                1_013L),
                        variant(
                                "virtual-threads",
                                "ms",
                                1_040,
                                1_000.0,
                                null,
                                null,
                                null,
                                null,
                                List.of(1_030.0, 1_040.0, 1_060.0),
                                13L),
                        variant(
                                "weft-process",
                                "ms",
                                1_061,
                                1_000.0,
                                null,
                                null,
                                null,
                                null,
                                List.of(1_050.0, 1_061.0, 1_070.0),
                                14L)));
        ScenarioResult pinning = new ScenarioResult(
                "pinning",
                "1,000 virtual threads doing 10 ms of blocking I/O",
                "Virtual Thread Mechanics (Fast by Design) https://earezki.com/books/fast-by-design/ch8-s1/",
                "25.0.1+8-LTS",
                25,
                "Little's law",
                "ok",
                null,
                20.5,
                30,
                List.of(),
                List.of(),
                List.of(
                        variant("no-lock", "tasks/s", 64_399, 100_000.0, 92_000.0, null, null, null, List.of(), 13L),
                        variant("synchronized", "tasks/s", 97.6, 100.0, 98.0, null, null, null, List.of(), 13L)));
        ScenarioResult pinning21 = new ScenarioResult(
                "pinning",
                "1,000 virtual threads doing 10 ms of blocking I/O",
                "Virtual Thread Mechanics (Fast by Design) https://earezki.com/books/fast-by-design/ch8-s1/",
                "21.0.9+10-LTS",
                21,
                "Little's law",
                "ok",
                null,
                21.5,
                30,
                List.of(),
                List.of(),
                List.of(variant("synchronized", "tasks/s", 195, 200.0, null, null, null, null, List.of(), 14L)));
        ScenarioResult context = new ScenarioResult(
                "context",
                "Context for N virtual-thread tasks",
                "Clojure: virtual thread and dynamic var performance (Anders Murphy, 2024)"
                        + " https://andersmurphy.com/2024/05/30/clojure-virtual-thread-dynamic-var-performance.html",
                "25.0.1+8-LTS",
                25,
                "the floor is the explicit argument in this run",
                "ok",
                null,
                42.0,
                45,
                List.of(),
                List.of(goal(
                        "weft-context within 1.10x of explicit-arg (its time / explicit-arg's, per round)",
                        1.107,
                        1.10,
                        Goal.AT_MOST,
                        List.of(1.15, 1.107, 1.21))),
                List.of(
                        variant(
                                "dynamic-var",
                                "ms",
                                311,
                                28.1,
                                null,
                                null,
                                null,
                                "explicit-arg in this run",
                                List.of(300.0, 311.0, 330.0),
                                null),
                        variant(
                                "explicit-arg",
                                "ms",
                                28.1,
                                28.1,
                                null,
                                null,
                                null,
                                "explicit-arg in this run",
                                List.of(27.0, 28.1, 30.0),
                                null),
                        variant(
                                "weft-context",
                                "ms",
                                31.1,
                                28.1,
                                null,
                                null,
                                null,
                                "explicit-arg in this run",
                                List.of(29.0, 31.1, 33.0),
                                null)));
        ScenarioResult coroutines = new ScenarioResult(
                "coroutines",
                "N coroutines sleeping 1 s",
                "Kt. Academy https://kt.academy/article/dispatcher-loom",
                "25.0.1+8-LTS",
                25,
                "Little's law",
                "ok",
                null,
                38.0,
                40,
                List.of(),
                List.of(goal(
                        "Dispatchers.IO (extrapolated) at least 100x slower than weft at N = 10,000",
                        149,
                        100,
                        Goal.AT_LEAST,
                        List.of())),
                List.of(
                        variant("raw-virtual", "s", 1.03, 1.02, null, null, null, null, List.of(1.03, 1.03, 1.04), 9L),
                        variant("weft", "s", 1.07, 1.02, null, null, null, null, List.of(1.06, 1.07, 1.08), 10L),
                        variant(
                                "dispatchers-io",
                                "s",
                                159,
                                157.0,
                                null,
                                null,
                                Variant.EXTRAPOLATED,
                                null,
                                List.of(4.1),
                                73L)));
        ScenarioResult sw = new ScenarioResult(
                "switch",
                "Hand-offs between two threads",
                "article 001 https://earezki.com/books/fast-by-design/ch8-s1/",
                "25.0.1+8-LTS",
                25,
                "no limit",
                "ok",
                null,
                12.0,
                15,
                List.of(),
                List.of(goal(
                        "virtual-handoff at most 0.0625x platform-handoff's time (per round)",
                        0.0622,
                        0.0625,
                        Goal.AT_MOST,
                        List.of(0.0600, 0.0622, 0.0650))),
                List.of(
                        variant(
                                "virtual-handoff",
                                "ns/switch",
                                610,
                                null,
                                350.0,
                                List.of(200.0, 500.0),
                                null,
                                null,
                                List.of(600.0, 610.0, 640.0),
                                null),
                        variant(
                                "platform-handoff",
                                "ns/switch",
                                9_800,
                                null,
                                10_000.0,
                                List.of(5_000.0, 15_000.0),
                                null,
                                null,
                                List.of(9_700.0, 9_800.0, 9_900.0),
                                null),
                        variant(
                                "virtual-yield",
                                "ns/switch",
                                420,
                                null,
                                null,
                                null,
                                null,
                                null,
                                List.of(410.0, 420.0, 430.0),
                                null)));
        // Goodput at offered loads of 1x, 2x and 4x the capacity: the reports draw it as a load chart.
        List<Variant> overloadVariants = new java.util.ArrayList<>();
        double[][] goodput = {{780, 770, 760}, {790, 420, 150}};
        String[] servers = {"weft-ring-admission", "jetty-hikaricp"};
        int[] factors = {1, 2, 4};
        for (int s = 0; s < servers.length; s++) {
            for (int f = 0; f < factors.length; f++) {
                overloadVariants.add(variant(
                        servers[s] + "@" + factors[f] + "x",
                        "req/s",
                        goodput[s][f],
                        800.0,
                        null,
                        null,
                        Variant.MEASURED,
                        "the database's capacity",
                        null,
                        null));
            }
        }
        ScenarioResult overload = new ScenarioResult(
                "overload",
                "Goodput past the database's capacity",
                "article 001 https://earezki.com/books/fast-by-design/ch8-s1/",
                "25.0.1+8-LTS",
                25,
                "800 req/s: the pool's size over the query's time",
                "ok",
                null,
                30.0,
                34,
                List.of(),
                List.of(goal(
                        "weft-ring-admission@4x keeps goodput >= 0.90 of the capacity",
                        0.95,
                        0.90,
                        Goal.AT_LEAST,
                        List.of(0.95))),
                List.copyOf(overloadVariants));
        ScenarioResult failed = new ScenarioResult(
                "http",
                "Ring handlers",
                "Anders Murphy, Clojure: virtual threads with"
                        + " ring and http-kit (2023) https://andersmurphy.com/2023/09/15/clojure-virtual-threads-with-ring-and-http-kit.html",
                null,
                null,
                null,
                "failed",
                "timed out after 120 s",
                120.0,
                60,
                List.of(),
                List.of(),
                List.of());
        context = context.withMachine(new Machine(3.2, 0.7, 0.01, 4.5, 0.02, 2, true));
        fanout = fanout.withMachine(new Machine(0.3, 0.05, 0.0, 2.1, 0.0, 2, false));
        return new LabResult(
                LabResult.FORMAT_VERSION,
                "25.0.1+8-LTS (Eclipse Adoptium)",
                2,
                "quick",
                "2026-11-23T20:10:05Z",
                214.0,
                null,
                List.of(fanout, pinning, pinning21, context, coroutines, sw, overload, failed));
    }
}
