package dev.weft.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.audit.AuditReport;
import dev.weft.audit.Auditor;
import dev.weft.audit.Finding;
import dev.weft.audit.Fixtures;
import dev.weft.audit.Severity;
import dev.weft.pin.PinCapture;
import dev.weft.pin.PinReport;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The audit meets the runtime: every rule that is an error at {@code --target-jdk 21} is run on a
 * virtual thread, on the JDK these tests run on, and its harm is observed. On JDK 21 (the matrix
 * tier) that is the pin in JFR, or where JFR is blind (Object.wait), the carrier the waiter holds;
 * on JDK 24+ (the unit tier on 25) it is what the audit says for that target: synchronized and
 * Object.wait no longer hold a carrier, a blocking class initializer still pins.
 */
class AuditMeetsTheRuntimeTest {

    private static final String FIX = Fixtures.PACKAGE.replace('/', '.');
    private static final int JDK = Runtime.version().feature();

    @TempDir
    static Path dir;

    static Path fixture;

    @BeforeAll
    static void jar() throws Exception {
        fixture = Fixtures.fixtureJar(dir);
    }

    /** A fresh loader each time, so that a class initializer runs again. */
    private static Class<?> load(String simpleName) throws Exception {
        URLClassLoader loader = new URLClassLoader(new URL[] {fixture.toUri().toURL()}, null);
        return Class.forName(FIX + simpleName, false, loader);
    }

    @Test
    void theRulesThatAreErrorsAt21AreTheOnesThisTestRuns() throws Exception {
        AuditReport r21 = Auditor.forTargetJdk(21).audit(List.of(fixture.toString()));
        AuditReport r25 = Auditor.forTargetJdk(25).audit(List.of(fixture.toString()));
        Map<String, Severity> at21 = severities(r21);
        Map<String, Severity> at25 = severities(r25);
        assertEquals(
                Set.of("blocking-in-class-init", "synchronized-blocking", "object-wait"),
                at21.entrySet().stream()
                        .filter(e -> e.getValue() == Severity.ERROR)
                        .map(Map.Entry::getKey)
                        .collect(Collectors.toSet()),
                at21.toString());
        assertEquals(Severity.ERROR, at25.get("blocking-in-class-init"));
        assertEquals(Severity.INFO, at25.get("synchronized-blocking"));
        assertEquals(Severity.INFO, at25.get("object-wait"));
    }

    private static Map<String, Severity> severities(AuditReport r) {
        Map<String, Severity> worst = new TreeMap<>();
        for (Finding f : r.findings()) {
            worst.merge(f.rule().id(), f.severity(), (a, b) -> a.compareTo(b) <= 0 ? a : b);
        }
        return worst;
    }

    @Test
    @Timeout(60)
    void blockingInAClassInitializerPinsOnEveryJdk() throws Throwable {
        Class<?> c = load("BlockingInit");
        PinReport r = capture(() -> Class.forName(c.getName(), true, c.getClassLoader()));
        assertTrue(r.pins() >= 1, "JDK " + JDK + ": the initializer's sleep pins (error at 21 and 25):\n" + r.toText());
        assertTrue(r.toText().contains(FIX + "BlockingInit.<clinit>"), r.toText());
    }

    @Test
    @Timeout(60)
    void synchronizedAroundBlockingPinsOn21AndNotOn24Plus() throws Throwable {
        Object syncBlock = load("SyncBlock").getConstructor().newInstance();
        PinReport r = capture(() -> syncBlock.getClass().getMethod("refresh").invoke(syncBlock));
        if (JDK < 24) {
            assertTrue(
                    r.pins() >= 1,
                    "JDK " + JDK + ": the sleep inside synchronized pins (audit: error):\n" + r.toText());
            assertTrue(r.toText().contains(FIX + "SyncBlock.fetch"), r.toText());
        } else {
            assertEquals(
                    0,
                    r.pins(),
                    "JDK " + JDK + ": JEP 491, the sleep inside synchronized unmounts (audit at 25: info):\n"
                            + r.toText());
        }
    }

    @Test
    @Timeout(60)
    void objectWaitHoldsACarrierOn21WhereJfrIsBlind() throws Throwable {
        Class<?> waiterClass = load("Waiter");
        int waiters = Runtime.getRuntime().availableProcessors() + 1;
        Object[] objects = new Object[waiters];
        Thread[] threads = new Thread[waiters];
        Set<String> carriers = java.util.concurrent.ConcurrentHashMap.newKeySet();
        PinReport r = capture(() -> {
            for (int i = 0; i < waiters; i++) {
                Object w = objects[i] = waiterClass.getConstructor().newInstance();
                threads[i] = Thread.ofVirtual().start(() -> {
                    try {
                        waiterClass.getMethod("awaitReady").invoke(w);
                    } catch (ReflectiveOperationException e) {
                        throw new IllegalStateException(e);
                    }
                });
            }
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (java.util.Arrays.stream(threads).anyMatch(t -> t.getState() != Thread.State.WAITING)
                    && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            for (Thread t : threads) {
                String s = t.toString(); // mounted: VirtualThread[#22]/waiting@ForkJoinPool-1-worker-3
                if (s.contains("/waiting@")) {
                    carriers.add(s.substring(s.indexOf('@') + 1));
                }
            }
            for (Object w : objects) {
                waiterClass.getMethod("ready").invoke(w);
            }
            for (Thread t : threads) {
                t.join();
            }
            return null;
        });
        assertEquals(0, r.pins(), "no JFR pin event for Object.wait on any JDK:\n" + r.toText());
        if (JDK < 24) {
            assertEquals(
                    waiters,
                    carriers.size(),
                    "JDK " + JDK + ": every waiter holds a carrier of its own, more than the"
                            + " scheduler's parallelism (it compensated), though JFR recorded nothing (audit: error): "
                            + carriers);
        } else {
            assertEquals(Set.of(), carriers, "JDK " + JDK + ": waiters unmount (audit at 25: info)");
        }
    }

    @FunctionalInterface
    interface Body {
        Object run() throws Exception;
    }

    /** Runs {@code body} on a virtual thread inside a pin capture. */
    private static PinReport capture(Body body) throws Throwable {
        PinCapture capture = PinCapture.start();
        java.util.concurrent.atomic.AtomicReference<Throwable> failed =
                new java.util.concurrent.atomic.AtomicReference<>();
        Thread.ofVirtual()
                .start(() -> {
                    try {
                        body.run();
                    } catch (Throwable e) {
                        failed.set(e);
                    }
                })
                .join();
        PinReport r = capture.end();
        if (failed.get() != null) {
            throw failed.get();
        }
        return r;
    }
}
