/**
 * JUnit 5 support for pinning: {@link dev.weft.junit.NoPinning} fails a test that pinned a
 * virtual thread, {@link dev.weft.junit.ExpectPinning} one that did not, and
 * {@link dev.weft.junit.PinAssertions} does the same for a block of code. Failure messages carry
 * every pinned stack, aggregated by site.
 */
package dev.weft.junit;
