package dev.weft.pin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ThreadDumpTest {

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
        List<List<PinFrame>> mounted = ThreadDump.parse(DUMP).onCarrier();
        assertEquals(2, mounted.size(), mounted.toString());
        assertEquals(new PinFrame("Dump2", "lambda$main$0", 9), mounted.get(0).get(0));
        assertEquals(
                new PinFrame("java.lang.Object", "wait0", -1), mounted.get(1).get(0));
        assertEquals(
                new PinFrame("dev.weft.lab.Pools$SimpleConnectionPool", "checkout", 135),
                mounted.get(1).get(2));
    }

    @Test
    void tellsWhereAStackStands() {
        assertFalse(ThreadDump.onCarrier(List.of()), "queued or not started");
        assertFalse(
                ThreadDump.onCarrier(List.of("java.base/java.lang.Thread.run(Unknown Source)")), "a platform thread");
        assertFalse(
                ThreadDump.onCarrier(List.of(
                        "java.base/java.lang.VirtualThread.park(Unknown Source)",
                        "java.base/java.lang.VirtualThread.run(Unknown Source)")),
                "parked: unmounted");
        assertTrue(
                ThreadDump.onCarrier(List.of(
                        "java.base/jdk.internal.misc.Unsafe.park(Native Method)",
                        "java.base/java.lang.VirtualThread.parkOnCarrierThread(Unknown Source)",
                        "java.base/java.lang.VirtualThread.run(Unknown Source)")),
                "parked while pinned: holds its carrier");
    }

    @Test
    void readsFramesAsStackTraceElementWritesThem() {
        assertEquals(new PinFrame("a.B$C", "m", 12), ThreadDump.frame("loader/mod@1.0/a.B$C.m(B.java:12)"));
        assertEquals(new PinFrame("a.B", "m", -1), ThreadDump.frame("a.B.m(Unknown Source)"));
        assertEquals(List.of(List.of("x/y", "q\"z")), ThreadDump.stacks("{\"stack\": [\"x\\/y\", \"q\\\"z\"]}"));
    }

    @Test
    void groupsTheStartedVirtualThreadsBySiteMostFirst() {
        ThreadDump dump = ThreadDump.parse(DUMP);
        assertEquals(5, dump.stacks().size(), "every thread, platform and not started included");
        assertEquals(3, dump.startedVirtualThreads().size());
        List<ThreadDump.Site> deep = dump.sites(1);
        assertEquals(
                List.of(
                        new ThreadDump.Site(List.of("Dump2.lambda$main$0(Dump2.java:9)"), 1),
                        new ThreadDump.Site(List.of("java.base/java.lang.VirtualThread.parkNanos(Unknown Source)"), 1),
                        new ThreadDump.Site(List.of("java.base/java.lang.Object.wait0(Native Method)"), 1)),
                deep,
                "ties keep the dump's order");
        String twice = DUMP.replace(
                "{\"tid\": \"23\"",
                "{\"tid\": \"24\", \"name\": \"\", \"stack\": ["
                        + "\"java.base\\/java.lang.Object.wait0(Native Method)\", "
                        + "\"java.base\\/java.lang.VirtualThread.run(Unknown Source)\"]}, {\"tid\": \"23\"");
        ThreadDump.Site top = ThreadDump.parse(twice).sites(1).getFirst();
        assertEquals(2, top.threads(), "two threads in Object.wait0 come first: " + top);
        assertEquals(List.of("java.base/java.lang.Object.wait0(Native Method)"), top.frames());
        assertThrows(IllegalArgumentException.class, () -> dump.sites(0));
    }

    @Test
    void dumpsThisJvmWithItsVirtualThreads(@TempDir Path dir) throws Exception {
        CountDownLatch parked = new CountDownLatch(1);
        Thread parker = Thread.ofVirtual().start(() -> {
            parked.countDown();
            while (!Thread.currentThread().isInterrupted()) {
                LockSupport.park();
            }
        });
        try {
            parked.await();
            Path file = dir.resolve("threads.json");
            Files.writeString(file, "an old dump");
            ThreadDump dump = ThreadDump.write(file);
            assertTrue(Files.readString(file).contains("threadDump"), "the file holds the new dump");
            assertTrue(
                    dump.startedVirtualThreads().stream()
                            .anyMatch(s -> s.stream().anyMatch(f -> f.contains("ThreadDumpTest"))),
                    "the parked virtual thread is listed: " + dump.startedVirtualThreads());
        } finally {
            parker.interrupt();
            parker.join();
        }
    }
}
