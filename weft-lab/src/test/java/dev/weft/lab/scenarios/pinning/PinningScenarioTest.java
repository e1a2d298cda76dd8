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
        ScenarioContext ctx = new ScenarioContext(Mode.SMOKE, new PrintStream(progress, true, StandardCharsets.UTF_8), dir);
        new PinningScenario().run(ctx);

        Map<String, Variant> variants = ctx.variants().stream().collect(Collectors.toMap(Variant::name, v -> v));
        assertEquals(List.of("no-lock", "reentrant-lock", "synchronized", "class-init"),
                ctx.variants().stream().map(Variant::name).toList(), "the four variant names stay");
        for (Variant v : variants.values()) {
            assertTrue(v.extra().get("pins") instanceof Long, v.name() + ": " + v.extra());
            assertTrue(v.extra().containsKey("pins_per_task"), v.name());
        }
        assertEquals(0L, variants.get("no-lock").extra().get("pins"));
        assertEquals(0L, variants.get("reentrant-lock").extra().get("pins"));
        if (Runtime.version().feature() >= 24) {
            assertEquals(0L, variants.get("synchronized").extra().get("pins"), "JEP 491");
        }
        assertTrue((double) variants.get("class-init").extra().get("pins_per_task") >= 1.0,
                "every task blocks in a class initializer: " + variants.get("class-init").extra());
        Map<String, Object> noLock = variants.get("no-lock").extra();
        assertTrue((double) noLock.get("monitor_overhead_ratio") > 0, noLock.toString());
        assertTrue((double) noLock.get("assertion_latency_ms_median") > 0, noLock.toString());
        assertTrue(ctx.notes().stream().anyMatch(n -> n.startsWith("Pins seen by weft's pin monitor")), ctx.notes().toString());
        assertTrue(ctx.notes().stream().anyMatch(n -> n.startsWith("Goal: the pin monitor costs at most 2%")), ctx.notes().toString());
        assertTrue(Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().startsWith("weft-pin-monitor-")),
                "every monitor was stopped");
    }
}
