package dev.weft.scheduler;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.PlatformManagedObject;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;

/**
 * The state of the virtual-thread scheduler and of the JVM's platform threads at one instant.
 *
 * <p>Scheduler figures come from {@code jdk.management.VirtualThreadSchedulerMXBean}, which
 * exists on JDK 24 and later. On JDK 21-23 {@link #schedulerAvailable()} is false,
 * {@link #unavailableReason()} says why, and every scheduler figure is {@code -1} (the JMX
 * convention for "not supported"). Platform-thread figures come from {@link ThreadMXBean} and are
 * always available; they do not count virtual threads.
 *
 * <pre>{@code
 * SchedulerSnapshot s = SchedulerSnapshot.take();
 * System.out.println(s.mountedVirtualThreads() + " mounted on " + s.poolSize() + " carriers");
 * }</pre>
 *
 * <p>{@link #take(MBeanServerConnection)} reads the same figures from another JVM over JMX (as
 * {@code ./weft pins} does); the scheduler figures then depend on <em>that</em> JVM's version.
 *
 * @param at                     when the snapshot was taken
 * @param schedulerAvailable     whether the scheduler figures below are real
 * @param unavailableReason      why they are not, or {@code null} when they are
 * @param parallelism            the scheduler's target number of carrier threads, or -1
 * @param poolSize               carrier threads that exist now (may exceed parallelism while
 *                               pinned threads are compensated), or -1
 * @param mountedVirtualThreads  virtual threads running on a carrier now, or -1
 * @param queuedVirtualThreads   virtual threads ready to run and waiting for a carrier (an
 *                               estimate, as the JDK documents), or -1
 * @param livePlatformThreads    platform threads alive now (carriers included)
 * @param peakPlatformThreads    the most platform threads alive at once since the JVM started or
 *                               since {@link #resetPeakPlatformThreads()}
 * @param startedPlatformThreads platform threads started since the JVM started
 * @param carrierThreads         the scheduler's carrier threads alive now, counted directly (the
 *                               threads of class {@code jdk.internal.misc.CarrierThread}), so
 *                               known on JDK 21-23 too, where {@code poolSize} is not; -1 when not
 *                               counted (a snapshot of another JVM)
 */
