package dev.weft.lab.run;

import dev.weft.lab.ScenarioContext;
import dev.weft.lab.ScenarioResult;
import java.util.List;

/** Builds {@link ScenarioResult}s from a descriptor and what the scenario reported. */
final class Results {

    private Results() {}

    static ScenarioResult of(Descriptor d, ScenarioContext ctx, String status, String error, double seconds) {
        Runtime.Version v = Runtime.version();
        return new ScenarioResult(
                d.name(),
                d.title(),
                d.source(),
                System.getProperty("java.runtime.version"),
                v.feature(),
                ctx.limitNote(),
                status,
                error,
                seconds,
                null,
                ctx.notes(),
                ctx.goals(),
                ctx.variants());
    }

    /** A scenario that produced no result of its own (it crashed or timed out). */
    static ScenarioResult missing(Descriptor d, dev.weft.lab.Mode mode, String error, double seconds) {
        return new ScenarioResult(
                d.name(),
                d.title(),
                d.source(),
                null,
                null,
                null,
                "failed",
                error,
                seconds,
                d.budgetSeconds(mode),
                List.of(),
                List.of(),
                List.of());
    }
}
