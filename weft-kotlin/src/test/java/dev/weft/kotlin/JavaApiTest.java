package dev.weft.kotlin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.context.Context;
import dev.weft.context.ContextKey;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import kotlinx.coroutines.CoroutineStart;
import kotlinx.coroutines.Dispatchers;
import kotlinx.coroutines.GlobalScope;
import kotlinx.coroutines.future.FutureKt;
import org.junit.jupiter.api.Test;

/** The dispatcher from plain Java: construction, the executor, a coroutine, close. */
class JavaApiTest {

    @Test
    void sharedInstanceIsReachableFromJava() {
        assertSame(VirtualThreadDispatcher.getShared(), DispatchersKt.getVirtual(Dispatchers.INSTANCE));
        assertThrows(
                UnsupportedOperationException.class,
                () -> VirtualThreadDispatcher.getShared().close());
    }

    @Test
    void namedDispatcherRunsRunnablesAndCoroutinesAndCloses() throws Exception {
        VirtualThreadDispatcher closedLater;
        try (VirtualThreadDispatcher d = new VirtualThreadDispatcher("java")) {
            closedLater = d;
            CompletableFuture<String> viaExecutor =
                    CompletableFuture.supplyAsync(() -> Thread.currentThread().getName(), d.getExecutor());
            assertTrue(viaExecutor.get(20, TimeUnit.SECONDS).startsWith("weft-java-"));

            // A coroutine whose body is a plain Java lambda, exposed as a CompletableFuture.
            CompletableFuture<Boolean> coroutine = FutureKt.future(
                    GlobalScope.INSTANCE,
                    d,
                    CoroutineStart.DEFAULT,
                    (scope, continuation) -> Thread.currentThread().isVirtual());
            assertTrue(coroutine.get(20, TimeUnit.SECONDS));
        }
        assertTrue(closedLater.isClosed());
        assertThrows(
                RejectedExecutionException.class,
                () -> closedLater.getExecutor().execute(() -> {}));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (closedLater.getThreadCount() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
        assertEquals(0, closedLater.getThreadCount());
    }

    @Test
    void weftContextCarriesContextKeysFromJava() throws Exception {
        ContextKey<String> user = ContextKey.of("user");
        CompletableFuture<String> seen = Context.where(user, "java-user")
                .call(() -> FutureKt.future(
                        GlobalScope.INSTANCE,
                        VirtualThreadDispatcher.getShared().plus(new WeftContext()),
                        CoroutineStart.DEFAULT,
                        (scope, continuation) -> user.get()));
        assertEquals("java-user", seen.get(20, TimeUnit.SECONDS));

        // The executor conveys the keys bound where execute is called, as every weft executor does.
        try (VirtualThreadDispatcher d = new VirtualThreadDispatcher("java-ctx")) {
            CompletableFuture<String> viaExecutor = Context.where(user, "executor-user")
                    .call(() -> CompletableFuture.supplyAsync(user::get, d.getExecutor()));
            assertEquals("executor-user", viaExecutor.get(20, TimeUnit.SECONDS));
        }
    }

    @Test
    void idleThreadsAreAConstructorOption() {
        try (VirtualThreadDispatcher d = new VirtualThreadDispatcher("java-fresh", 0)) {
            assertEquals(0, d.getIdleThreads());
        }
        assertThrows(IllegalArgumentException.class, () -> new VirtualThreadDispatcher("java-bad", -1));
    }
}
