package dev.weft.cli;

import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * Diagnostic commands ({@code jcmd}'s commands: {@code JFR.start}, {@code Thread.vthread_scheduler}, ...)
 * run in another JVM through the attach API, with nothing else started in it: no JMX agent, no
 * TCP port (decision 0205).
 *
 * <p>The attach API's public surface has no method for a diagnostic command; HotSpot's
 * {@code sun.tools.attach.HotSpotVirtualMachine.executeJCmd(String)} does it, and is usable when
 * {@code jdk.attach} exports {@code sun.tools.attach} to weft (weft-cli's jar manifest carries
 * {@code Add-Exports: jdk.attach/sun.tools.attach}, read by {@code java -jar}). Without that export
 * (weft-cli on a plain class path) each command runs the {@code jcmd} program of the JDK weft runs
 * on, which speaks the same protocol. Either way the target sees the same operation.
 */
final class DiagnosticCommands implements AutoCloseable {

    private static final String HOTSPOT_VM = "sun.tools.attach.HotSpotVirtualMachine";

    private final long pid;
    private final VirtualMachine vm;
    /** {@code executeJCmd}, or null when the package is not exported to us: then the jcmd program runs. */
    private final Method executeJCmd;

    private DiagnosticCommands(long pid, VirtualMachine vm, Method executeJCmd) {
        this.pid = pid;
        this.vm = vm;
        this.executeJCmd = executeJCmd;
    }

    /**
     * Attaches to JVM {@code pid}.
     *
     * @throws com.sun.tools.attach.AttachNotSupportedException if it is not an attachable JVM
     * @throws IOException if attaching fails
     */
    static DiagnosticCommands attach(long pid) throws com.sun.tools.attach.AttachNotSupportedException, IOException {
        VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
        return new DiagnosticCommands(pid, vm, executeJCmdOf(vm));
    }

    /** Whether commands go through the attach API in this process (true) or the jcmd program (false). */
    boolean inProcess() {
        return executeJCmd != null;
    }

    /** The target's system properties (read through the attach API, as {@code jcmd VM.system_properties}). */
    Properties systemProperties() throws IOException {
        return vm.getSystemProperties();
    }

    /**
     * Runs {@code command} (for example {@code "JFR.check"}) in the target and returns what it printed.
     * A command the target does not know returns its message (for example
     * {@code "java.lang.IllegalArgumentException: Unknown diagnostic command"}) rather than failing:
     * callers look at the text, as a jcmd user does.
     *
     * @throws IOException if the target cannot be reached (it ended, the connection failed)
     */
    String run(String command) throws IOException {
        if (executeJCmd != null) {
            try (InputStream in = (InputStream) executeJCmd.invoke(vm, command)) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (cause instanceof IOException io) {
                    // AttachOperationFailedException (an IOException) carries the command's own message
                    if (cause.getClass().getSimpleName().equals("AttachOperationFailedException")) {
                        return String.valueOf(cause.getMessage());
                    }
                    throw io;
                }
                throw new IOException("the diagnostic command '" + command + "' failed: " + cause, cause);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("executeJCmd became inaccessible: " + e, e);
            }
        }
        return runJcmdProgram(command);
    }

    private String runJcmdProgram(String command) throws IOException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (!Files.isExecutable(jcmd)) {
            throw new IOException(
                    "weft-cli runs on a class path without --add-exports jdk.attach/sun.tools.attach=ALL-UNNAMED"
                            + " and its runtime has no " + jcmd
                            + "; run it as java -jar weft-cli.jar (the manifest exports it)"
                            + " or pass that option to java");
        }
        List<String> cmd = new ArrayList<>(List.of(jcmd.toString(), Long.toString(pid)));
        cmd.addAll(List.of(command.split(" ")));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output;
        try (InputStream in = p.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(jcmd + " " + command + " did not end in 60 s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while " + jcmd + " ran " + command, e);
        }
        // jcmd prints "<pid>:" before the command's own output
        String head = pid + ":";
        String body = output.startsWith(head) ? output.substring(head.length()).stripLeading() : output;
        if (p.exitValue() != 0 && body.isBlank()) {
            throw new IOException(jcmd + " " + command + " exited with " + p.exitValue());
        }
        return body;
    }

    private static Method executeJCmdOf(VirtualMachine vm) {
        Module attach = VirtualMachine.class.getModule();
        if (!attach.isExported("sun.tools.attach", DiagnosticCommands.class.getModule())) {
            return null;
        }
        try {
            Class<?> hotspot = Class.forName(HOTSPOT_VM, false, VirtualMachine.class.getClassLoader());
            return hotspot.isInstance(vm) ? hotspot.getMethod("executeJCmd", String.class) : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // not HotSpot: the jcmd program says what it can
        }
    }

    /** Detaches; the target keeps nothing of this connection but its attach listener (a Unix socket). */
    @Override
    public void close() throws IOException {
        vm.detach();
    }
}
