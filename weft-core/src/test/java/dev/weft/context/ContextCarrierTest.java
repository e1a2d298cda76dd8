package dev.weft.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.scope.Scope;
import dev.weft.scope.Subtask;
import dev.weft.thread.WeftThreads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Foreign context (here: a plain ThreadLocal "tenant") conveyed by a registered carrier. */
class ContextCarrierTest {

    static final ContextKey<String> USER = ContextKey.of("user");

    /** Some other library's thread-local context. */
    static final ThreadLocal<String> TENANT = new ThreadLocal<>();

    /** Conveys TENANT, counting its captures and what its attach saw. */
    static final class TenantCarrier implements ContextCarrier<String> {
        final AtomicInteger captures = new AtomicInteger();
        final List<String> seenUsers = new ArrayList<>();

        @Override
        public String capture() {
            captures.incrementAndGet();
            return TENANT.get();
        }

        @Override
        public Restore attach(String tenant, Context.Snapshot keys) {
            synchronized (seenUsers) {
                seenUsers.add(keys.get(USER));
            }
            String before = TENANT.get();
            TENANT.set(tenant);
            return () -> TENANT.set(before);
        }

        @Override
        public String toString() {
            return "TenantCarrier";
        }
    }

    private final List<ContextCarrier.Registration> registrations = new ArrayList<>();

    private TenantCarrier register() {
        TenantCarrier c = new TenantCarrier();
        registrations.add(ContextCarrier.register(c));
        return c;
    }

    /** Registers a carrier that always carries "x" and attaches with {@code attach}. */
    private void registerConstant(java.util.function.Supplier<ContextCarrier.Restore> attach) {
        registrations.add(ContextCarrier.register(new ContextCarrier<Object>() {
            @Override
            public Object capture() {
                return "x";
            }

            @Override
            public Restore attach(Object state, Context.Snapshot keys) {
                return attach.get();
            }
        }));
    }

    @AfterEach
    void unregister() {
        registrations.forEach(ContextCarrier.Registration::close);
        TENANT.remove();
    }

    @Test
    void scopeForksRunWithTheTenantOfTheOwner() throws Exception {
        register();
        TENANT.set("acme");
        try (Scope scope = Scope.open()) {
            Subtask<String> a = scope.fork(TENANT::get);
            Subtask<String> b = scope.fork(() -> {
                try (Scope inner = Scope.open()) { // a fork of a fork
                    Subtask<String> c = inner.fork(TENANT::get);
                    inner.join();
                    return c.get();
                }
            });
            scope.join();
            assertEquals("acme", a.get());
            assertEquals("acme", b.get());
        }
    }

