package dev.weft.thread;

import java.util.Locale;

/**
 * Which kind of thread weft starts for the work it runs on a caller's behalf.
 *
 * <p>The policy is chosen per call (every weft API that starts threads takes one) or
 * globally with the system property {@value #PROPERTY}: {@code virtual}, {@code platform}
 * or {@code auto} (the default).
 *
 * <ul>
 *   <li>{@link #VIRTUAL}: one new virtual thread per task.
 *   <li>{@link #PLATFORM}: a <em>bounded</em>, named pool of platform threads sized for the
 *       machine (see {@link WeftThreads#platformPoolSize()}). Unlike core.async 1.8+, weft
 *       never creates an unbounded number of platform threads: excess tasks queue.
 *   <li>{@link #AUTO}: {@code VIRTUAL} when this JVM implements virtual threads with
 *       continuations, {@code PLATFORM} otherwise. A JVM without continuation support (for
 *       example one started with {@code -XX:-VMContinuations}, or a port that lacks them)
 *       backs every "virtual" thread with an OS thread, which would make one-thread-per-task
 *       an unbounded platform pool in disguise.
 * </ul>
 *
 * <pre>{@code
 * ExecutorService io = WeftThreads.executor("io", ThreadPolicy.configured());
 * }</pre>
 */
public enum ThreadPolicy {
    /** One new virtual thread per task. */
    VIRTUAL,
    /** A bounded, named pool of platform threads; tasks beyond its size wait in a queue. */
    PLATFORM,
    /** {@link #VIRTUAL} when the JVM has real (continuation-based) virtual threads, else {@link #PLATFORM}. */
    AUTO;

    /** The system property that sets the global policy: {@code virtual}, {@code platform} or {@code auto}. */
    public static final String PROPERTY = "weft.threads";

    private static final boolean CONTINUATIONS = detectContinuations();

    /**
     * The globally configured policy: the value of {@value #PROPERTY}, or {@link #AUTO} when unset.
     * The property is read on every call, so a change takes effect for threads started afterwards.
     *
     * @throws IllegalArgumentException if the property holds anything but the three names
     */
    public static ThreadPolicy configured() {
        String value = System.getProperty(PROPERTY);
        if (value == null || value.isBlank()) {
            return AUTO;
        }
        try {
            return parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "system property " + PROPERTY + "=" + value + " is not a thread policy;"
                            + " set it to virtual, platform or auto",
                    e);
        }
    }

    /**
     * The policy named {@code name}, ignoring case and surrounding blanks.
     *
     * @throws IllegalArgumentException naming the accepted values when {@code name} is none of them
     * @throws NullPointerException if {@code name} is null
     */
    public static ThreadPolicy parse(String name) {
        String n = name.strip().toLowerCase(Locale.ROOT);
        return switch (n) {
            case "virtual" -> VIRTUAL;
            case "platform" -> PLATFORM;
            case "auto" -> AUTO;
            default ->
                throw new IllegalArgumentException(
                        "unknown thread policy \"" + name + "\"; use virtual, platform or auto");
        };
    }

    /** This policy with {@link #AUTO} replaced by the concrete policy it stands for on this JVM. */
    public ThreadPolicy resolve() {
        if (this != AUTO) {
            return this;
        }
        return CONTINUATIONS ? VIRTUAL : PLATFORM;
    }

    /** True when this policy, once resolved, starts virtual threads. */
    public boolean isVirtual() {
        return resolve() == VIRTUAL;
    }

    /**
     * True when virtual threads on this JVM are scheduled on carrier threads (the normal case);
     * false when each one is backed by its own OS thread.
     */
    public static boolean continuationsSupported() {
        return CONTINUATIONS;
    }

    private static boolean detectContinuations() {
        // Without continuation support the JDK substitutes ThreadBuilders$BoundVirtualThread,
        // a virtual thread with an OS thread of its own. There is no public API that says so.
        Thread probe = Thread.ofVirtual().unstarted(() -> {});
        return !probe.getClass().getName().endsWith("BoundVirtualThread");
    }

    /** The lower-case name used by {@value #PROPERTY} and the Clojure API. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
