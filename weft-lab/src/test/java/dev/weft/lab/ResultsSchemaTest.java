package dev.weft.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.lab.report.Json;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The schema accepts what the lab writes and rejects what breaks the contract. */
class ResultsSchemaTest {

    @TempDir
    Path dir;

    private JsonNode written(Mode mode) throws Exception {
        ScenarioContext ctx = new ScenarioContext(mode, new PrintStream(OutputStream.nullOutputStream()), dir);
        try (var w = ctx.measuring("a")) {
            sink = new byte[1 << 20];
        }
        ctx.variant("a")
                .unit("ms")
                .value(12)
                .limit(10.0)
                .rounds(List.of(11, 12, 13))
                .peakPlatformThreads(13)
                .extra("cpu_s_to_target", Double.NaN)
                .add();
        ctx.variant("b")
                .unit("ns/switch")
                .value(300)
                .publishedRange(200, 500)
                .kind(Variant.EXTRAPOLATED)
                .add();
        ctx.goal("a within 1.3x of b")
                .pairedRatios(List.of(11, 12, 13), List.of(10, 10, 10))
                .atMost(1.3)
                .add();
        ctx.goal("one figure").measured(5).unit("s").atLeast(1).add();
        ctx.goal("straddles its target")
                .pairedRatios(List.of(9, 11, 12), List.of(10, 10, 10))
                .atMost(1.1)
                .add();
        ScenarioResult s = new ScenarioResult(
                        "demo",
                        "t",
                        "src https://example.org",
                        "25.0.1+8",
                        25,
                        "limit",
                        "ok",
                        null,
                        1.5,
                        30,
                        ctx.notes(),
                        ctx.goals(),
                        ctx.variants())
                .withMachine(new Machine(0.4, 0.1, 0.0, 2.5, 0.01, 2, false));
        ScenarioResult second = new ScenarioResult(
                "demo", "t", "src", "21.0.9+10", 21, null, "failed", "boom", 1, null, List.of(), List.of(), List.of());
        LabResult lab = new LabResult(
                LabResult.FORMAT_VERSION,
                "25",
                2,
                mode.toString(),
                "2026-11-23T20:10:05Z",
                3.0,
                null,
                List.of(s, second));
        return new ObjectMapper().readTree(Json.string(lab));
    }

    static volatile byte[] sink;

    @Test
    void whatTheLabWritesConforms() throws Exception {
        assertEquals(Map.of().keySet(), ResultsSchema.violations(written(Mode.QUICK)));
        assertEquals(Map.of().keySet(), ResultsSchema.violations(written(Mode.SMOKE)));
    }

    @Test
    void aFigureThatCouldNotBeMeasuredIsNullNotNaN() throws Exception {
        // a frozen pool variant never reaches its target: JSON has no NaN, and a strict reader
        // (this ObjectMapper, a browser's JSON.parse) would reject the whole file
        JsonNode extra = written(Mode.QUICK)
                .get("scenarios")
                .get(0)
                .get("variants")
                .get(0)
                .get("extra");
        assertTrue(extra.has("cpu_s_to_target") && extra.get("cpu_s_to_target").isNull(), extra.toString());
    }

