package dev.weft.pin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.pin.internal.PinAggregator;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which pins a check counts (decision 0206), on stacks as JFR records them on JDK 21 and 25. */
class PinAttributionTest {

    /** The bottom of every virtual thread's stack, outermost last. */
    static final List<PinFrame> VIRTUAL_THREAD_BASE = List.of(
            new PinFrame("java.lang.Thread", "runWith", 1487),
            new PinFrame("java.lang.VirtualThread", "run", 460),
            new PinFrame("java.lang.VirtualThread$VThreadContinuation$1", "run", 252),
            new PinFrame("jdk.internal.vm.Continuation", "enter0", 325),
            new PinFrame("jdk.internal.vm.Continuation", "enter", 316),
            new PinFrame("jdk.internal.vm.Continuation", "enterSpecial", -1));

    static PinEvent pin(String reason, String thread, boolean truncated, PinFrame... top) {
        List<PinFrame> frames = new java.util.ArrayList<>(List.of(top));
        frames.addAll(VIRTUAL_THREAD_BASE);
        return new PinEvent(
                Instant.now(), Duration.ofMillis(5), reason, "Object.wait", thread, null, frames, truncated);
    }

    static Optional<String> why(PinEvent p) {
        return PinAttribution.jdkOwn(p);
    }

    /** JDK 25's first virtual-thread socket I/O: the SubPoller it starts waits for Poller's initialization. */
    @Test
    void theJdksSocketPollerIsNotTheBodys() {
        PinEvent subPoller = pin(
                "Waited for initialization of sun.nio.ch.Poller by another thread",
                "SubPoller-0",
                false,
                new PinFrame("sun.nio.ch.Poller", "subPollerLoop", 265),
                new PinFrame("sun.nio.ch.Poller$Pollers", "lambda$start$2", 366),
                new PinFrame("sun.nio.ch.Poller$Pollers$$Lambda", "run", -1),
                new PinFrame("java.util.concurrent.ThreadPerTaskExecutor$TaskRunner", "run", 291));
        String why = why(subPoller).orElseThrow();
        assertTrue(why.contains("thread SubPoller-0"), why);
        assertTrue(why.contains("every frame of its stack is the JDK's"), why);
        assertTrue(why.contains("sun.nio.ch.Poller.subPollerLoop"), why);
    }

    @Test
    void aStackJfrCutShortCounts() {
        assertEquals(Optional.empty(), why(pin(null, null, true, new PinFrame("java.lang.Thread", "sleep", 1))));
    }

    @Test
    void aThreadWithAFrameOfTheApplicationCounts() {
        assertEquals(
                Optional.empty(),
                why(pin(
                        "Monitor held",
                        "worker",
                        false,
                        new PinFrame("java.lang.Thread", "sleep", 1),
                        new PinFrame("com.acme.Cache", "load", 42))));
    }

    @Test
    void waitingForTheJdksOneTimeInitializationIsNot() {
        PinEvent p = pin(
                "Waited for initialization of sun.nio.ch.Poller by another thread",
                "weft-pin-check-1",
                false,
                new PinFrame("sun.nio.ch.NioSocketImpl", "park", 100),
                new PinFrame("com.acme.Client", "fetch", 7));
        String why = why(p).orElseThrow();
        assertTrue(why.contains("thread weft-pin-check-1"), why);
        assertTrue(why.contains("one-time initialization of the JDK class sun.nio.ch.Poller"), why);
        // ... but waiting for an application class counts
        assertEquals(
                Optional.empty(),
                why(pin(
                        "Waited for initialization of com.acme.Config by another thread",
                        null,
                        false,
                        new PinFrame("com.acme.Client", "fetch", 7))));
    }

    @Test
    void blockingInAJdkInitializerIsNotButInTheApplicationsOwnItIs() {
        PinFrame park = new PinFrame("jdk.internal.misc.Unsafe", "park", -1);
        PinFrame user = new PinFrame("com.acme.Client", "fetch", 7);
        PinEvent jdkInit =
                pin(null, null, false, park, new PinFrame("sun.security.provider.SeedGenerator", "<clinit>", 3), user);
        assertTrue(why(jdkInit)
                .orElseThrow()
                .contains("initialization of the JDK class sun.security.provider.SeedGenerator"));
        PinEvent ownInit = pin(
                null,
                null,
                false,
                park,
                new PinFrame("sun.security.provider.SeedGenerator", "<clinit>", 3),
                new PinFrame("com.acme.Config", "<clinit>", 12),
                user);
        assertEquals(Optional.empty(), why(ownInit), "the application's own initializer holds the thread too");
        PinEvent probe = pin(
                "VM call to dev.weft.pin.ProbeInit.<clinit> on stack",
                null,
                false,
                new PinFrame("java.lang.Thread", "sleep", 1),
                new PinFrame("dev.weft.pin.ProbeInit", "<clinit>", 10));
        assertEquals(Optional.empty(), why(probe));
        PinEvent monitor = pin(
                "Monitor held",
                null,
                false,
                park,
                new PinFrame("sun.security.provider.SeedGenerator", "<clinit>", 3),
                user);
        assertEquals(Optional.empty(), why(monitor), "a monitor the application holds pins on its own");
    }

