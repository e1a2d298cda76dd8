/**
 * JUnit 5 support for pinning: {@link dev.weft.junit.NoPins} fails a test that pinned a
 * virtual thread, {@link dev.weft.junit.ExpectPins} one that did not, and
 * {@link dev.weft.junit.PinAssertions} does the same for a block of code. Failure messages carry
 * every pinned stack, aggregated by site. All of them are {@link dev.weft.pin.PinCheck}s, the
 * same checks Clojure's {@code weft.pin/no-pins?} and {@code pins?} run.
 */
package dev.weft.junit;
