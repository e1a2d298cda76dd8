package dev.weft.lab;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The contract of results.json, {@code doc/results.schema.json} (JSON Schema 2020-12), checked
 * with networknt's json-schema-validator: every test that runs the lab validates what it wrote.
 */
public final class ResultsSchema {

    /** The schema, read from the repository's doc folder (tests run in the module's folder). */
    public static final Path FILE = Path.of("..", "doc", "results.schema.json");

    private static final JsonSchema SCHEMA = load();

    private ResultsSchema() {}

    private static JsonSchema load() {
        try (InputStream in = Files.newInputStream(FILE)) {
            return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
                    .getSchema(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the results.json schema at " + FILE.toAbsolutePath(), e);
        }
    }

    /** Every violation of the schema in {@code json}, empty when it conforms. */
    public static Set<String> violations(JsonNode json) {
        return SCHEMA.validate(json).stream().map(ValidationMessage::getMessage).collect(Collectors.toSet());
    }

    /** Fails the test, listing the violations, unless the results.json at {@code file} conforms. */
    public static void assertValid(Path file) throws IOException {
        Set<String> violations = violations(new ObjectMapper().readTree(file.toFile()));
        if (!violations.isEmpty()) {
            fail(file + " does not conform to " + FILE + ":\n  " + String.join("\n  ", violations));
        }
    }
}
