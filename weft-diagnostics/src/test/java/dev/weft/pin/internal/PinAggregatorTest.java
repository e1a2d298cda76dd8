package dev.weft.pin.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.pin.PinEvent;
import dev.weft.pin.PinFrame;
import dev.weft.pin.PinReport;
import dev.weft.pin.PinSite;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class PinAggregatorTest {

    private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
    private static final PinFrame PARK = new PinFrame("java.lang.VirtualThread", "parkOnCarrierThread", 830);
    private static final PinFrame SLEEP = new PinFrame("java.lang.Thread", "sleep", 540);

    private static PinEvent pin(int atMillis, int millis, String reason, PinFrame... frames) {
        return new PinEvent(
                T0.plusMillis(atMillis),
                Duration.ofMillis(millis),
                reason,
                "LockSupport.park",
                null,
                "ForkJoinPool-1-worker-1",
                List.of(frames),
                false);
    }

    @Test
    void sitesAreReasonPlusTopFramesBelowTheMachineryRankedByTimeLost() {
        PinAggregator a = new PinAggregator(2, 10);
        PinFrame cfg = new PinFrame("com.acme.Config", "<clinit>", 12);
        PinFrame other = new PinFrame("com.acme.Cache", "<clinit>", 7);
        a.add(pin(
                0, 10, "VM call to com.acme.Config.<clinit> on stack", PARK, SLEEP, cfg, new PinFrame("a.B", "c", 1)));
        a.add(pin(
                5, 30, "VM call to com.acme.Config.<clinit> on stack", PARK, SLEEP, cfg, new PinFrame("x.Y", "z", 2)));
        a.add(pin(9, 50, "VM call to com.acme.Cache.<clinit> on stack", PARK, SLEEP, other));
        PinReport r = a.report(T0, T0.plusSeconds(1), Duration.ZERO, null);

        assertEquals(3, r.pins());
        assertEquals(Duration.ofMillis(90), r.pinned());
        assertEquals(2, r.sites().size(), "frames past the top 2 below the machinery do not split a site");
        assertEquals(
                "VM call to com.acme.Cache.<clinit> on stack", r.sites().get(0).reason(), "50 ms lost ranks first");
        assertEquals(2, r.sites().get(1).count(), "the two Config pins are one site");
        assertEquals(List.of(SLEEP, cfg), r.sites().get(1).frames());
    }

    @Test
    void rankingIsByTotalDurationThenCount() {
        PinAggregator a = new PinAggregator(4, 10);
        PinFrame cfg = new PinFrame("com.acme.Config", "<clinit>", 12);
        PinFrame cache = new PinFrame("com.acme.Cache", "<clinit>", 7);
        a.add(pin(0, 10, "r1", SLEEP, cfg));
        a.add(pin(1, 30, "r1", SLEEP, cfg));
        a.add(pin(2, 35, "r2", SLEEP, cache));
        PinReport r = a.report(T0, T0.plusSeconds(1), Duration.ZERO, null);
        assertEquals(
                List.of("r1", "r2"), r.sites().stream().map(PinSite::reason).toList());
        PinSite s = r.sites().getFirst();
        assertEquals(2, s.count());
        assertEquals(Duration.ofMillis(40), s.total());
        assertEquals(Duration.ofMillis(30), s.max());
        assertEquals(T0, s.firstSeen());
        assertEquals(T0.plusMillis(1), s.lastSeen());
        assertEquals(List.of(SLEEP, cfg), s.frames(), "machinery dropped, rest kept");
        assertEquals(cfg, s.firstApplicationFrame());
    }

    @Test
    void theSameCodeInDifferentHiddenClassesIsOneSite() {
        PinAggregator a = new PinAggregator(4, 10);
        a.add(pin(
                0,
                10,
                "VM call to p.Init/0x000000003a045400.<clinit> on stack",
                SLEEP,
                new PinFrame("p.Init/0x000000003a045400", "<clinit>", 3)));
        a.add(pin(
                1,
                10,
                "VM call to p.Init/0x0000000041aa2c00.<clinit> on stack",
                SLEEP,
                new PinFrame("p.Init/0x0000000041aa2c00", "<clinit>", 3)));
        PinReport r = a.report(T0, T0.plusSeconds(1), Duration.ZERO, null);
        assertEquals(1, r.sites().size(), r.toText());
        assertEquals("VM call to p.Init.<clinit> on stack", r.sites().getFirst().reason());
        assertEquals(
                "p.Init.<clinit>(line 3)", r.sites().getFirst().frames().get(1).toString());
    }

    @Test
    void jdk21sFormOfHiddenClassNamesIsOneSiteToo() {
        // JDK 21's JFR writes hidden classes as Name+0x<address>.<id> and gives no pinned reason
        PinAggregator a = new PinAggregator(4, 10);
        a.add(pin(0, 10, null, SLEEP, new PinFrame("p.Init+0x00000008002e2000.537410611", "<clinit>", 3)));
        a.add(pin(1, 10, null, SLEEP, new PinFrame("p.Init+0x0000000800282000.1755467568", "<clinit>", 3)));
        a.add(pin(2, 10, null, SLEEP, new PinFrame("p.Init$$Lambda+0x0000000800283a18", "run", -1)));
        PinReport r = a.report(T0, T0.plusSeconds(1), Duration.ZERO, null);
        assertEquals(2, r.sites().size(), r.toText());
        assertEquals(2, r.sites().getFirst().count());
        assertEquals(
                "p.Init.<clinit>(line 3)", r.sites().getFirst().frames().get(1).toString());
        assertEquals("p.Init$$Lambda.run", r.sites().get(1).frames().get(1).toString());
    }

    @Test
    void sitesBeyondTheLimitAreOnlyCounted() {
        PinAggregator a = new PinAggregator(4, 2);
        for (int i = 0; i < 5; i++) {
            a.add(pin(i, 1, "r", new PinFrame("p.C" + i, "m", 1)));
        }
        a.add(pin(9, 1, "r", new PinFrame("p.C0", "m", 1)));
        PinReport r = a.report(T0, T0.plusSeconds(1), Duration.ZERO, null);
        assertEquals(6, r.pins());
        assertEquals(2, r.sites().size());
        assertEquals(3, r.otherPins());
        assertEquals(3, r.sites().stream().mapToLong(PinSite::count).sum());
        assertTrue(r.toText().contains("3 more pins at sites beyond the monitor's site limit"), r.toText());
    }

    @Test
    void aStackOfOnlyMachineryIsKeptAndNoStackIsAllowed() {
        PinAggregator a = new PinAggregator(4, 10);
        a.add(pin(0, 1, null, PARK));
        a.add(pin(1, 1, null));
        PinReport r = a.report(T0, T0.plusSeconds(1), Duration.ZERO, null);
        assertEquals(2, r.sites().size());
        assertTrue(r.sites().stream().anyMatch(s -> s.frames().equals(List.of(PARK))));
        assertNull(r.sites().stream()
                .filter(s -> s.frames().isEmpty())
                .findFirst()
                .orElseThrow()
                .firstApplicationFrame());
        String text = r.toText();
        assertTrue(text.contains("JFR gives no reason before JDK 24"), text);
        assertTrue(text.contains("(no stack trace recorded)"), text);
    }

    @Test
    void submitFailuresAreCountedWithDistinctMessages() {
        PinAggregator a = new PinAggregator(4, 10);
        for (int i = 0; i < 15; i++) {
            a.addSubmitFailure("pool exhausted " + (i % 12));
        }
        PinReport r = a.report(T0, T0.plusSeconds(1), Duration.ZERO, null);
        assertEquals(15, r.submitFailures());
        assertEquals(10, r.submitFailureMessages().size());
        assertTrue(!r.isEmpty());
        assertTrue(r.toText().contains("15 virtual threads could not be scheduled"), r.toText());
    }

    @Test
    void anEmptyReportSaysSo() {
        PinReport r = new PinAggregator(4, 10).report(T0, T0.plusMillis(2_500), Duration.ofMillis(20), null);
        assertTrue(r.isEmpty());
        assertEquals("no pins (threshold 20 ms, 2.5 s observed)\n", r.toText());
    }

    @Test
    void rejectsNonsenseLimits() {
        assertThrows(IllegalArgumentException.class, () -> new PinAggregator(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new PinAggregator(1, 0));
    }

    /** An FFM upcall that sleeps: nine frames of method-handle plumbing between the upcall and its native caller. */
    static List<PinFrame> upcallStack() {
        List<PinFrame> f =
                new java.util.ArrayList<>(List.of(PARK, SLEEP, new PinFrame("com.acme.Callbacks", "compare", 30)));
        for (int i = 0; i < 4; i++) {
            f.add(new PinFrame("java.lang.invoke.LambdaForm$DMH", "invokeStatic", -1));
        }
        f.add(new PinFrame("jdk.internal.foreign.abi.SharedUtils", "upcall", 10));
        for (int i = 0; i < 5; i++) {
            f.add(new PinFrame("java.lang.invoke.LambdaForm$MH", "invoke", -1));
        }
        f.add(new PinFrame("jdk.internal.foreign.abi.DowncallLinker", "invoke", 20));
        for (int i = 0; i < 8; i++) {
            f.add(new PinFrame("java.lang.invoke.Invokers$Holder", "invokeExact_MT", -1));
        }
        f.add(new PinFrame("com.acme.Sorter", "sortNative", 55)); // the caller of the native code
        f.add(new PinFrame("com.acme.Main", "main", 5));
        return f;
    }

    @Test
    void methodHandlePlumbingDoesNotUseUpTheFrames() {
        List<PinFrame> site = PinAggregator.siteFrames(upcallStack(), 4);
        assertEquals(
                List.of(
                        "java.lang.Thread",
                        "com.acme.Callbacks",
                        "jdk.internal.foreign.abi.SharedUtils",
                        "jdk.internal.foreign.abi.DowncallLinker"),
                site.stream().map(PinFrame::className).toList());
    }

    @Test
    void byDefaultWeftPinsReachesTheCallerOfNativeCode() {
        PinAggregator a = PinAggregator.reachingCallers(10);
        a.add(pin(0, 10, "Native frame or <clinit> on stack", upcallStack().toArray(PinFrame[]::new)));
        List<PinFrame> frames = a.report(Instant.EPOCH, Instant.EPOCH, Duration.ZERO, null)
                .sites()
                .getFirst()
                .frames();
        assertTrue(frames.stream().anyMatch(f -> f.className().equals("com.acme.Sorter")), frames.toString());
        assertTrue(frames.stream().noneMatch(f -> f.className().startsWith("java.lang.invoke.")), frames.toString());
        assertEquals(
                PinAggregator.DEFAULT_TOP_FRAMES,
                PinAggregator.depthToCaller(List.of(PARK, SLEEP, new PinFrame("com.acme.Config", "<clinit>", 3))),
                "no native frame: the default");
        List<PinFrame> jni = List.of(
                PARK,
                SLEEP,
                new PinFrame("com.acme.Jni", "callback", 3),
                new PinFrame("com.acme.Jni", "call", -1, true),
                new PinFrame("com.acme.App", "run", 9));
        assertEquals(PinAggregator.DEFAULT_TOP_FRAMES, PinAggregator.depthToCaller(jni), "reached within the default");
        assertEquals("com.acme.Jni.call(native)", jni.get(3).toString());
        List<PinFrame> deep = new java.util.ArrayList<>(List.of(
                PARK,
                SLEEP,
                new PinFrame("com.acme.Callbacks", "compare", 30),
                new PinFrame("jdk.internal.foreign.abi.SharedUtils", "upcall", 10)));
        for (int i = 0; i < 14; i++) {
            deep.add(new PinFrame("java.util.concurrent.ForkJoinTask", "doExec", i));
        }
        deep.add(new PinFrame("com.acme.Sorter", "sortNative", 55));
        assertEquals(18, PinAggregator.depthToCaller(deep), "beyond the default, up to the caller");
    }
}
