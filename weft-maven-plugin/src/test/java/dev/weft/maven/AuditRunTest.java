package dev.weft.maven;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.audit.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuditRunTest {

    /** A jar with one synchronized method that reads a socket: an error at 21-23, information from 24. */
    private static Path socketJar(Path dir) throws Exception {
        String name = Fixtures.PACKAGE + "SocketRead.class";
        return Fixtures.jar(
                dir.resolve("app.jar"), Map.of(name, Fixtures.classes().get(name)));
    }

    @Test
    void aSocketReadUnderAMonitorFailsAt21AndPassesAt25(@TempDir Path dir) throws Exception {
        Path jar = socketJar(dir);
        Path sarif = dir.resolve("target/weft-audit.sarif");
        List<String> log = new ArrayList<>();
        AuditRun.Outcome at21 = new AuditRun(
                        List.of(jar.toString()), List.of(), false, 21, "error", null, List.of(), sarif)
                .run(log::add);
        assertTrue(at21.failed(), at21.toString());
        assertTrue(
                at21.summary()
                        .startsWith(
                                "weft audit: 1 errors, 0 warnings, 0 info at target JDK 21 (failOn error): fix them"),
                at21.summary());
        assertTrue(
                log.stream().anyMatch(l -> l.contains("SocketRead.next") && l.contains("[synchronized-blocking]")),
                log.toString());
        assertTrue(
                Files.readString(sarif).contains("\"ruleId\" : \"synchronized-blocking\"")
                        || Files.readString(sarif).contains("\"ruleId\":\"synchronized-blocking\""),
                Files.readString(sarif));

        AuditRun.Outcome at25 = new AuditRun(
                        List.of(jar.toString()), List.of(), false, 25, "error", null, List.of(), sarif)
                .run(l -> {});
        assertFalse(at25.failed(), at25.toString());
        assertEquals("weft audit: 0 errors, 0 warnings, 1 info at target JDK 25 (failOn error)", at25.summary());
    }

    @Test
    void excludesAndFailOnNoneLetTheBuildPass(@TempDir Path dir) throws Exception {
        Path jar = socketJar(dir);
        Path sarif = dir.resolve("weft-audit.sarif");
        assertFalse(new AuditRun(
                        List.of(jar.toString()),
                        List.of(),
                        false,
                        21,
                        "error",
                        null,
                        List.of(Fixtures.PACKAGE.replace('/', '.') + "SocketRead = reviewed"),
                        sarif)
                .run(l -> {})
                .failed());
        assertFalse(new AuditRun(List.of(jar.toString()), List.of(), false, 21, "none", null, List.of(), sarif)
                .run(l -> {})
                .failed());
        assertThrows(
                IllegalArgumentException.class,
                () -> new AuditRun(List.of(jar.toString()), List.of(), false, 21, "fatal", null, List.of(), sarif));
    }

    @Test
    void dependenciesAreFollowedAndWithIncludeDependenciesReported(@TempDir Path dir) throws Exception {
        Map<String, byte[]> all = Fixtures.classes();
        Path app = Fixtures.jar(
                dir.resolve("app.jar"),
                Map.of(Fixtures.PACKAGE + "Dispatcher.class", all.get(Fixtures.PACKAGE + "Dispatcher.class")));
        Path lib = Fixtures.jar(
                dir.resolve("lib.jar"),
                Map.of(
                        Fixtures.PACKAGE + "Transport.class", all.get(Fixtures.PACKAGE + "Transport.class"),
                        Fixtures.PACKAGE + "SocketTransport.class", all.get(Fixtures.PACKAGE + "SocketTransport.class"),
                        Fixtures.PACKAGE + "SocketRead.class", all.get(Fixtures.PACKAGE + "SocketRead.class")));
        Path sarif = dir.resolve("weft-audit.sarif");
        AuditRun.Outcome followed = new AuditRun(
                        List.of(app.toString()), List.of(lib.toString()), false, 21, "error", null, List.of(), sarif)
                .run(l -> {});
        assertTrue(
                followed.summary().startsWith("weft audit: 1 errors"), "the app's call into the library: " + followed);
        AuditRun.Outcome included = new AuditRun(
                        List.of(app.toString()), List.of(lib.toString()), true, 21, "error", null, List.of(), sarif)
                .run(l -> {});
        assertTrue(included.summary().startsWith("weft audit: 2 errors"), "and the library's own: " + included);
    }

    @Test
    void theTargetIsTheConfiguredOneElseTheRelease() {
        assertEquals(22, AuditRun.targetJdk(22, "21"));
        assertEquals(21, AuditRun.targetJdk(null, "21"));
        assertEquals(Runtime.version().feature(), AuditRun.targetJdk(null, null));
        assertThrows(IllegalArgumentException.class, () -> AuditRun.targetJdk(null, "${java.version}"));
    }
}
