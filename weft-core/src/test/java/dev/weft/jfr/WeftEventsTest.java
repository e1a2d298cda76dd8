package dev.weft.jfr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.testing.WeftRecordings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JFR events still in dev.weft.jfr (the pipeline's), in a real recording; the scope's and the limiter's are tested beside them. */
class WeftEventsTest {

    @TempDir
    Path dir;

    private List<RecordedEvent> record(Runnable body, String... enabled) throws IOException {
        return WeftRecordings.record(dir, body, enabled);
    }

    @Test
    void aPipelineStopCarriesHowItStopped() throws IOException {
        List<RecordedEvent> events = record(() -> PipelineStopEvent.emit("enrich", "completed", 100, 100),
                PipelineStopEvent.NAME);
        assertEquals(1, events.size());
        assertEquals("enrich", events.get(0).getString("name"));
        assertEquals("completed", events.get(0).getString("reason"));
        assertEquals(100, events.get(0).getLong("delivered"));
    }
}