    @Test
    void attachIsGivenTheKeysOfTheSnapshotItRuns() throws Exception {
        TenantCarrier carrier = register();
        TENANT.set("acme");
        ExecutorService pool = Context.wrap(Executors.newSingleThreadExecutor());
        try {
            Context.where(USER, "ann").run(() -> {
                try {
                    pool.submit(TENANT::get).get();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
        } finally {
            pool.close();
        }
        // Once for Bindings.run in this thread, once for the task in the pool's thread.
        assertEquals(List.of("ann", "ann"), carrier.seenUsers);
    }

    @Test
    void aReusedThreadKeepsNothingOfTheTaskBefore() throws Exception {
        register();
        ExecutorService pool = Context.wrap(Executors.newSingleThreadExecutor());
        try {
            TENANT.set("acme");
            assertEquals("acme", pool.submit(TENANT::get).get());
            TENANT.remove();
            assertNull(pool.submit(TENANT::get).get(), "the pool thread was restored after the first task");
        } finally {
            pool.close();
        }
    }

    @Test
    void weftExecutorsConveyItAndTheCaptureHappensOncePerHandOff() throws Exception {
        TenantCarrier carrier = register();
        TENANT.set("acme");
        try (ExecutorService io = WeftThreads.executor("carrier")) {
            assertEquals("acme", io.submit(TENANT::get).get());
        }
        assertEquals(1, carrier.captures.get());
    }

    @Test
    void aSnapshotKeepsTheStateItCapturedAndWithKeepsIt() {
        register();
        TENANT.set("first");
        Context.Snapshot s = Context.capture();
        TENANT.set("second");
        assertEquals("first", s.call(TENANT::get));
        assertEquals("first", s.with(USER, "ann").call(TENANT::get));
        assertEquals("ann", s.with(USER, "ann").call(USER::get));
        assertEquals("second", TENANT.get(), "restored in the calling thread");
    }

    @Test
    void aCaptureThatChangesNothingReturnsTheSnapshotInEffect() {
        register();
        TENANT.set("acme");
        Context.where(USER, "ann").run(() -> {
            Context.Snapshot first = Context.capture();
            first.run(() -> assertSame(first, Context.capture(), "the same keys and state: no new snapshot"));
        });
    }

    @Test
    void repeatedCapturesWithNothingChangedShareOneSnapshot() {
        register();
        TENANT.set("acme");
        Context.Snapshot first = Context.capture();
        assertSame(first, Context.capture(), "a thread forking many times allocates one snapshot");
        TENANT.set("other");
        Context.Snapshot second = Context.capture();
        assertEquals("other", second.call(TENANT::get));
        assertEquals("acme", first.call(TENANT::get), "the first keeps what it captured");
    }

    @Test
    void nothingCapturedMeansTheEmptySnapshot() {
        register();
        assertSame(Context.Snapshot.empty(), Context.capture(), "no tenant, no key: nothing to carry");
    }

    @Test
    void withoutCarriersASnapshotCarriesNothing() {
        TENANT.set("acme");
        assertSame(Context.Snapshot.empty(), Context.capture());
        assertNull(Context.capture().carried);
    }

    @Test
    void carriersAttachInOrderAndRestoreInReverse() {
        List<String> log = new ArrayList<>();
        for (String name : List.of("a", "b")) {
            registrations.add(ContextCarrier.register(new ContextCarrier<String>() {
                @Override
                public String capture() {
                    return name;
                }

                @Override
                public Restore attach(String state, Context.Snapshot keys) {
                    log.add("attach " + state);
                    return () -> log.add("restore " + state);
                }
            }));
        }
        Context.capture().run(() -> log.add("task"));
        assertEquals(List.of("attach a", "attach b", "task", "restore b", "restore a"), log);
    }

    @Test
    void aFailingAttachRestoresTheCarriersAlreadyAttachedAndTheTaskNeverRuns() {
        TenantCarrier tenant = register();
        registerConstant(() -> {
            throw new IllegalStateException("attach failed");
        });
        TENANT.set("acme");
        Context.Snapshot s = Context.capture();
        TENANT.set("outer");
        AtomicInteger ran = new AtomicInteger();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> s.run(ran::incrementAndGet));
        assertEquals("attach failed", e.getMessage());
        assertEquals(0, ran.get());
        assertEquals("outer", TENANT.get(), "the tenant carrier was restored");
        assertEquals(1, tenant.seenUsers.size());
    }

    @Test
    void aFailingRestoreIsSuppressedIntoTheTasksOwnFailureOrThrownAfterASuccess() {
        registerConstant(() -> () -> {
            throw new IllegalStateException("restore failed");
        });
        Context.Snapshot s = Context.capture();
        IllegalArgumentException task = assertThrows(
                IllegalArgumentException.class,
                () -> s.run(() -> {
                    throw new IllegalArgumentException("task failed");
                }));
        assertEquals("restore failed", task.getSuppressed()[0].getMessage());
        IllegalStateException after = assertThrows(IllegalStateException.class, () -> s.call(() -> 1));
        assertEquals("restore failed", after.getMessage());
    }

    @Test
    void registeringTwiceIsRefusedAndClosingUnregisters() {
        TenantCarrier c = new TenantCarrier();
        ContextCarrier.Registration r = ContextCarrier.register(c);
        try {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ContextCarrier.register(c));
            assertTrue(e.getMessage().contains("already registered"), e.getMessage());
        } finally {
            r.close();
            r.close();
        }
        TENANT.set("acme");
        assertSame(Context.Snapshot.empty(), Context.capture(), "unregistered: nothing captured");
        assertEquals(0, c.captures.get(), "an unregistered carrier is never asked");
        ContextCarrier.register(c).close(); // registrable again once closed
    }
}
