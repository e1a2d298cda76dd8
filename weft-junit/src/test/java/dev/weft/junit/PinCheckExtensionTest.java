package dev.weft.junit;

import static dev.weft.junit.PinAssertions.assertNoPins;
import static dev.weft.junit.PinAssertions.assertPins;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.weft.pin.PinProbe;
import dev.weft.pin.PinReport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.opentest4j.AssertionFailedError;

class PinCheckExtensionTest {

    private static final String PROBE = "dev.weft.pin.ProbeInit.<clinit>";

    static void pin() throws InterruptedException {
        PinProbe.pinVirtualThread(Duration.ofMillis(5));
    }

    static void parkWithoutPinning() throws InterruptedException {
        Object lock = new Object();
        Thread.ofVirtual()
                .start(() -> {
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                })
                .join();
        Thread.ofPlatform()
                .start(() -> {
                    synchronized (lock) {
                        Thread.onSpinWait();
                    }
                })
                .join();
    }

    /** Runs a fixture class with the Jupiter engine; returns each test's outcome by display name. */
    private static Map<String, TestExecutionResult> run(Class<?> fixture) {
        Map<String, TestExecutionResult> outcomes = new TreeMap<>();
        List<Event> finished = EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(fixture))
                .configurationParameter("junit.jupiter.conditions.deactivate", "org.junit.*DisabledCondition")
                .execute()
                .testEvents()
                .finished()
                .list();
        for (Event e : finished) {
            outcomes.put(e.getTestDescriptor().getDisplayName(), e.getRequiredPayload(TestExecutionResult.class));
        }
        return outcomes;
    }

    /** The outcome of the parameterized invocation whose display name starts with {@code prefix}. */
    private static TestExecutionResult invocation(Map<String, TestExecutionResult> outcomes, String prefix) {
        return outcomes.entrySet().stream()
                .filter(e -> e.getKey().startsWith(prefix))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no invocation " + prefix + "in " + outcomes.keySet()))
                .getValue();
    }

    private static String failureMessage(TestExecutionResult r) {
        assertEquals(TestExecutionResult.Status.FAILED, r.getStatus(), "expected a failure");
        return r.getThrowable().orElseThrow().getMessage();
    }

    // ---- fixtures: run only through EngineTestKit (Surefire skips nested classes) ----------

    static class MethodLevel {
        @Test
        @NoPins
        void pins() throws Exception {
            pin();
        }

        @Test
        @NoPins
        void parks() throws Exception {
            parkWithoutPinning();
        }

        @Test
        @ExpectPins(atLeast = 2)
        void pinsTwice() throws Exception {
            pin();
            pin();
        }

        @Test
        @ExpectPins
        void expectedToPinButDoesNot() {}

        @Test
        void unannotatedPinsFreely() throws Exception {
            pin();
        }
    }

    @NoPins
    static class ClassLevel {
        @Test
        void pins() throws Exception {
            pin();
        }

        @Test
        @ExpectPins
        void overridesTheClass() throws Exception {
            pin();
        }

        @ParameterizedTest
        @ValueSource(booleans = {true, false})
        void eachInvocation(boolean pinning) throws Exception {
            if (pinning) {
                pin();
            }
        }

        @Nested
        class Inner {
            @Test
            void pinsInANestedClass() throws Exception {
                pin();
            }
        }
    }

    static class ThreadChoice {
        @Test
        @NoPins
        void blocksInAClassInitializer() {
            PinProbe.pin(Duration.ofMillis(5)); // on the test's virtual thread: pins
        }

        @Test
        @NoPins(onVirtualThread = false)
        void blocksInAClassInitializerOnTheTestThread() {
            if (Thread.currentThread().isVirtual()) {
                throw new AssertionError("expected the test's own platform thread");
            }
            PinProbe.pin(Duration.ofMillis(5)); // a platform thread has no carrier to pin
        }

        @Test
        @ExpectPins
        void runsOnANamedVirtualThread() {
            if (!Thread.currentThread().isVirtual()
                    || !Thread.currentThread().getName().startsWith("weft-pin-check-")) {
                throw new AssertionError("expected a weft-pin-check virtual thread, not " + Thread.currentThread());
            }
            PinProbe.pin(Duration.ofMillis(5));
        }
    }

    static class OwnFailure {
        @Test
        @NoPins
        void failsAndPins() throws Exception {
            pin();
            throw new IllegalStateException("the test's own failure");
        }
    }

    static class Misconfigured {
        @Test
        @NoPins
        @ExpectPins
        void both() {}

        @Test
        @ExpectPins(atLeast = 0)
        void zero() {}
    }

    // ---- the tests -------------------------------------------------------------------------

    @Test
    void noPinsFailsATestThatPinnedWithTheStack() {
        Map<String, TestExecutionResult> r = run(MethodLevel.class);
        String message = failureMessage(r.get("pins()"));
        assertTrue(
                message.startsWith("expected no pinned virtual threads, but the test pinned once:\n1 pin at 1 site"),
                message);
        assertTrue(message.contains("at " + PROBE), message);
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, r.get("parks()").getStatus());
        assertEquals(
                TestExecutionResult.Status.SUCCESSFUL,
                r.get("unannotatedPinsFreely()").getStatus());
    }

    @Test
    void expectPinsPassesWhenEnoughPinsHappenedAndFailsOtherwise() {
        Map<String, TestExecutionResult> r = run(MethodLevel.class);
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, r.get("pinsTwice()").getStatus());
        String message = failureMessage(r.get("expectedToPinButDoesNot()"));
        assertTrue(
                message.startsWith("expected the test to pin a virtual thread at least once, but it pinned 0 times"),
                message);
        // JDK 21-23: the failure says that JFR cannot see Object.wait holding a carrier
        assertEquals(Runtime.version().feature() < 24, message.contains("Object.wait holds the carrier"), message);
    }

    @Test
    void onAClassItCoversEveryTestAndAMethodCanOverrideIt() {
        Map<String, TestExecutionResult> r = run(ClassLevel.class);
        assertTrue(failureMessage(r.get("pins()")).contains(PROBE));
        assertEquals(
                TestExecutionResult.Status.SUCCESSFUL,
                r.get("overridesTheClass()").getStatus());
        assertTrue(
                failureMessage(invocation(r, "[1] ")).contains("pinned once"),
                r.keySet().toString());
        assertEquals(
                TestExecutionResult.Status.SUCCESSFUL, invocation(r, "[2] ").getStatus());
        assertTrue(
                failureMessage(r.get("pinsInANestedClass()")).contains(PROBE), "enclosing class's annotation applies");
    }

    @Test
    void theTestRunsOnAVirtualThreadUnlessItAsksNotTo() {
        Map<String, TestExecutionResult> r = run(ThreadChoice.class);
        assertTrue(failureMessage(r.get("blocksInAClassInitializer()")).contains("pinned once"));
        assertEquals(
                TestExecutionResult.Status.SUCCESSFUL,
                r.get("blocksInAClassInitializerOnTheTestThread()").getStatus(),
                () -> r.get("blocksInAClassInitializerOnTheTestThread()")
                        .getThrowable()
                        .map(Throwable::toString)
                        .orElse(""));
        assertEquals(
                TestExecutionResult.Status.SUCCESSFUL,
                r.get("runsOnANamedVirtualThread()").getStatus(),
                () -> r.get("runsOnANamedVirtualThread()")
                        .getThrowable()
                        .map(Throwable::toString)
                        .orElse(""));
    }

    @Test
    void aTestsOwnFailureWinsAndThePinningFailureIsAttached() {
        TestExecutionResult r = run(OwnFailure.class).get("failsAndPins()");
        Throwable t = r.getThrowable().orElseThrow();
        assertInstanceOf(IllegalStateException.class, t);
        assertEquals(1, t.getSuppressed().length);
        assertTrue(t.getSuppressed()[0].getMessage().contains("pinned once"), t.getSuppressed()[0].getMessage());
    }

    @Test
    void misconfigurationIsNamedWithTheFix() {
        Map<String, TestExecutionResult> r = run(Misconfigured.class);
        assertTrue(failureMessage(r.get("both()")).contains("has both @NoPins and @ExpectPins"));
        assertTrue(failureMessage(r.get("zero()")).contains("use @NoPins to forbid pinning"));
    }

    @Test
    void assertionsForABlockOfCode() throws Throwable {
        PinReport none = assertNoPins(PinCheckExtensionTest::parkWithoutPinning);
        assertEquals(0, none.pins());
        PinReport some = assertPins(PinCheckExtensionTest::pin);
        assertEquals(1, some.pins());
        assertEquals(
                1, assertPins(() -> PinProbe.pin(Duration.ofMillis(5))).pins(), "the block runs on a virtual thread");
        AssertionFailedError e =
                assertThrows(AssertionFailedError.class, () -> assertNoPins(PinCheckExtensionTest::pin));
        assertTrue(e.getMessage().contains("but the code pinned once"), e.getMessage());
        assertThrows(AssertionFailedError.class, () -> assertPins(() -> {}));
        IllegalStateException own = assertThrows(
                IllegalStateException.class,
                () -> assertNoPins(() -> {
                    throw new IllegalStateException("mine");
                }));
        assertEquals("mine", own.getMessage());
    }
}