    @Test
    void theSchemaRejectsBrokenResults() throws Exception {
        ObjectNode json = (ObjectNode) written(Mode.QUICK);
        ((ObjectNode) json.get("scenarios").get(0).get("goals").get(0)).put("verdict", "probably");
        assertFalse(ResultsSchema.violations(json).isEmpty(), "an unknown verdict");

        json = (ObjectNode) written(Mode.QUICK);
        ((ObjectNode) json.get("scenarios").get(0).get("goals").get(0)).put("met", false);
        assertFalse(ResultsSchema.violations(json).isEmpty(), "met disagrees with the verdict");

        json = (ObjectNode) written(Mode.QUICK);
        ((ObjectNode) json.get("scenarios").get(0).get("goals").get(2)).put("met", true);
        assertFalse(ResultsSchema.violations(json).isEmpty(), "an inconclusive goal is neither met nor not met");

        json = (ObjectNode) written(Mode.QUICK);
        ((ObjectNode) json.get("scenarios").get(0).get("goals").get(0)).remove("interval");
        assertFalse(ResultsSchema.violations(json).isEmpty(), "every goal states its interval");

        json = (ObjectNode) written(Mode.QUICK);
        json.put("started", "2026-11-23T20:10:05.123456789Z");
        assertFalse(ResultsSchema.violations(json).isEmpty(), "the start time is to the second");

        json = (ObjectNode) written(Mode.QUICK);
        ((ObjectNode) json.get("scenarios").get(0).get("variants").get(0)).remove("rounds");
        assertFalse(ResultsSchema.violations(json).isEmpty(), "rounds are required");

        json = (ObjectNode) written(Mode.QUICK);
        ((ObjectNode) json.get("scenarios").get(1)).putNull("error");
        assertFalse(ResultsSchema.violations(json).isEmpty(), "a failed scenario says why");
    }

    @Test
    void goalsAreJudgedByTheMedianOfPairedRatiosWithTheirSpread() throws Exception {
        JsonNode goal = written(Mode.QUICK).get("scenarios").get(0).get("goals").get(0);
        assertEquals(1.2, goal.get("measured").asDouble(), 1e-9);
        assertEquals("met", goal.get("verdict").asText());
        assertEquals(1.1, goal.get("spread").get("low").asDouble(), 1e-9);
        assertEquals(1.3, goal.get("spread").get("high").asDouble(), 1e-9);
        JsonNode smoke =
                written(Mode.SMOKE).get("scenarios").get(0).get("goals").get(0);
        assertEquals("not_judged", smoke.get("verdict").asText());
        assertTrue(smoke.get("met").isNull());
        JsonNode variant =
                written(Mode.QUICK).get("scenarios").get(0).get("variants").get(1);
        assertEquals(350, variant.get("published").asDouble(), 1e-9, "a range's midpoint");
        assertEquals("lower", variant.get("better").asText(), "ns/switch is a time");
    }

    @Test
    void goalsCarryTheirIntervalAndAreInconclusiveWhenItStraddlesTheTarget() throws Exception {
        JsonNode goals = written(Mode.QUICK).get("scenarios").get(0).get("goals");
        JsonNode paired = goals.get(0);
        assertEquals(1.1, paired.get("interval").get("low").asDouble(), 1e-9);
        assertEquals(1.3, paired.get("interval").get("high").asDouble(), 1e-9);
        assertEquals(0.75, paired.get("interval").get("level").asDouble(), 1e-9, "3 rounds: the whole range, at 75%");
        assertEquals(3, paired.get("rounds_used").asInt());
        JsonNode single = goals.get(1);
        assertEquals(5, single.get("interval").get("low").asDouble());
        assertEquals(5, single.get("interval").get("high").asDouble());
        assertTrue(single.get("interval").get("level").isNull());
        assertEquals(1, single.get("rounds_used").asInt());
        JsonNode straddles = goals.get(2);
        assertEquals("inconclusive", straddles.get("verdict").asText());
        assertTrue(straddles.get("met").isNull());
        assertTrue(straddles.get("rounds_needed").isNull(), "its median sits on the target: no estimate");
        assertTrue(paired.get("rounds_needed").isNull(), "a decided goal needs no more rounds");
    }

    @Test
    void aVariantMeasuredInAMemoryWindowCarriesItsMemory() throws Exception {
        JsonNode variants = written(Mode.QUICK).get("scenarios").get(0).get("variants");
        JsonNode memory = variants.get(0).get("memory");
        assertEquals("scenario", memory.get("jvm").asText());
        assertTrue(memory.get("allocated_bytes").asLong() >= 1 << 20, "the window's megabyte: " + memory);
        assertTrue(memory.get("peak_heap_bytes").asLong() > 0, memory.toString());
        assertTrue(variants.get(1).get("memory").isNull(), "no window, no memory figures");
    }
}
