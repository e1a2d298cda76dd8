package dev.weft.audit;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The JDK operations that block by parking the calling thread: what pins a virtual thread when
 * it runs them inside {@code <clinit>}, under a native frame, or (JDK 21-23) in a monitor.
 *
 * <p>Two kinds: operations that {@link Kind#WAITS wait} for another party (sleep, a latch, a queue,
 * a future, a socket) and lock acquisitions that {@link Kind#LOCKS} park only when the lock is
 * contended. File I/O and {@code java.net.URL} streams are not here: file reads block the carrier
 * without parking (the JDK compensates with an extra carrier; JFR reports no pin), and a URL may
 * well be a {@code jar:} resource.
 */
final class Blocking {

    /** What a blocking operation waits for. */
    enum Kind {
        /** Another thread, a timer or the network: it parks whenever it is called. */
        WAITS,
        /** Stream I/O on a socket's stream ({@link SocketStreams}): it parks until the peer answers. */
        SOCKET_IO,
        /** Stream I/O on a stream that may be a socket's: it parks if it is one. */
        STREAM_IO,
        /** A lock: it parks only when another thread holds it. */
        LOCKS;

        /** True for the kinds whose findings rank one severity lower: they park only sometimes. */
        boolean onlySometimes() {
            return this == STREAM_IO || this == LOCKS;
        }
    }

    /** How calls are matched: every overload, or only the ones with a timeout parameter. */
    private record Names(Kind kind, Set<String> all, Set<String> timed) {}

    private static final Map<String, Names> BY_OWNER = new HashMap<>();

    static {
        add(Kind.WAITS, List.of("java/lang/Thread"), Set.of("sleep", "join"), Set.of());
        add(
                Kind.WAITS,
                List.of("java/util/concurrent/locks/LockSupport"),
                Set.of("park", "parkNanos", "parkUntil"),
                Set.of());
        add(
                Kind.LOCKS,
                List.of(
                        "java/util/concurrent/locks/Lock",
                        "java/util/concurrent/locks/ReentrantLock",
                        "java/util/concurrent/locks/ReentrantReadWriteLock$ReadLock",
                        "java/util/concurrent/locks/ReentrantReadWriteLock$WriteLock"),
                Set.of("lock", "lockInterruptibly"),
                Set.of("tryLock"));
        add(
                Kind.LOCKS,
                List.of("java/util/concurrent/locks/StampedLock"),
                Set.of("writeLock", "readLock", "writeLockInterruptibly", "readLockInterruptibly"),
                Set.of("tryWriteLock", "tryReadLock"));
        add(
                Kind.WAITS,
                List.of(
                        "java/util/concurrent/locks/Condition",
                        "java/util/concurrent/locks/AbstractQueuedSynchronizer$ConditionObject",
                        "java/util/concurrent/locks/AbstractQueuedLongSynchronizer$ConditionObject"),
                Set.of("await", "awaitNanos", "awaitUninterruptibly", "awaitUntil"),
                Set.of());
        add(
                Kind.WAITS,
                List.of(
                        "java/util/concurrent/locks/AbstractQueuedSynchronizer",
                        "java/util/concurrent/locks/AbstractQueuedLongSynchronizer"),
                Set.of("acquire", "acquireInterruptibly", "acquireShared", "acquireSharedInterruptibly"),
                Set.of("tryAcquireNanos", "tryAcquireSharedNanos"));
        add(
                Kind.WAITS,
                List.of("java/util/concurrent/CountDownLatch", "java/util/concurrent/CyclicBarrier"),
                Set.of("await"),
                Set.of());
        add(
                Kind.WAITS,
                List.of("java/util/concurrent/Phaser"),
                Set.of("awaitAdvance", "awaitAdvanceInterruptibly", "arriveAndAwaitAdvance"),
                Set.of());
        add(
                Kind.WAITS,
                List.of("java/util/concurrent/Semaphore"),
                Set.of("acquire", "acquireUninterruptibly"),
                Set.of("tryAcquire"));
        add(Kind.WAITS, List.of("java/util/concurrent/Exchanger"), Set.of("exchange"), Set.of());
        add(
                Kind.WAITS,
                List.of(
                        "java/util/concurrent/BlockingQueue",
                        "java/util/concurrent/BlockingDeque",
                        "java/util/concurrent/TransferQueue",
                        "java/util/concurrent/LinkedBlockingQueue",
                        "java/util/concurrent/ArrayBlockingQueue",
                        "java/util/concurrent/LinkedBlockingDeque",
                        "java/util/concurrent/PriorityBlockingQueue",
                        "java/util/concurrent/DelayQueue",
                        "java/util/concurrent/SynchronousQueue",
                        "java/util/concurrent/LinkedTransferQueue"),
                Set.of("put", "take", "putFirst", "putLast", "takeFirst", "takeLast", "transfer"),
                Set.of("offer", "poll", "offerFirst", "offerLast", "pollFirst", "pollLast", "tryTransfer"));
        add(
                Kind.WAITS,
                List.of(
                        "java/util/concurrent/Future",
                        "java/util/concurrent/RunnableFuture",
                        "java/util/concurrent/ScheduledFuture",
                        "java/util/concurrent/FutureTask"),
                Set.of("get"),
                Set.of());
        add(
                Kind.WAITS,
                List.of("java/util/concurrent/CompletableFuture", "java/util/concurrent/ForkJoinTask"),
                Set.of("get", "join"),
                Set.of());
        add(
                Kind.WAITS,
                List.of(
                        "java/util/concurrent/ExecutorService",
                        "java/util/concurrent/AbstractExecutorService",
                        "java/util/concurrent/ThreadPoolExecutor",
                        "java/util/concurrent/ScheduledThreadPoolExecutor",
                        "java/util/concurrent/ForkJoinPool"),
                Set.of("awaitTermination", "invokeAll", "invokeAny", "close"),
                Set.of());
        add(
                Kind.WAITS,
                List.of("java/util/concurrent/CompletionService", "java/util/concurrent/ExecutorCompletionService"),
                Set.of("take"),
                Set.of("poll"));
        add(Kind.WAITS, List.of("java/lang/Process"), Set.of("waitFor"), Set.of());
        add(Kind.WAITS, List.of("java/lang/ref/ReferenceQueue"), Set.of("remove"), Set.of());
        add(Kind.WAITS, List.of("java/net/Socket"), Set.of("connect"), Set.of());
        add(Kind.WAITS, List.of("java/net/ServerSocket"), Set.of("accept"), Set.of());
        add(Kind.WAITS, List.of("java/net/DatagramSocket"), Set.of("receive"), Set.of());
        add(
                Kind.WAITS,
                List.of(
                        "java/nio/channels/SocketChannel",
                        "java/nio/channels/ServerSocketChannel",
                        "java/nio/channels/DatagramChannel"),
                Set.of("accept", "connect", "finishConnect", "read", "write", "receive", "send"),
                Set.of());
        add(Kind.WAITS, List.of("java/nio/channels/Selector"), Set.of("select"), Set.of());
        add(Kind.WAITS, List.of("java/net/http/HttpClient"), Set.of("send"), Set.of());
        add(
                Kind.WAITS,
                List.of("java/net/HttpURLConnection", "javax/net/ssl/HttpsURLConnection"),
                Set.of("connect", "getInputStream", "getResponseCode"),
                Set.of());
    }

    private Blocking() {}

    private static void add(Kind kind, List<String> owners, Set<String> all, Set<String> timed) {
        for (String owner : owners) {
            BY_OWNER.put(owner, new Names(kind, all, timed));
        }
    }

    /** True for {@code Object.wait} in any of its forms, whatever class the call names. */
    static boolean isObjectWait(String name, String desc) {
        return name.equals("wait") && (desc.equals("()V") || desc.equals("(J)V") || desc.equals("(JI)V"));
    }

    /**
     * How a call to {@code owner.name desc} parks, or null when it does not: {@code owner} or one
     * of its supertypes (as far as {@code hierarchy} knows them) is listed, or it is
     * {@code Object.wait}.
     */
    static Kind kind(String owner, String name, String desc, Hierarchy hierarchy) {
        if (isObjectWait(name, desc)) {
            return Kind.WAITS;
        }
        for (String type : hierarchy.selfAndSupertypes(owner)) {
            Names n = BY_OWNER.get(type);
            if (n != null && (n.all().contains(name) || (n.timed().contains(name) && timed(desc)))) {
                return n.kind();
            }
        }
        return null;
    }

    private static boolean timed(String desc) {
        return desc.contains("Ljava/util/concurrent/TimeUnit;") || desc.contains("Ljava/time/Duration;");
    }
}
