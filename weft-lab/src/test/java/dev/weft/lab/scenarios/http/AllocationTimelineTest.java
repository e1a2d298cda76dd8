package dev.weft.lab.scenarios.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * {@link AllocationTimeline#bytesBetween} on readings recorded by hand: exact readings, linear
 * interpolation between them, -1 outside what is kept, and the oldest readings dropped once more
 * than {@link AllocationTimeline#CAPACITY} were recorded.
 */
class AllocationTimelineTest {

    @Test
    void readsExactAndInterpolatedBytesBetweenTwoTimes() {
        AllocationTimeline t = new AllocationTimeline();
        t.record(1_000, 0);
        t.record(1_010, 1_000);
        t.record(1_020, 3_000);
        assertEquals(3_000, t.bytesBetween(1_000, 1_020), "two exact readings");
        assertEquals(500, t.bytesBetween(1_000, 1_005), "halfway to the second reading");
        assertEquals(1_500, t.bytesBetween(1_005, 1_015), "from 500 to 2,000 bytes, both interpolated");
        assertEquals(0, t.bytesBetween(1_010, 1_010), "an empty window");
    }

    @Test
    void answersMinusOneOutsideTheReadings() {
        AllocationTimeline t = new AllocationTimeline();
        assertEquals(-1, t.bytesBetween(0, 10), "no readings yet");
        t.record(1_000, 0);
        t.record(1_010, 1_000);
        assertEquals(-1, t.bytesBetween(999, 1_010), "starts before the first reading");
        assertEquals(-1, t.bytesBetween(1_000, 1_011), "ends after the last reading: still running");
        assertEquals(-1, t.bytesBetween(1_010, 1_000), "ends before it starts");
    }

    @Test
    void dropsTheOldestReadingsBeyondItsCapacity() {
        AllocationTimeline t = new AllocationTimeline();
        int n = AllocationTimeline.CAPACITY + 100;
        for (int i = 0; i < n; i++) {
            t.record(10L * i, 7L * i); // 7 bytes between readings 10 ms apart
        }
        assertEquals(-1, t.bytesBetween(0, 10L * (n - 1)), "the first 100 readings are gone");
        long oldest = 10L * 100;
        long newest = 10L * (n - 1);
        assertEquals(7L * (n - 1 - 100), t.bytesBetween(oldest, newest), "the oldest kept to the newest");
        assertEquals(7, t.bytesBetween(newest - 10, newest), "the last step, across the ring's seam");
        assertEquals(35, t.bytesBetween(newest - 55, newest - 5), "interpolated at both ends");
    }
}
