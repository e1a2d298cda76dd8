package dev.weft.thread.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void eachRangeHasItsUnitAndADecimalOnlyWhereItSaysSomething() {
        assertEquals("0 ms", Durations.human(Duration.ZERO));
        assertEquals("850 us", Durations.human(Duration.ofNanos(850_400)));
        assertEquals("1 ms", Durations.human(Duration.ofMillis(1)));
        assertEquals("12.5 ms", Durations.human(Duration.ofNanos(12_500_000)));
        assertEquals("850 ms", Durations.human(Duration.ofMillis(850)));
        assertEquals("1 s", Durations.human(Duration.ofMillis(1_000)));
        assertEquals("1.8 s", Durations.human(Duration.ofMillis(1_784)));
        assertEquals("30 s", Durations.human(Duration.ofSeconds(30)));
        assertEquals("10 min", Durations.human(Duration.ofMinutes(10)));
        assertEquals("-20 ms", Durations.human(Duration.ofMillis(-20)));
        assertEquals(Long.MAX_VALUE / 60 + " min", Durations.human(Duration.ofSeconds(Long.MAX_VALUE)));
    }

    @Test
    void parseReadsWhatPeopleWrite() {
        assertEquals(Duration.ofMillis(500), Durations.parse("500ms"));
        assertEquals(Duration.ofMillis(1_500), Durations.parse(" 1.5 s "));
        assertEquals(Duration.ofMinutes(5), Durations.parse("5m"));
        assertEquals(Duration.ofHours(1), Durations.parse("1H"));
        assertEquals(Duration.ofSeconds(30), Durations.parse("pt30s"));
        var e = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> Durations.parse("soon"));
        assertEquals("'soon' is not a duration; write e.g. 500ms, 30s, 5m, 1h or PT30S", e.getMessage());
    }
}
