package dev.weft.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.weft.context.Context;
import dev.weft.context.ContextCarrier;
import dev.weft.scope.Scope;
import dev.weft.scope.Subtask;
import io.micrometer.context.ContextRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/** context-propagation's thread locals (a plain one, Micrometer Observation's) through weft's forks. */
class WeftContextPropagationTest {

    static final ThreadLocal<String> TENANT = new ThreadLocal<>();

    @Test
    void aRegisteredThreadLocalFollowsForksAndIsRestoredOnReusedThreads() throws Exception {
        ContextRegistry registry = new ContextRegistry().registerThreadLocalAccessor("tenant", TENANT);
        ExecutorService one = Context.wrap(Executors.newSingleThreadExecutor());
        try (ContextCarrier.Registration r = WeftContextPropagation.install(registry)) {
            TENANT.set("acme");
            try (Scope scope = Scope.open()) {
                Subtask<String> t = scope.fork(TENANT::get);
                scope.join();
                assertEquals("acme", t.get());
            }
            assertEquals("acme", one.submit(TENANT::get).get());
            TENANT.remove();
            assertNull(one.submit(TENANT::get).get(), "nothing left on the pool's thread");
        } finally {
            TENANT.remove();
            one.close();
        }
    }

    @Test
    void theCurrentObservationIsCurrentInForks() throws Exception {
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(context -> true);
        ObservationThreadLocalAccessor.getInstance().setObservationRegistry(observations);
        ContextRegistry registry =
                new ContextRegistry().registerThreadLocalAccessor(ObservationThreadLocalAccessor.getInstance());
        Observation request = Observation.start("request", observations);
        try (ContextCarrier.Registration r = WeftContextPropagation.install(registry);
                Observation.Scope s = request.openScope();
                Scope scope = Scope.open()) {
            Subtask<Observation> seen = scope.fork(observations::getCurrentObservation);
            scope.join();
            assertSame(request, seen.get());
        } finally {
            request.stop();
        }
        assertNull(observations.getCurrentObservation());
    }
}
