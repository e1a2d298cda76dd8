package dev.weft.lab.run;

import dev.weft.lab.ScenarioContext;
import dev.weft.lab.ScenarioResult;
import java.util.List;

/** Builds {@link ScenarioResult}s from a descriptor and what the scenario reported. */
final class Results {

    private Results() {
    }

    static ScenarioResult of(Descriptor d, ScenarioContext ctx, String status, String error, double seconds) {
        return new ScenarioResult(d.name(), d.title(), d.source(), ctx.limitNote(), status, error,
                seconds, ctx.notes(), ctx.variants());
    }

    /** A scenario that produced no result of its own (it crashed or timed out). */
    static ScenarioResult missing(Descriptor d, String error, double seconds) {
        return new ScenarioResult(d.name(), d.title(), d.source(), null, "failed", error, seconds, List.of(), List.of());
    }
}
