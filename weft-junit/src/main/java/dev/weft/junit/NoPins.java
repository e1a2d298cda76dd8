package dev.weft.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Fails a test that pinned a virtual thread while it ran, with every pinned stack in the
 * failure message. On a class it applies to every test method (including those of
 * {@code @Nested} classes); an {@link ExpectPins} on a method overrides it.
 *
 * <pre>{@code
 * @NoPins
 * class CacheTest {
 *     @Test
 *     void loadsWithoutPinning() { cache.load("k"); }   // fails if load pinned a virtual thread
 * }
 * }</pre>
 *
 * <p>The test method runs on a new virtual thread (see {@link #onVirtualThread()}): code that
 * blocks on a platform thread cannot pin, so this is where the question "would it pin?" has an
 * answer. Every pin counts, however short, on any thread: the check records the test with a JFR
 * recording of its own (see {@link dev.weft.pin.PinCapture}), which costs about 20 ms per test.
 * Tests that run in parallel in one JVM may see each other's pins.
 *
 * <p>When the test itself fails, its own failure is reported and a pinning failure is attached
 * to it as suppressed.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@ExtendWith(PinCheckExtension.class)
public @interface NoPins {

    /**
     * Whether the test method runs on a new virtual thread (the default), so that blocking in it
     * can pin, with the test's thread waiting for it. Set it to false for tests that must stay on
     * the test's own thread (thread-bound state such as a transaction); then only the virtual
     * threads the test starts can pin.
     */
    boolean onVirtualThread() default true;
}
