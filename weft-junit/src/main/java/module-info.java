/**
 * weft-junit: JUnit 5 checks that a test pins no virtual thread ({@code @NoPins},
 * {@code @ExpectPins}, {@code PinAssertions}), on weft-diagnostics' pin checks.
 *
 * <p>Exports its one package; on the class path, where JUnit usually runs, the descriptor is
 * ignored (doc/decisions/0107).
 */
module dev.weft.junit {
    // JUnit's Executable and extension types, and weft-diagnostics' PinReport, are in this API.
    requires transitive org.junit.jupiter.api;
    requires transitive dev.weft.diagnostics;
    requires org.junit.platform.commons;
    requires org.opentest4j;
    requires static org.jetbrains.annotations;

    exports dev.weft.junit;
}