public record SchedulerSnapshot(
        Instant at,
        boolean schedulerAvailable,
        String unavailableReason,
        int parallelism,
        int poolSize,
        int mountedVirtualThreads,
        long queuedVirtualThreads,
        int livePlatformThreads,
        int peakPlatformThreads,
        long startedPlatformThreads,
        int carrierThreads) {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final SchedulerBean SCHEDULER = SchedulerBean.find();
    /** The {@code ObjectName} of {@code jdk.management.VirtualThreadSchedulerMXBean}. */
    private static final String SCHEDULER_NAME = "jdk.management:type=VirtualThreadScheduler";
    /** The class of the scheduler's carriers on JDK 21-25 (a ForkJoinWorkerThread). */
    private static final String CARRIER_CLASS = "jdk.internal.misc.CarrierThread";

    /**
     * A snapshot without a direct carrier count ({@code carrierThreads} -1), as one of another JVM
     * is; the form before {@code carrierThreads} existed.
     */
    public SchedulerSnapshot(
            Instant at,
            boolean schedulerAvailable,
            String unavailableReason,
            int parallelism,
            int poolSize,
            int mountedVirtualThreads,
            long queuedVirtualThreads,
            int livePlatformThreads,
            int peakPlatformThreads,
            long startedPlatformThreads) {
        this(
                at,
                schedulerAvailable,
                unavailableReason,
                parallelism,
                poolSize,
                mountedVirtualThreads,
                queuedVirtualThreads,
                livePlatformThreads,
                peakPlatformThreads,
                startedPlatformThreads,
                -1);
    }

    /** Takes a snapshot now. Cheap enough to call every few milliseconds. */
    public static SchedulerSnapshot take() {
        Instant now = Instant.now();
        int live = THREADS.getThreadCount();
        int peak = THREADS.getPeakThreadCount();
        long started = THREADS.getTotalStartedThreadCount();
        int carriers = carrierThreadsNow();
        if (SCHEDULER.bean() == null) {
            return new SchedulerSnapshot(now, false, SCHEDULER.reason(), -1, -1, -1, -1, live, peak, started, carriers);
        }
        return new SchedulerSnapshot(
                now,
                true,
                null,
                SCHEDULER.intValue(SCHEDULER.parallelism()),
                SCHEDULER.intValue(SCHEDULER.poolSize()),
                SCHEDULER.intValue(SCHEDULER.mounted()),
                SCHEDULER.longValue(SCHEDULER.queued()),
                live,
                peak,
                started,
                carriers);
    }

    /**
     * The scheduler's carrier threads alive in this JVM now, on any JDK 21+: the threads of class
     * {@code jdk.internal.misc.CarrierThread}, enumerated from the root thread group (no stacks
     * are taken). On JDK 21-23, where the scheduler's MXBean is missing, this is how to see that
     * the JDK added carriers to compensate for pinned ones ({@code Object.wait} on JDK 21 leaves
     * no JFR event). Costs one pass over the platform threads.
     */
    public static int carrierThreadsNow() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] all = new Thread[root.activeCount() + 64]; // threads started meanwhile fit, or are missed
        int n = root.enumerate(all, true);
        int carriers = 0;
        for (int i = 0; i < n; i++) {
            if (all[i].getClass().getName().equals(CARRIER_CLASS)) {
                carriers++;
            }
        }
        return carriers;
    }

    /**
     * Takes a snapshot of the JVM behind {@code jvm} (another process, over JMX), reading the same
     * MXBeans as {@link #take()}. The scheduler figures are unavailable when that JVM is older than
     * JDK 24 or its {@code jdk.management} module is missing.
     *
     * @throws IOException if the connection fails
     */
    public static SchedulerSnapshot take(MBeanServerConnection jvm) throws IOException {
        Instant now = Instant.now();
        try {
            ObjectName threading = new ObjectName(ManagementFactory.THREAD_MXBEAN_NAME);
            int live = ((Number) jvm.getAttribute(threading, "ThreadCount")).intValue();
            int peak = ((Number) jvm.getAttribute(threading, "PeakThreadCount")).intValue();
            long started = ((Number) jvm.getAttribute(threading, "TotalStartedThreadCount")).longValue();
            ObjectName scheduler = new ObjectName(SCHEDULER_NAME);
            if (!jvm.isRegistered(scheduler)) {
                return new SchedulerSnapshot(
                        now,
                        false,
                        "not available: that JVM has no VirtualThreadSchedulerMXBean (it needs JDK 24 or later)",
                        -1,
                        -1,
                        -1,
                        -1,
                        live,
                        peak,
                        started);
            }
            return new SchedulerSnapshot(
                    now,
                    true,
                    null,
                    ((Number) jvm.getAttribute(scheduler, "Parallelism")).intValue(),
                    ((Number) jvm.getAttribute(scheduler, "PoolSize")).intValue(),
                    ((Number) jvm.getAttribute(scheduler, "MountedVirtualThreadCount")).intValue(),
                    ((Number) jvm.getAttribute(scheduler, "QueuedVirtualThreadCount")).longValue(),
                    live,
                    peak,
                    started);
        } catch (InstanceNotFoundException e) {
            throw new IOException(
                    "the JVM has no " + e.getMessage() + " MXBean: is it a Java VM with java.management?", e);
        } catch (JMException e) {
            throw new IOException("reading the scheduler's MXBeans failed: " + e, e);
        }
    }

    /**
     * Resets the peak platform-thread count to the number alive now, so that a following
     * {@link #take()} reports the peak of what ran in between.
     */
    public static void resetPeakPlatformThreads() {
        THREADS.resetPeakThreadCount();
    }

    /**
     * This snapshot as an ordered map with the keys {@code at, scheduler_available,
     * unavailable_reason, parallelism, pool_size, mounted_virtual_threads,
     * queued_virtual_threads, live_platform_threads, peak_platform_threads,
     * started_platform_threads, carrier_threads}; unavailable figures are {@code null}.
     */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("at", at.toString());
        m.put("scheduler_available", schedulerAvailable);
        m.put("unavailable_reason", unavailableReason);
        m.put("parallelism", orNull(parallelism));
        m.put("pool_size", orNull(poolSize));
        m.put("mounted_virtual_threads", orNull(mountedVirtualThreads));
        m.put("queued_virtual_threads", queuedVirtualThreads < 0 ? null : queuedVirtualThreads);
        m.put("live_platform_threads", livePlatformThreads);
        m.put("peak_platform_threads", peakPlatformThreads);
        m.put("started_platform_threads", startedPlatformThreads);
        m.put("carrier_threads", orNull(carrierThreads));
        return m;
    }

    private static Integer orNull(int v) {
        return v < 0 ? null : v;
    }

    /** Reflective access: weft compiles against JDK 21, where the bean's interface does not exist. */
    private record SchedulerBean(
            Object bean, String reason, Method parallelism, Method poolSize, Method mounted, Method queued) {

        static SchedulerBean find() {
            try {
                Class<?> type = Class.forName("jdk.management.VirtualThreadSchedulerMXBean");
                @SuppressWarnings("unchecked")
                Object bean = ManagementFactory.getPlatformMXBean((Class<? extends PlatformManagedObject>) type);
                return new SchedulerBean(
                        bean,
                        null,
                        type.getMethod("getParallelism"),
                        type.getMethod("getPoolSize"),
                        type.getMethod("getMountedVirtualThreadCount"),
                        type.getMethod("getQueuedVirtualThreadCount"));
            } catch (ClassNotFoundException e) {
                return unavailable("not available: VirtualThreadSchedulerMXBean needs JDK 24 or later; this is JDK "
                        + Runtime.version().feature());
            } catch (ReflectiveOperationException | RuntimeException e) {
                return unavailable("not available: VirtualThreadSchedulerMXBean could not be read (" + e + ")");
            }
        }

        static SchedulerBean unavailable(String reason) {
            return new SchedulerBean(null, reason, null, null, null, null);
        }

        int intValue(Method getter) {
            return (int) longValue(getter);
        }

        long longValue(Method getter) {
            try {
                return ((Number) getter.invoke(bean)).longValue();
            } catch (ReflectiveOperationException e) {
                return -1;
            }
        }
    }
}
