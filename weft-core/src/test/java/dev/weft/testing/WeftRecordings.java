package dev.weft.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/** The JFR tests' one recording helper: weft's events of a body, read back from a real recording file. */
public final class WeftRecordings {

    private WeftRecordings() {}

    /**
     * Runs {@code body} in a recording with the events named {@code enabled} on, dumps it to
     * {@code dir}/weft.jfr and returns weft's events ({@code dev.weft.*}) from the file.
     */
    public static List<RecordedEvent> record(Path dir, Runnable body, String... enabled) throws IOException {
        Path file = dir.resolve("weft.jfr");
        try (Recording r = new Recording()) {
            for (String name : enabled) {
                r.enable(name);
            }
            r.start();
            body.run();
            r.stop();
            r.dump(file);
        }
        return RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().startsWith("dev.weft."))
                .toList();
    }
}
