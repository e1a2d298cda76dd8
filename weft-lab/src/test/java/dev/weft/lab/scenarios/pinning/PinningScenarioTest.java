package dev.weft.lab.scenarios.pinning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.lab.Mode;
import dev.weft.lab.ScenarioContext;
import dev.weft.lab.Variant;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PinningScenarioTest {

    @Test
    void smokeRunCountsPinsPerVariantAndMeasuresTheMonitor(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        ScenarioContext ctx =
                new ScenarioContext(Mode.SMOKE, new PrintStream(progress, true, StandardCharsets.UTF_8), dir);
        new PinningScenario().run(ctx);

        Map<String, Variant> variants = ctx.variants().stream().collect(Collectors.toMap(Variant::name, v -> v));
        assertEquals(
                List.of(
                        "no-lock",
                        "reentrant-lock",
                        "synchronized",
                        "class-init",
                        "class-init@2-carriers",
                        "class-init@8-carriers"),
                ctx.variants().stream().map(Variant::name).toList(),
                "the four variant names stay, then carrier tuning");
        for (Variant v : variants.values()) {
            assertTrue(v.extra().get("pins") instanceof Long, v.name() + ": " + v.extra());
            assertTrue(v.extra().containsKey("pins_per_task"), v.name());
            double p50 = (double) v.extra().get("bystander_p50_ms");
            double p99 = (double) v.extra().get("bystander_p99_ms");
            assertTrue(p50 >= 1.0 && p99 >= p50, v.name() + ": a bystander task sleeps 1 ms: " + v.extra());
        }
        if (Runtime.version().feature() < 24) {
            assertTrue(
                    (double) variants.get("synchronized").extra().get("pins_per_task") >= 1.0,
                    "JDK 21-23: synchronized pins once per task: "
                            + variants.get("synchronized").extra());
        }
        for (String tuned : List.of("class-init@2-carriers", "class-init@8-carriers")) {
            Map<String, Object> extra = variants.get(tuned).extra();
            assertTrue((double) extra.get("pins_per_task") >= 1.0, tuned + " pins in its own JVM: " + extra);
            assertEquals(0L, extra.get("submit_failures"), tuned);
        }
        assertEquals(8, variants.get("class-init@8-carriers").extra().get("carriers"));
        assertEquals(0L, variants.get("no-lock").extra().get("pins"));
        assertEquals(0L, variants.get("reentrant-lock").extra().get("pins"));
        if (Runtime.version().feature() >= 24) {
            assertEquals(0L, variants.get("synchronized").extra().get("pins"), "JEP 491");
        }
        assertTrue(
                (double) variants.get("class-init").extra().get("pins_per_task") >= 1.0,
                "every task blocks in a class initializer: "
                        + variants.get("class-init").extra());
        Map<String, Object> noLock = variants.get("no-lock").extra();
        assertTrue((double) noLock.get("monitor_overhead_ratio") > 0, noLock.toString());
        assertTrue((double) noLock.get("assertion_latency_ms_median") > 0, noLock.toString());
        assertTrue(
                ctx.notes().stream().anyMatch(n -> n.startsWith("Pins seen by weft's pin monitor")),
                ctx.notes().toString());
        assertTrue(
                ctx.goals().stream().anyMatch(g -> g.name().startsWith("the pin monitor costs at most 2%")),
                ctx.goals().toString());
        if (AgentOverhead.agentJar().isPresent()) { // the shaded jar (a build through the package phase)
            assertTrue((double) noLock.get("agent_overhead_ratio") > 0, noLock.toString());
            assertTrue(
                    ctx.goals().stream().anyMatch(g -> g.name().startsWith("the weft agent costs at most 2%")),
                    ctx.goals().toString());
        }
        assertEquals(
                4,
                ctx.notes().stream()
                        .filter(n -> n.startsWith("Bystander during "))
                        .count(),
                ctx.notes().toString());
        assertTrue(
                Thread.getAllStackTraces().keySet().stream()
                        .noneMatch(t -> t.getName().startsWith("weft-pin-monitor-")),
                "every monitor was stopped");
    }
}
