/**
 * weft-diagnostics: pins and carrier starvation found and reported ({@code dev.weft.pin}), the
 * virtual-thread scheduler's figures as data ({@code dev.weft.scheduler}) and a small JFR
 * recording helper ({@code dev.weft.recording}).
 *
 * <p>Only the API packages are exported; {@code dev.weft.pin.internal} (the aggregation of pins by
 * site behind every monitor, capture and check) is exported to weft's own modules alone. On the
 * class path the descriptor is ignored (doc/decisions/0107).
 */
module dev.weft.diagnostics {
    requires dev.weft.core;
    // JFR's consumer types (RecordedEvent) and JMX's MBeanServerConnection are in this API.
    requires transitive jdk.jfr;
    requires transitive java.management;
    // HotSpotDiagnosticMXBean's thread dumps: used when present, the monitors work without it.
    requires static jdk.management;
    requires static org.jetbrains.annotations;

    exports dev.weft.pin;
    exports dev.weft.recording;
    exports dev.weft.scheduler;

    // weft pins (weft-cli) aggregates a recording read from another JVM the monitor's way.
    exports dev.weft.pin.internal to
            dev.weft.cli;
}