    /**
     * JDK 24+ names a monitor entered inside a section the JVM or the JDK pinned for itself (class
     * loading for an instruction, a virtual thread's interrupt lock): not the body's, unless its
     * own initializer is on the stack. The same reason with another operation still counts.
     */
    @Test
    void waitingForAMonitorInTheJvmsOwnSectionIsNot() {
        PinFrame resolving = new PinFrame("com.acme.Prices", "make", 12);
        PinEvent loading = new PinEvent(
                Instant.now(),
                Duration.ofMillis(1),
                PinAttribution.CRITICAL_SECTION,
                PinAttribution.CONTENDED_ENTER,
                "weft-pmap-2",
                null,
                List.of(resolving, new PinFrame("com.acme.App", "handle", 40)),
                false);
        String why = why(loading).orElseThrow();
        assertTrue(why.contains("thread weft-pmap-2"), why);
        assertTrue(why.contains("class loading for the instruction at com.acme.Prices.make(line 12)"), why);
        PinEvent inOwnInit = new PinEvent(
                Instant.now(),
                Duration.ofMillis(1),
                PinAttribution.CRITICAL_SECTION,
                PinAttribution.CONTENDED_ENTER,
                null,
                null,
                List.of(resolving, new PinFrame("com.acme.Config", "<clinit>", 3)),
                false);
        assertEquals(Optional.empty(), why(inOwnInit), "the application's own initializer holds the thread too");
        PinEvent parkedInLoader = new PinEvent(
                Instant.now(),
                Duration.ofMillis(200),
                PinAttribution.CRITICAL_SECTION,
                "LockSupport.park",
                null,
                null,
                List.of(
                        new PinFrame("java.lang.Thread", "sleep", 1),
                        new PinFrame("com.acme.SlowLoader", "loadClass", 9)),
                false);
        assertEquals(Optional.empty(), why(parkedInLoader), "the application's loader sleeping pins on its own");
    }

    @Test
    void aJdkClassIsOneThePlatformLoaderSees() {
        assertTrue(PinAttribution.jdkClass("java.lang.Thread"));
        assertTrue(PinAttribution.jdkClass("sun.nio.ch.Poller"));
        assertTrue(PinAttribution.jdkClass("sun.nio.ch.Poller$Pollers$$Lambda"), "a hidden class of a JDK class");
        assertTrue(
                PinAttribution.jdkClass("java.lang.invoke.LambdaForm$MH"), "generated, unnamed: java.* is the JDK's");
        assertTrue(PinAttribution.jdkClass("java.net.http.HttpClient"), "a platform-loader module");
        assertFalse(
                PinAttribution.jdkClass("javax.servlet.http.HttpServlet"), "javax.* on the class path is a library's");
        assertFalse(PinAttribution.jdkClass("com.sun.xml.bind.v2.ContextFactory"), "so is com.sun.*");
        assertFalse(PinAttribution.jdkClass("dev.weft.pin.PinCheck"));
    }

    @Test
    void aReportListsTheUncountedApartWithThreadAndWhy() {
        PinEvent subPoller = pin(
                "Waited for initialization of sun.nio.ch.Poller by another thread",
                "SubPoller-0",
                false,
                new PinFrame("sun.nio.ch.Poller", "subPollerLoop", 265));
        PinReport r = new PinAggregator(12, 10)
                .report(Instant.EPOCH, Instant.EPOCH.plusSeconds(1), Duration.ZERO, null)
                .withNotCounted(
                        List.of(new UncountedPin(subPoller, why(subPoller).orElseThrow())));
        assertEquals(0, r.pins());
        String text = r.toText();
        assertTrue(text.startsWith("no pins"), text);
        assertTrue(text.contains("1 pin not counted, the JDK's own and not the code's under test:"), text);
        assertTrue(text.contains("thread SubPoller-0 is the JDK's own"), text);
        assertTrue(text.contains("at sun.nio.ch.Poller.subPollerLoop(line 265)"), text);
        @SuppressWarnings("unchecked")
        var uncounted = (List<java.util.Map<String, Object>>) r.toMap().get("not_counted");
        assertEquals("SubPoller-0", uncounted.getFirst().get("thread"));
    }
}
