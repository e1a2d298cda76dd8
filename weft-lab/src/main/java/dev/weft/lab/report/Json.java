package dev.weft.lab.report;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;

/** The lab's JSON: snake_case keys, nulls kept (a missing limit is {@code null}), indented. */
public final class Json {

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private Json() {}

    /** Writes {@code value} to {@code file}. */
    public static void write(Path file, Object value) throws IOException {
        MAPPER.writeValue(file.toFile(), value);
    }

    /** Reads a {@code type} from {@code file}. */
    public static <T> T read(Path file, Class<T> type) throws IOException {
        return MAPPER.readValue(file.toFile(), type);
    }

    /** {@code value} as JSON on one line (a {@link dev.weft.lab.ChildJvm} message's payload). */
    public static String line(Object value) throws IOException {
        return MAPPER.writer().without(SerializationFeature.INDENT_OUTPUT).writeValueAsString(value);
    }

    /** Reads a {@code type} from the JSON text {@code json}. */
    public static <T> T parse(String json, Class<T> type) throws IOException {
        return MAPPER.readValue(json, type);
    }

    /** {@code value} as a JSON string. */
    public static String string(Object value) throws IOException {
        return MAPPER.writeValueAsString(value);
    }
}
