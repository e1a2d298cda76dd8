package dev.weft.lab;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Starting and ending the JVMs the lab runs scenarios and helpers in. */
public final class Jvm {

    private Jvm() {}

    /**
     * The SLF4J provider every lab JVM binds unless its arguments name another: slf4j-simple's.
     * The lab's classpath also holds Logback for the context scenario's JVM (decision 0842);
     * naming the provider keeps SLF4J from choosing between the two by classpath order. SLF4J
     * says at start-up which provider it was told to load unless its own verbosity is WARN.
     */
    public static final List<String> SLF4J_BINDING =
            List.of("-Dslf4j.provider=org.slf4j.simple.SimpleServiceProvider", "-Dslf4j.internal.verbosity=WARN");

    /** The java launcher of this JVM, so that children run on the same JDK. */
    public static String java() {
        return ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** {@code java <jvmArgs> -cp <classpath> <mainClass> <args>} with {@link #java()}. */
    public static List<String> command(List<String> jvmArgs, String classpath, String mainClass, List<String> args) {
        return command(java(), jvmArgs, classpath, mainClass, args);
    }

    /**
     * {@code <java> <jvmArgs> -cp <classpath> <mainClass> <args>}, with {@link #SLF4J_BINDING}
     * before {@code jvmArgs} unless they name an SLF4J provider themselves.
     */
    public static List<String> command(
            String java, List<String> jvmArgs, String classpath, String mainClass, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(java);
        if (jvmArgs.stream().noneMatch(a -> a.startsWith("-Dslf4j.provider="))) {
            command.addAll(SLF4J_BINDING);
        }
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.addAll(args);
        return command;
    }

    /**
     * Ends {@code process} and everything it started, by PID: politely first, forcibly after 5 s.
     * Only ever called on processes the lab started.
     */
    public static void stop(Process process) {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
