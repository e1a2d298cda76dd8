package dev.weft.thread;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ThreadPolicyTest {

    @AfterEach
    void clearProperty() {
        System.clearProperty(ThreadPolicy.PROPERTY);
    }

    @Test
    void parsesTheThreeNamesIgnoringCaseAndBlanks() {
        assertEquals(ThreadPolicy.VIRTUAL, ThreadPolicy.parse(" Virtual "));
        assertEquals(ThreadPolicy.PLATFORM, ThreadPolicy.parse("PLATFORM"));
        assertEquals(ThreadPolicy.AUTO, ThreadPolicy.parse("auto"));
    }

    @Test
    void unknownNameIsRejectedWithTheAcceptedValues() {
        var e = assertThrows(IllegalArgumentException.class, () -> ThreadPolicy.parse("green"));
        assertTrue(e.getMessage().contains("\"green\""), e.getMessage());
        assertTrue(e.getMessage().contains("virtual, platform or auto"), e.getMessage());
    }

    @Test
    void configuredFollowsTheSystemProperty() {
        assertEquals(ThreadPolicy.AUTO, ThreadPolicy.configured());
        System.setProperty(ThreadPolicy.PROPERTY, "platform");
        assertEquals(ThreadPolicy.PLATFORM, ThreadPolicy.configured());
        System.setProperty(ThreadPolicy.PROPERTY, "virtual");
        assertEquals(ThreadPolicy.VIRTUAL, ThreadPolicy.configured());
    }

    @Test
    void badPropertyValueNamesThePropertyAndTheFix() {
        System.setProperty(ThreadPolicy.PROPERTY, "fast");
        var e = assertThrows(IllegalArgumentException.class, ThreadPolicy::configured);
        assertTrue(e.getMessage().contains("weft.threads=fast"), e.getMessage());
        assertTrue(e.getMessage().contains("virtual, platform or auto"), e.getMessage());
    }

    @Test
    void autoIsVirtualOnAJvmWithContinuations() {
        assertTrue(ThreadPolicy.continuationsSupported());
        assertEquals(ThreadPolicy.VIRTUAL, ThreadPolicy.AUTO.resolve());
        assertEquals(ThreadPolicy.PLATFORM, ThreadPolicy.PLATFORM.resolve());
    }

    /** A JVM without continuations backs each virtual thread by an OS thread; auto must not use them. */
    @Test
    void autoIsPlatformOnAJvmWithoutContinuations() throws Exception {
        String out =
                runJava(List.of("-XX:+UnlockExperimentalVMOptions", "-XX:-VMContinuations"), AutoProbe.class.getName());
        assertEquals("false platform", out.strip());
    }

    static String runJava(List<String> jvmArgs, String mainClass) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        var command = new java.util.ArrayList<String>();
        command.add(java);
        command.addAll(jvmArgs);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        return out;
    }

    /** Prints what AUTO resolves to in a child JVM. */
    public static final class AutoProbe {
        public static void main(String[] args) {
            System.out.println(ThreadPolicy.continuationsSupported() + " " + ThreadPolicy.AUTO.resolve());
        }
    }
}
