package dev.weft.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class SchedulerSnapshotTest {

    private static final boolean JDK_24_PLUS = Runtime.version().feature() >= 24;

    @Test
    void schedulerFiguresAreAvailableExactlyFromJdk24() {
        SchedulerSnapshot s = SchedulerSnapshot.take();
        assertEquals(JDK_24_PLUS, s.schedulerAvailable());
        if (JDK_24_PLUS) {
            assertNull(s.unavailableReason());
            assertTrue(s.parallelism() >= 1);
            assertTrue(s.mountedVirtualThreads() >= 0);
        } else {
            assertTrue(s.unavailableReason().contains("JDK 24"), s.unavailableReason());
            assertEquals(-1, s.parallelism());
            assertNull(s.toMap().get("parallelism"));
        }
        assertTrue(s.livePlatformThreads() >= 1);
        assertTrue(s.peakPlatformThreads() >= s.livePlatformThreads());
    }

    @Test
    void seesAVirtualThreadThatIsRunning() throws Exception {
        if (!JDK_24_PLUS) {
            return; // nothing to see: covered by the test above
        }
        AtomicBoolean stop = new AtomicBoolean();
        Thread spinner = startSpinner(stop);
        try {
            assertTrue(SchedulerSnapshot.take().mountedVirtualThreads() >= 1);
        } finally {
            stop.set(true);
            spinner.join();
        }
    }

    /** A virtual thread that stays mounted, spinning, until {@code stop}; returns once it runs. */
    private static Thread startSpinner(AtomicBoolean stop) throws InterruptedException {
        CountDownLatch running = new CountDownLatch(1);
        Thread spinner = Thread.ofVirtual().start(() -> {
            running.countDown();
            while (!stop.get()) {
                Thread.onSpinWait();
            }
        });
        running.await();
        return spinner;
    }

    @Test
    void peakCountsPlatformThreadsSinceTheReset() throws Exception {
        SchedulerSnapshot.resetPeakPlatformThreads();
        int before = SchedulerSnapshot.take().livePlatformThreads();
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        release.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertTrue(SchedulerSnapshot.take().peakPlatformThreads() >= before + 5);
    }

    @Test
    void mapHasStableKeys() {
        var keys = List.copyOf(SchedulerSnapshot.take().toMap().keySet());
        assertEquals(
                List.of(
                        "at",
                        "scheduler_available",
                        "unavailable_reason",
                        "parallelism",
                        "pool_size",
                        "mounted_virtual_threads",
                        "queued_virtual_threads",
                        "live_platform_threads",
                        "peak_platform_threads",
                        "started_platform_threads",
                        "carrier_threads"),
                keys);
    }

    @Test
    void countsTheCarriersOnEveryJdk() throws Exception {
        int[] seen = new int[1];
        Thread t = Thread.ofVirtual()
                .start(() -> seen[0] = SchedulerSnapshot.take().carrierThreads());
        t.join();
        // the virtual thread that took it was mounted on one, so at least one carrier existed
        assertTrue(seen[0] >= 1, "carriers counted from a virtual thread: " + seen[0]);
        assertTrue(SchedulerSnapshot.carrierThreadsNow() >= 1, "the carrier outlives its thread (30 s keep-alive)");
        assertEquals(
                -1,
                new SchedulerSnapshot(java.time.Instant.now(), false, "remote", -1, -1, -1, -1, 1, 1, 1)
                        .carrierThreads(),
                "the old constructor: not counted");
    }

    @Test
    void samplerRecordsUntilStoppedAndEndsItsThread() throws Exception {
        SchedulerSampler sampler = SchedulerSampler.start(Duration.ofMillis(5));
        CountDownLatch started = new CountDownLatch(3);
        CountDownLatch release = new CountDownLatch(1);
        Thread[] threads = new Thread[3];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = Thread.ofPlatform().start(() -> {
                started.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        started.await();
        int liveWithWorkers = SchedulerSnapshot.take().livePlatformThreads(); // the 3 workers and the sampler included
        // start() took one snapshot and stop() takes one; anything more was taken by the sampling thread.
        int before = sampler.samples().samples().size();
        while (sampler.samples().samples().size() < before + 2) { // the hang guard is the test's timeout
            Thread.sleep(1);
        }
        release.countDown();
        for (Thread t : threads) {
            t.join();
        }
        SchedulerSamples seen = sampler.stop();
        assertTrue(
                seen.samples().size() >= before + 3,
                "the sampling thread sampled: " + seen.samples().size());
        assertTrue(
                seen.platformThreadsStarted() >= 4,
                "3 workers and the sampler started after the first sample: " + seen.platformThreadsStarted());
        assertTrue(
                seen.peakPlatformThreads() >= liveWithWorkers,
                "the peak covers the moment the workers were alive: " + seen.peakPlatformThreads() + " < "
                        + liveWithWorkers);
        assertEquals(seen, sampler.stop(), "stop is idempotent");
        assertFalse(
                Thread.getAllStackTraces().keySet().stream()
                        .anyMatch(t -> t.getName().equals("weft-scheduler-sampler")),
                "sampler thread ended");
    }

    @Test
    void aBoundedSamplerKeepsTheNewestAndCountsTheRest() throws Exception {
        SchedulerSampler sampler = SchedulerSampler.start(Duration.ofMillis(1), 3);
        SchedulerSamples live = sampler.samples();
        while (live.dropped() == 0) { // the hang guard is the test's timeout
            Thread.sleep(5);
            live = sampler.samples();
        }
        assertTrue(live.samples().size() <= 3);
        SchedulerSamples now = sampler.sampleNow();
        assertEquals(3, now.samples().size());
        assertTrue(now.to().compareTo(live.to()) >= 0, "the newest sample is the one just taken");
        SchedulerSamples last = sampler.stop();
        assertEquals(3, last.samples().size());
        assertThrows(IllegalStateException.class, sampler::sampleNow);
        assertTrue(last.dropped() >= live.dropped());
        assertFalse(last.from().isAfter(last.to()));
        assertEquals(last.samples().getLast().at(), last.to());
    }

    @Test
    void readsAnotherJvmsSchedulerOverJmxTheSameWay() throws Exception {
        // The platform MBean server is the JMX path ./weft pins uses for a remote JVM.
        SchedulerSnapshot remote =
                SchedulerSnapshot.take(java.lang.management.ManagementFactory.getPlatformMBeanServer());
        SchedulerSnapshot local = SchedulerSnapshot.take();
        assertEquals(local.schedulerAvailable(), remote.schedulerAvailable());
        assertEquals(local.parallelism(), remote.parallelism());
        assertTrue(remote.livePlatformThreads() >= 1);
    }

    @Test
    void aFailingSourceEndsSamplingAndKeepsWhatWasTaken() throws Exception {
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        SchedulerSampler sampler = SchedulerSampler.start(Duration.ofMillis(1), 100, () -> {
            if (calls.incrementAndGet() > 3) {
                throw new IllegalStateException("the JVM went away");
            }
            return SchedulerSnapshot.take();
        });
        while (sampler.failure().isEmpty()) {
            Thread.sleep(5);
        }
        SchedulerSamples seen = sampler.stop();
        assertEquals(3, seen.samples().size());
        assertEquals("the JVM went away", sampler.failure().orElseThrow().getMessage());
    }

    @Test
    void healthFiguresDescribeTheSamples() throws Exception {
        SchedulerSampler sampler = SchedulerSampler.start(Duration.ofMillis(2));
        AtomicBoolean stop = new AtomicBoolean();
        Thread spinner = startSpinner(stop);
        SchedulerSamples during = sampler.samples();
        while (during.samples().size() < 3) {
            Thread.sleep(2);
            during = sampler.samples();
        }
        stop.set(true);
        spinner.join();
        SchedulerSamples s = sampler.stop();
        var keys = List.copyOf(s.toMap().keySet());
        assertEquals(
                List.of(
                        "samples",
                        "dropped",
                        "from",
                        "to",
                        "scheduler_available",
                        "parallelism",
                        "max_pool_size",
                        "max_compensating_carriers",
                        "max_mounted_virtual_threads",
                        "mean_mounted_virtual_threads",
                        "max_queued_virtual_threads",
                        "mean_queued_virtual_threads",
                        "queued_fraction",
                        "peak_platform_threads",
                        "platform_threads_started",
                        "max_carrier_threads"),
                keys);
        var series = s.series();
        assertEquals(
                List.of(
                        "at",
                        "parallelism",
                        "pool_size",
                        "mounted_virtual_threads",
                        "queued_virtual_threads",
                        "live_platform_threads"),
                List.copyOf(series.keySet()));
        series.values().forEach(column -> assertEquals(s.samples().size(), column.size()));
        if (JDK_24_PLUS) {
            assertTrue(s.maxMountedVirtualThreads() >= 1, "the spinner was mounted");
            assertTrue(s.meanMountedVirtualThreads() > 0);
            assertTrue(s.queuedFraction() >= 0 && s.queuedFraction() <= 1);
            assertTrue(s.maxCompensatingCarriers() >= 0);
            assertTrue(s.summary().startsWith("parallelism " + s.parallelism() + ", pool max "), s.summary());
        } else {
            assertTrue(Double.isNaN(s.meanMountedVirtualThreads()));
            assertEquals(-1, s.maxCompensatingCarriers());
            assertTrue(s.summary().contains("JDK 24"), s.summary());
        }
    }

    @Test
    void samplerRejectsANonPositiveInterval() {
        var e = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> SchedulerSampler.start(Duration.ZERO));
        assertTrue(e.getMessage().contains("positive"), e.getMessage());
        var c = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> SchedulerSampler.start(Duration.ofMillis(1), 0));
        assertTrue(c.getMessage().contains("capacity"), c.getMessage());
    }
}
