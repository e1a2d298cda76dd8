package dev.weft.lab.scenarios.context;

import static org.junit.jupiter.api.Assertions.assertEquals;

import clojure.java.api.Clojure;
import clojure.lang.IFn;
import clojure.lang.Keyword;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The context scenario's per-round figure ({@code weft.lab.context/round-figures}, decision 0875):
 * the collector's pauses are charged to the runs by allocation, not to the run they fell in.
 */
class RoundFiguresTest {

    private static IFn roundFigures;

    @BeforeAll
    static void load() {
        Clojure.var("clojure.core", "require").invoke(Clojure.read("weft.lab.context"));
        roundFigures = Clojure.var("weft.lab.context", "round-figures");
    }

    private static Object run(double ms, double pauseMs, Long bytes) {
        Map<Keyword, Object> run = new HashMap<>();
        run.put(Keyword.intern("ms"), ms);
        run.put(Keyword.intern("pause-ms"), pauseMs);
        run.put(Keyword.intern("bytes"), bytes);
        return clojure.lang.PersistentArrayMap.create(run);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Number> figures(Map<String, List<Object>> runs) {
        return (Map<String, Number>) roundFigures.invoke(clojure.lang.PersistentArrayMap.create(runs));
    }

    @Test
    void aPauseIsChargedByAllocationNotToTheRunItFellIn() {
        // Both variants allocate alike and run 20 ms; a 40 ms pause fell in one of a's runs.
        Map<String, Number> f = figures(Map.of(
                "a", List.of(run(20, 0, 100L), run(60, 40, 100L)),
                "b", List.of(run(20, 0, 100L), run(20, 0, 100L))));
        // 40 ms over 400 bytes: every run pays 10 ms, so both variants' figure is 30 ms
        // (their wall-time means were 40 and 20).
        assertEquals(30.0, f.get("a").doubleValue(), 1e-9);
        assertEquals(30.0, f.get("b").doubleValue(), 1e-9);
    }

    @Test
    void aVariantThatAllocatesMorePaysMoreOfThePauses() {
        Map<String, Number> f = figures(Map.of(
                "garbage", List.of(run(20, 0, 300L)),
                "lean", List.of(run(30, 20, 100L))));
        // 20 ms of pauses over 400 bytes: garbage pays 15 ms, lean 5 ms.
        assertEquals(35.0, f.get("garbage").doubleValue(), 1e-9);
        assertEquals(15.0, f.get("lean").doubleValue(), 1e-9);
    }

    @Test
    void withoutAllocatedBytesTheFigureIsTheMeanWallTime() {
        Map<String, Number> f = figures(Map.of(
                "a", List.of(run(20, 0, null), run(60, 40, 100L)),
                "b", List.of(run(20, 0, 100L))));
        assertEquals(40.0, f.get("a").doubleValue(), 1e-9);
        assertEquals(20.0, f.get("b").doubleValue(), 1e-9);
    }
}
