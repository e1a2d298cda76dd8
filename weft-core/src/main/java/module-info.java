/**
 * weft-core: virtual threads made practical: thread policies and named virtual-thread factories
 * ({@code dev.weft.thread}), structured scopes ({@code dev.weft.scope}), context that follows the
 * work ({@code dev.weft.context}) and limiters ({@code dev.weft.limit}). No dependency beyond
 * the JDK.
 *
 * <p>Only the API packages are exported. {@code dev.weft.thread.internal} (the JVM-wide timer,
 * durations for messages) is exported to weft's own modules alone; the diagnostics
 * ({@code dev.weft.pin}, {@code dev.weft.scheduler}) are weft-diagnostics'. On the class path,
 * where most users run weft, the descriptor is ignored and nothing changes (doc/decisions/0107).
 */
module dev.weft.core {
    // ScopeEvent and LimiterRejectionEvent are JFR events (they extend jdk.jfr.Event).
    requires transitive jdk.jfr;
    // IntelliJ's @Blocking marks: class-file retention, compile time only (decision 0012). Not
    // transitive: a user's compile would then fail without the jar, which users never get.
    requires static org.jetbrains.annotations;

    exports dev.weft.context;
    exports dev.weft.limit;
    exports dev.weft.scope;
    exports dev.weft.thread;
    // Deprecated names of the events that moved beside what they describe; removed in the next release.
    exports dev.weft.jfr;

    // Shared helpers, not an API. Named here: every weft module that calls them (the agent and the
    // CLI run from the class path, but are named so that their jars work on a module path too).
    exports dev.weft.thread.internal to
            dev.weft.pool,
            dev.weft.diagnostics,
            dev.weft.kotlin,
            dev.weft.agent,
            dev.weft.cli;
}
