package dev.weft.thread;

import dev.weft.context.Context;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Named thread factories and executors that follow a {@link ThreadPolicy}.
 *
 * <p>Every thread weft starts is named {@code weft-<name>-<n>}, with {@code n} counting from 1
 * per factory, so that thread dumps, JFR recordings and the lab's thread accounting show whose
 * thread it is.
 *
 * <p>Executors convey context: each task runs with the {@link dev.weft.context.ContextKey}s
 * bound where it was submitted ({@link Context#wrap(ExecutorService)}). Factories do not, because
 * a thread is created for whoever happens to need one; convey through the executor, or wrap the
 * task with {@link Context#wrap(Runnable)}.
 *
 * <p>With a virtual policy an executor starts one virtual thread per task and never queues;
 * with a platform policy it runs tasks on at most {@link #platformPoolSize()} daemon threads
 * and queues the rest. Both are ordinary {@link ExecutorService}s: {@code close()} waits for
 * submitted tasks to finish.
 *
 * <pre>{@code
 * try (ExecutorService io = WeftThreads.executor("fetch")) {
 *     Future<String> page = io.submit(() -> http.send(request, ofString()).body());
 *     ...
 * }
 * }</pre>
 *
 * <p>Memory consistency effects: as for {@link ExecutorService}, actions in a thread before
 * submitting a task happen-before the task runs.
 */
public final class WeftThreads {

    /**
     * System property overriding {@link #platformPoolSize()}: a positive number of threads.
     */
    public static final String POOL_SIZE_PROPERTY = "weft.platform.threads";

    private WeftThreads() {}

    /** A factory following the globally configured policy ({@link ThreadPolicy#configured()}). */
    public static ThreadFactory factory(String name) {
        return factory(name, ThreadPolicy.configured());
    }

    /**
     * A factory for threads named {@code weft-<name>-<n>}. Virtual threads for a virtual policy;
     * daemon platform threads otherwise. The factory itself does not bound anything: bounding is
     * the executor's job.
     *
     * @throws IllegalArgumentException if {@code name} is blank or contains whitespace
     */
    public static ThreadFactory factory(String name, ThreadPolicy policy) {
        String prefix = prefix(name);
        Objects.requireNonNull(policy, "policy");
        return counted(
                policy.isVirtual()
                        ? Thread.ofVirtual().factory()
                        : Thread.ofPlatform().daemon(true).factory(),
                prefix);
    }

    /**
     * {@code unnamed}'s threads named {@code prefix} + n, n from 1, each name made by one
     * concatenation: the JDK's counted names ({@code Thread.Builder.name(prefix, 1)}) cost about 70
     * bytes more per thread, and a thread-per-task executor (weft-ring's requests) starts one per task
     * (decision 0306).
     */
    private static ThreadFactory counted(ThreadFactory unnamed, String prefix) {
        AtomicLong next = new AtomicLong(1);
        return task -> {
            Thread thread = unnamed.newThread(task);
            thread.setName(prefix + next.getAndIncrement());
            return thread;
        };
    }

    /** An executor following the globally configured policy ({@link ThreadPolicy#configured()}). */
    public static ExecutorService executor(String name) {
        return executor(name, ThreadPolicy.configured());
    }

    /**
     * An executor whose threads are named {@code weft-<name>-<n>}: one new virtual thread per task
     * under a virtual policy, or a pool of at most {@link #platformPoolSize()} daemon platform
     * threads (idle ones end after 60 s) with an unbounded task queue under a platform policy.
     * Every task runs with the context keys bound where it was submitted.
     *
     * @throws IllegalArgumentException if {@code name} is blank or contains whitespace
     */
    public static ExecutorService executor(String name, ThreadPolicy policy) {
        ThreadFactory factory = factory(name, policy);
        if (policy.isVirtual()) {
            return Context.wrap(Executors.newThreadPerTaskExecutor(factory));
        }
        int size = platformPoolSize();
        ThreadPoolExecutor pool =
                new ThreadPoolExecutor(size, size, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), factory);
        pool.allowCoreThreadTimeOut(true);
        return Context.wrap(pool);
    }

    /**
     * The size of a platform pool: the value of {@value #POOL_SIZE_PROPERTY} when set, otherwise
     * {@code max(8, 4 * availableProcessors)}, which keeps a 2-core machine's blocking tasks
     * moving without letting a burst create hundreds of OS threads.
     *
     * @throws IllegalArgumentException if the property is set to anything but a positive integer
     */
    public static int platformPoolSize() {
        String value = System.getProperty(POOL_SIZE_PROPERTY);
        if (value == null || value.isBlank()) {
            return Math.max(8, 4 * Runtime.getRuntime().availableProcessors());
        }
        try {
            int n = Integer.parseInt(value.strip());
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // reported below with the fix
        }
        throw new IllegalArgumentException("system property " + POOL_SIZE_PROPERTY + "=" + value
                + " is not a positive number of threads; set it to e.g. 16 or leave it unset");
    }

    /**
     * Checks a name that threads will carry as {@code weft-<name>-<n>} (a factory's, an
     * executor's, a scope's) and returns it: weft's one rule for such names.
     *
     * @throws IllegalArgumentException if {@code name} is blank or contains whitespace
     * @throws NullPointerException     if {@code name} is null
     */
    public static String checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank() || name.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("name \"" + name + "\" must be non-blank and without spaces,"
                    + " e.g. \"fetch\" (threads are named weft-<name>-<n>)");
        }
        return name;
    }

    private static String prefix(String name) {
        return "weft-" + checkName(name) + "-";
    }
}
