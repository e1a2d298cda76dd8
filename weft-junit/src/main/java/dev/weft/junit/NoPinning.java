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
 * {@code @Nested} classes); an {@link ExpectPinning} on a method overrides it.
 *
 * <pre>{@code
 * @NoPinning
 * class CacheTest {
 *     @Test
 *     void loadsWithoutPinning() { cache.load("k"); }   // fails if load pinned a virtual thread
 * }
 * }</pre>
 *
 * <p>Every pin counts, however short, on any thread: the check records the test with a JFR
 * recording of its own (see {@link dev.weft.pin.PinCapture}), which costs a few milliseconds per
 * test. Tests that run in parallel in one JVM may see each other's pins.
 *
 * <p>When the test itself fails, its own failure is reported and a pinning failure is attached
 * to it as suppressed.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@ExtendWith(PinningExtension.class)
public @interface NoPinning {
}
