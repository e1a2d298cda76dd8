package dev.weft.pin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class DumpStacksTest {

    /** Threads as JDK 21.0.8's HotSpotDiagnosticMXBean.dumpThreads writes them (JSON), trimmed. */
    static final String DUMP = """
            {"threadDump": {"threadContainers": [
              {"container": "<root>", "threads": [
                {"tid": "1", "name": "main", "stack": [
                  "java.base\\/java.lang.Thread.sleep(Unknown Source)",
                  "Dump.main(Dump.java:14)"]}]},
              {"container": "java.util.concurrent.ThreadPerTaskExecutor@25bbe1b6", "threads": [
                {"tid": "18", "name": "", "stack": [
                  "Dump2.lambda$main$0(Dump2.java:9)",
                  "java.base\\/java.util.concurrent.FutureTask.run(Unknown Source)",
                  "java.base\\/java.lang.VirtualThread.run(Unknown Source)"]},
                {"tid": "20", "name": "", "stack": [
                  "java.base\\/java.lang.VirtualThread.parkNanos(Unknown Source)",
                  "java.base\\/java.lang.VirtualThread.sleepNanos(Unknown Source)",
                  "java.base\\/java.lang.Thread.sleep(Unknown Source)",
                  "java.base\\/java.lang.VirtualThread.run(Unknown Source)"]},
                {"tid": "22", "name": "a \\"quoted\\" name", "stack": [
                  "java.base\\/java.lang.Object.wait0(Native Method)",
                  "java.base\\/java.lang.Object.wait(Unknown Source)",
                  "app\\/dev.weft.lab.Pools$SimpleConnectionPool.checkout(Pools.java:135)",
                  "java.base\\/java.lang.VirtualThread.run(Unknown Source)"]},
                {"tid": "23", "name": "", "stack": [
                  ]}]}]}}
            """;

    @Test
    void keepsTheVirtualThreadsOnACarrier() {
        List<List<PinFrame>> mounted = DumpStacks.mounted(DUMP);
        assertEquals(2, mounted.size(), mounted.toString());
        assertEquals(new PinFrame("Dump2", "lambda$main$0", 9), mounted.get(0).get(0));
        assertEquals(new PinFrame("java.lang.Object", "wait0", -1), mounted.get(1).get(0));
        assertEquals(new PinFrame("dev.weft.lab.Pools$SimpleConnectionPool", "checkout", 135), mounted.get(1).get(2));
    }

    @Test
    void tellsWhereAStackStands() {
        assertFalse(DumpStacks.onCarrier(List.of()), "queued or not started");
        assertFalse(DumpStacks.onCarrier(List.of("java.base/java.lang.Thread.run(Unknown Source)")), "a platform thread");
        assertFalse(DumpStacks.onCarrier(List.of("java.base/java.lang.VirtualThread.park(Unknown Source)",
                "java.base/java.lang.VirtualThread.run(Unknown Source)")), "parked: unmounted");
        assertTrue(DumpStacks.onCarrier(List.of("java.base/jdk.internal.misc.Unsafe.park(Native Method)",
                "java.base/java.lang.VirtualThread.parkOnCarrierThread(Unknown Source)",
                "java.base/java.lang.VirtualThread.run(Unknown Source)")), "parked while pinned: holds its carrier");
    }

    @Test
    void readsFramesAsStackTraceElementWritesThem() {
        assertEquals(new PinFrame("a.B$C", "m", 12), DumpStacks.frame("loader/mod@1.0/a.B$C.m(B.java:12)"));
        assertEquals(new PinFrame("a.B", "m", -1), DumpStacks.frame("a.B.m(Unknown Source)"));
        assertEquals(List.of(List.of("x/y", "q\"z")), DumpStacks.stacks("{\"stack\": [\"x\\/y\", \"q\\\"z\"]}"));
    }
}
