package dev.weft.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.thread.ThreadPolicy;
import dev.weft.thread.WeftThreads;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ContextTest {

    static final ContextKey<String> USER = ContextKey.of("user");
    static final ContextKey<Integer> RETRIES = ContextKey.of("retries", 3);

    @Test
    void unboundKeysReadTheirDefault() {
        assertNull(USER.get());
        assertEquals(3, RETRIES.get());
        assertEquals("nobody", USER.orElse("nobody"));
        assertFalse(USER.isBound());
        assertEquals(0, Context.capture().size());
    }

    @Test
    void whereBindsForTheBodyOnlyAndNestsLikeAStack() {
        Context.where(USER, "ann").where(RETRIES, 1).run(() -> {
            assertEquals("ann", USER.get());
            assertEquals(1, RETRIES.get());
            String inner = Context.where(USER, "bob").call(() -> {
                assertEquals(1, RETRIES.get(), "keys not rebound stay visible");
                return USER.get();
            });
            assertEquals("bob", inner);
            assertEquals("ann", USER.get(), "the outer binding is back after the inner body");
        });
        assertFalse(USER.isBound());
    }

    @Test
    void bindingsEndWhenTheBodyThrows() {
        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> Context.where(USER, "ann").call(() -> {
                    throw new IllegalStateException("boom");
                }));
        assertEquals("boom", e.getMessage());
        assertFalse(USER.isBound());
    }

    @Test
    void nullIsAValueButNotAKey() {
        Context.where(USER, null).run(() -> {
            assertTrue(USER.isBound());
            assertNull(USER.orElse("unused"));
        });
        NullPointerException e = assertThrows(NullPointerException.class, () -> Context.where(null, "x"));
        assertTrue(e.getMessage().contains("ContextKey.of"), e.getMessage());
        assertThrows(NullPointerException.class, () -> Context.capture().with(null, "x"));
        assertThrows(IllegalArgumentException.class, () -> ContextKey.of(" "));
    }

    @Test
    void aPlainThreadDoesNotInheritButASnapshotConveysExactly() throws Exception {
        AtomicReference<Object> plain = new AtomicReference<>("unset");
        AtomicReference<Object> conveyed = new AtomicReference<>();
        Context.where(USER, "ann").run(() -> {
            Thread t = Thread.ofVirtual().start(() -> plain.set(USER.get()));
            Thread u = Thread.ofVirtual().start(Context.wrap(() -> conveyed.set(USER.get())));
            join(t);
            join(u);
        });
        assertNull(plain.get(), "nothing is inherited without conveyance");
        assertEquals("ann", conveyed.get());
    }

    @Test
    void runningASnapshotPutsExactlyItsBindingsInEffect() {
        Context.Snapshot onlyRetries = Context.where(RETRIES, 7).call(Context::capture);
        Context.where(USER, "ann")
                .run(() -> onlyRetries.run(() -> {
                    assertFalse(USER.isBound(), "a key bound where the snapshot runs, but not in it, is unbound");
                    assertEquals(7, RETRIES.get());
                }));
    }

    @Test
    void snapshotIsData() {
        Context.Snapshot s = Context.where(USER, "ann").call(Context::capture).with(RETRIES, 5);
        assertEquals(2, s.size());
        assertEquals("ann", s.get(USER));
        assertEquals(Map.of(USER, "ann", RETRIES, 5), s.toMap());
        assertEquals(3, Context.Snapshot.empty().get(RETRIES));
        assertEquals("Snapshot{user=ann, retries=5}", s.toString());
        assertEquals(4, s.with(RETRIES, 4).get(RETRIES));
        assertEquals(2, s.with(RETRIES, 4).size(), "rebinding replaces");
    }

    @Test
    void wrappedExecutorServiceConveysPerSubmission() throws Exception {
        // One pool thread serves every task, so any value it kept from one task would show in the next.
        try (ExecutorService pool = Context.wrap(Executors.newSingleThreadExecutor())) {
            List<Future<String>> seen = new ArrayList<>();
            for (String who : List.of("ann", "bob", "cy")) {
                seen.add(Context.where(USER, who).call(() -> pool.submit(USER::get)));
            }
            seen.add(pool.submit(USER::get));
            assertEquals(
                    List.of("ann", "bob", "cy"),
                    List.of(seen.get(0).get(), seen.get(1).get(), seen.get(2).get()));
            assertNull(seen.get(3).get(), "a submission with nothing bound sees nothing");

            List<Callable<String>> tasks = List.of(USER::get, USER::get);
            List<Future<String>> all = Context.where(USER, "dee").call(() -> pool.invokeAll(tasks));
            assertEquals("dee", all.get(0).get());
            assertEquals("dee", all.get(1).get());
            assertEquals("eve", Context.where(USER, "eve").call(() -> pool.invokeAny(tasks)));
            AtomicReference<String> ran = new AtomicReference<>();
            Context.where(USER, "fay").run(() -> pool.execute(() -> ran.set(USER.get())));
            pool.submit(() -> {}).get();
            assertEquals("fay", ran.get());
            assertSame(pool, Context.wrap(pool), "wrapping twice keeps one wrapper");
        }
    }

    @Test
    void wrappedExecutorAndCompletionServiceConvey() throws Exception {
        try (ExecutorService raw = Executors.newSingleThreadExecutor()) {
            AtomicReference<String> seen = new AtomicReference<>();
            var executor = Context.wrap((java.util.concurrent.Executor) r -> raw.execute(r));
            Context.where(USER, "ann").run(() -> executor.execute(() -> seen.set(USER.get())));
            raw.submit(() -> {}).get();
            assertEquals("ann", seen.get());

            CompletionService<String> cs = Context.wrap(new ExecutorCompletionService<String>(raw));
            Context.where(USER, "bob").run(() -> cs.submit(USER::get));
            assertEquals("bob", cs.take().get());
        }
    }

    @Test
    void weftExecutorsConveyUnderEveryPolicy() throws Exception {
        for (ThreadPolicy policy : List.of(ThreadPolicy.VIRTUAL, ThreadPolicy.PLATFORM)) {
            try (ExecutorService ex = WeftThreads.executor("ctx", policy)) {
                assertEquals(
                        "ann",
                        Context.where(USER, "ann")
                                .call(() -> ex.submit(USER::get))
                                .get(),
                        policy.toString());
            }
        }
    }

    @Test
    void implementationIsScopedValueOnJdk25UnlessChosen() {
        String chosen = System.getProperty(Context.IMPLEMENTATION_PROPERTY, "");
        String expected =
                chosen.isEmpty() ? (Runtime.version().feature() >= 25 ? "scoped-value" : "thread-local") : chosen;
        assertEquals(expected, Context.implementation());
    }

    @Test
    void hiddenKeysAreConveyedButLeftOutOfTheViews() {
        ContextKey<String> mine = ContextKey.hidden("library-state");
        Context.Snapshot s = Context.capture().with(mine, "x").with(USER, "ann");
        assertEquals(1, s.size());
        assertEquals(Map.of(USER, "ann"), s.toMap());
        assertEquals("Snapshot{user=ann}", s.toString());
        assertEquals("x", s.get(mine));
        assertEquals("x", s.call(mine::get), "conveyed like any key");
        Context.Snapshot onlyHidden = Context.Snapshot.empty().with(mine, "y");
        assertEquals(0, onlyHidden.size());
        assertEquals("y", onlyHidden.call(mine::get), "a snapshot of hidden keys alone still binds them");
    }

    @Test
    void aBadImplementationSettingIsAClearErrorAtEveryUse() throws Exception {
        // A class loader of its own, so that Binder initializes again under the bad setting.
        URL classes = Context.class.getProtectionDomain().getCodeSource().getLocation();
        String saved = System.getProperty(Context.IMPLEMENTATION_PROPERTY);
        System.setProperty(Context.IMPLEMENTATION_PROPERTY, "fibers");
        try (URLClassLoader fresh = new URLClassLoader(new URL[] {classes}, ClassLoader.getPlatformClassLoader())) {
            Class<?> keys = fresh.loadClass(ContextKey.class.getName());
            Object key = keys.getMethod("of", String.class).invoke(null, "k");
            Method get = keys.getMethod("get");
            for (int i = 0; i < 2; i++) { // the second use says it again, not NoClassDefFoundError
                InvocationTargetException e = assertThrows(InvocationTargetException.class, () -> get.invoke(key));
                IllegalStateException bad = assertInstanceOf(IllegalStateException.class, e.getCause());
                assertTrue(
                        bad.getMessage()
                                .contains("weft.context=fibers is not an implementation;"
                                        + " set it to scoped-value or thread-local, or leave it unset"),
                        bad.getMessage());
            }
        } finally {
            if (saved == null) {
                System.clearProperty(Context.IMPLEMENTATION_PROPERTY);
            } else {
                System.setProperty(Context.IMPLEMENTATION_PROPERTY, saved);
            }
        }
    }

    private static void join(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
