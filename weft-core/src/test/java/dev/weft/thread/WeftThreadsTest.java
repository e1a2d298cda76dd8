package dev.weft.thread;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WeftThreadsTest {

    @AfterEach
    void clearProperties() {
        System.clearProperty(ThreadPolicy.PROPERTY);
        System.clearProperty(WeftThreads.POOL_SIZE_PROPERTY);
    }

    @Test
    void virtualFactoryNamesThreadsPerFactory() {
        var factory = WeftThreads.factory("fetch", ThreadPolicy.VIRTUAL);
        Thread a = factory.newThread(() -> {});
        Thread b = factory.newThread(() -> {});
        assertTrue(a.isVirtual());
        assertEquals("weft-fetch-1", a.getName());
        assertEquals("weft-fetch-2", b.getName());
        assertEquals(
                "weft-fetch-1",
                WeftThreads.factory("fetch", ThreadPolicy.VIRTUAL)
                        .newThread(() -> {})
                        .getName());
    }

    @Test
    void platformFactoryMakesNamedDaemonThreads() {
        Thread t = WeftThreads.factory("io", ThreadPolicy.PLATFORM).newThread(() -> {});
        assertFalse(t.isVirtual());
        assertTrue(t.isDaemon());
        assertEquals("weft-io-1", t.getName());
    }

    @Test
    void defaultFactoryFollowsTheGlobalPolicy() {
        System.setProperty(ThreadPolicy.PROPERTY, "platform");
        assertFalse(WeftThreads.factory("x").newThread(() -> {}).isVirtual());
        System.setProperty(ThreadPolicy.PROPERTY, "virtual");
        assertTrue(WeftThreads.factory("x").newThread(() -> {}).isVirtual());
    }

    @Test
    void virtualExecutorRunsEveryTaskOnItsOwnVirtualThread() throws Exception {
        Set<String> names = ConcurrentHashMap.newKeySet();
        try (ExecutorService ex = WeftThreads.executor("vt", ThreadPolicy.VIRTUAL)) {
            List<Future<Boolean>> fs = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                fs.add(ex.submit(() -> {
                    names.add(Thread.currentThread().getName());
                    return Thread.currentThread().isVirtual();
                }));
            }
            for (var f : fs) {
                assertTrue(f.get());
            }
        }
        assertEquals(50, names.size());
        assertTrue(names.stream().allMatch(n -> n.startsWith("weft-vt-")), names.toString());
    }

    /** The platform policy never exceeds its bound, and nothing submitted is dropped. */
    @Test
    void platformExecutorIsBoundedAndLosesNothing() throws Exception {
        System.setProperty(WeftThreads.POOL_SIZE_PROPERTY, "3");
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        Set<String> names = ConcurrentHashMap.newKeySet();
        ExecutorService ex = WeftThreads.executor("bounded", ThreadPolicy.PLATFORM);
        for (int i = 0; i < 40; i++) {
            ex.execute(() -> {
                int now = running.incrementAndGet();
                maxRunning.accumulateAndGet(now, Math::max);
                names.add(Thread.currentThread().getName());
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                running.decrementAndGet();
                done.incrementAndGet();
            });
        }
        ex.shutdown();
        assertTrue(ex.awaitTermination(30, TimeUnit.SECONDS));
        assertEquals(40, done.get());
        assertTrue(maxRunning.get() <= 3, "ran " + maxRunning.get() + " at once");
        assertTrue(names.size() <= 3, names.toString());
    }

    @Test
    void poolSizeDefaultsToTheMachineAndHonoursTheProperty() {
        int cores = Runtime.getRuntime().availableProcessors();
        assertEquals(Math.max(8, 4 * cores), WeftThreads.platformPoolSize());
        System.setProperty(WeftThreads.POOL_SIZE_PROPERTY, " 12 ");
        assertEquals(12, WeftThreads.platformPoolSize());
    }

    @Test
    void badPoolSizeNamesThePropertyAndTheFix() {
        for (String bad : List.of("0", "-3", "many")) {
            System.setProperty(WeftThreads.POOL_SIZE_PROPERTY, bad);
            var e = assertThrows(IllegalArgumentException.class, WeftThreads::platformPoolSize);
            assertTrue(e.getMessage().contains("weft.platform.threads=" + bad), e.getMessage());
            assertTrue(e.getMessage().contains("positive"), e.getMessage());
        }
    }

    @Test
    void badNamesAreRejectedWithAnExample() {
        for (String bad : List.of("", "  ", "two words")) {
            var e = assertThrows(IllegalArgumentException.class, () -> WeftThreads.factory(bad, ThreadPolicy.VIRTUAL));
            assertTrue(e.getMessage().contains("e.g. \"fetch\""), e.getMessage());
        }
        assertThrows(NullPointerException.class, () -> WeftThreads.executor(null, ThreadPolicy.VIRTUAL));
    }

    @Test
    void closingAVirtualExecutorWaitsForItsTasks() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        AtomicInteger finished = new AtomicInteger();
        ExecutorService ex = WeftThreads.executor("wait", ThreadPolicy.VIRTUAL);
        ex.execute(() -> {
            started.countDown();
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            finished.incrementAndGet();
        });
        started.await();
        ex.close();
        assertEquals(1, finished.get());
    }
}
