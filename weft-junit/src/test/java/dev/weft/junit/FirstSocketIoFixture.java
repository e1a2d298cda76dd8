package dev.weft.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The README's {@code @NoPins} example as a user writes it: the test fetches a page over loopback,
 * the JVM's first socket I/O on a virtual thread (JDK 25 starts its pollers then). Run by
 * {@link FreshJvmNoPinsTest} in fresh JVMs; its name keeps Surefire from running it directly.
 */
@NoPins
class FirstSocketIoFixture {

    @Test
    void fetchDoesNotPin() throws Exception {
        try (InputStream in =
                URI.create(System.getProperty("fixture.url")).toURL().openStream()) {
            assertEquals("hi", new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }
}
