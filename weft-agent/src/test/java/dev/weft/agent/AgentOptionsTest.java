package dev.weft.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class AgentOptionsTest {

    @Test
    void defaultsAndEveryOption() {
        assertEquals(
                new AgentOptions(Duration.ofMinutes(1), Duration.ofMillis(20), true, true), AgentOptions.parse(null));
        assertEquals(
                new AgentOptions(Duration.ofMinutes(1), Duration.ofMillis(20), true, true), AgentOptions.parse(" "));
        AgentOptions o = AgentOptions.parse("interval=30s, threshold=5ms,detectors=pins");
        assertEquals(new AgentOptions(Duration.ofSeconds(30), Duration.ofMillis(5), true, false), o);
        assertEquals("pins", o.detectorNames());
        assertEquals("starvation", AgentOptions.parse("detectors=starvation").detectorNames());
        assertEquals(
                "pins+starvation",
                AgentOptions.parse("detectors=starvation+pins").detectorNames());
        assertEquals(Duration.ZERO, AgentOptions.parse("threshold=0ms").threshold(), "0 records every pin");
    }

    @Test
    void badOptionsNameTheProblemAndTheForms() {
        for (String[] bad : new String[][] {
            {"interval", "no value"}, {"interval=0s", "interval must be more than 0"},
            {"threshold=-PT5S", "threshold must not be negative"}, {"threshold=soon", "'soon' is not a duration"},
            {"color=red", "unknown option 'color'"}, {"detectors=pins+gc", "unknown detector 'gc'"}
        }) {
            var e = assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse(bad[0]));
            assertTrue(e.getMessage().contains(bad[1]), e.getMessage());
            assertTrue(e.getMessage().contains("weft-agent options: interval=DURATION"), e.getMessage());
        }
    }
}
