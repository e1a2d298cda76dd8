package dev.weft.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Fails a test that did not pin a virtual thread at least {@link #atLeast()} times: for tests
 * that pin on purpose, e.g. to prove that a monitor or an alert notices. On a class it applies to
 * every test method; a {@link NoPins} on a method overrides it.
 *
 * <pre>{@code
 * @Test
 * @ExpectPins
 * void blockingInAClassInitializerPins() { new LegacyConfig(); }
 * }</pre>
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@ExtendWith(PinCheckExtension.class)
public @interface ExpectPins {

    /** The fewest pins the test must cause; at least 1. */
    int atLeast() default 1;

    /**
     * Whether the test method runs on a new virtual thread (the default), so that blocking in it
     * can pin, with the test's thread waiting for it. Set it to false for tests that must stay on
     * the test's own thread (thread-bound state such as a transaction); then only the virtual
     * threads the test starts can pin.
     */
    boolean onVirtualThread() default true;
}
