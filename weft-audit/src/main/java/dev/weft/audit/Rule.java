package dev.weft.audit;

/**
 * What the audit looks for. Each rule has a stable id (used in JSON and as the SARIF rule id), a
 * one-line description and the fix.
 */
public enum Rule {
    /** A class initializer blocks, directly or through calls into the audited code. */
    BLOCKING_IN_CLASS_INIT(
            "blocking-in-class-init",
            "A class initializer (<clinit>) blocks.",
            "A virtual thread that runs a blocking class initializer pins its carrier on every JDK so far, and every"
                    + " thread that needs the class waits for it. Move the blocking work out of static initialization"
                    + " (a lazy holder initialized on first use, or an explicit start method)."),
    /** A {@code synchronized} method or block calls a blocking operation. */
    SYNCHRONIZED_BLOCKING(
            "synchronized-blocking",
            "A synchronized method or block calls a blocking operation.",
            "On JDK 21-23 a virtual thread that blocks while holding a monitor pins its carrier, and so do the threads"
                    + " waiting to enter it (JDK 24+ removed this, JEP 491). Use a java.util.concurrent.locks.ReentrantLock,"
                    + " or move the blocking call out of the critical section."),
    /** {@code Object.wait} is called. */
    OBJECT_WAIT(
            "object-wait",
            "Object.wait is called.",
            "On JDK 21-23 Object.wait pins the virtual thread's carrier for the whole wait (JDK 24+ unmounts, JEP 491)."
                    + " Use a java.util.concurrent.locks.Condition, or a higher-level tool: CountDownLatch, a BlockingQueue,"
                    + " CompletableFuture."),
    /** A method is declared {@code native} (JNI). */
    NATIVE_METHOD(
            "native-method",
            "A native (JNI) method is declared.",
            "A virtual thread cannot unmount while a native frame is on its stack: if the native code blocks, or calls"
                    + " back into Java that blocks, the carrier is pinned. Keep blocking native calls off virtual threads,"
                    + " or run them on a platform-thread executor."),
    /** An FFM upcall stub is created: Java code will run under a native frame. */
    NATIVE_UPCALL(
            "native-upcall",
            "An FFM upcall stub is created (Linker.upcallStub).",
            "Java code called back from native code runs under a native frame: if it blocks, the virtual thread pins its"
                    + " carrier. Keep upcalls short and non-blocking, or hand the work to another thread."),
    /** {@code Thread.yield} is called inside a loop. */
    THREAD_YIELD_SPIN(
            "thread-yield-spin",
            "Thread.yield is called in a loop (a spin wait).",
            "A spinning virtual thread occupies a carrier while it waits, and Thread.yield gives no guarantee the awaited"
                    + " thread runs. Block instead: a lock, a Condition, a latch or LockSupport.park."),
    /** A field holds a {@code ThreadLocal}. */
    THREAD_LOCAL_FIELD(
            "thread-local-field",
            "A field holds a ThreadLocal.",
            "Every thread that touches a ThreadLocal gets its own value: with a million virtual threads, a million values,"
                    + " and caches meant to be reused per thread are rebuilt per task. Pass the value explicitly, use a"
                    + " ScopedValue (JDK 25), or a pool.");

    private final String id;
    private final String description;
    private final String help;

    Rule(String id, String description, String help) {
        this.id = id;
        this.description = description;
        this.help = help;
    }

    /** The stable id, e.g. {@code blocking-in-class-init}. */
    public String id() {
        return id;
    }

    /** One line: what the rule finds. */
    public String description() {
        return description;
    }

    /** Why it matters and how to fix it. */
    public String help() {
        return help;
    }

    /**
     * The severity of this rule's findings for code that will run on JDK {@code targetJdk}:
     * monitors pin only before JDK 24, so their rules drop to {@link Severity#INFO} from there.
     */
    public Severity severity(int targetJdk) {
        return switch (this) {
            case BLOCKING_IN_CLASS_INIT -> Severity.ERROR;
            case SYNCHRONIZED_BLOCKING, OBJECT_WAIT -> targetJdk >= 24 ? Severity.INFO : Severity.ERROR;
            case NATIVE_METHOD, NATIVE_UPCALL, THREAD_YIELD_SPIN -> Severity.WARNING;
            case THREAD_LOCAL_FIELD -> Severity.INFO;
        };
    }
}
