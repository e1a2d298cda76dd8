package dev.weft.cli;

import java.io.IOException;
import java.lang.reflect.Method;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Another JVM's performance counters ({@code java.threads.live} and the like), read as
 * {@code jcmd <pid> PerfCounter.print} reads them: from the {@code hsperfdata} file the JVM maps,
 * not through the JVM (that command is the jcmd program's own, not a diagnostic command).
 *
 * <p>In-process this uses the JDK's {@code sun.jvmstat.monitor} (module
 * {@code jdk.internal.jvmstat}), which weft-cli's manifest exports to it ({@code Add-Exports}).
 * Without that export it falls back to the jcmd program through {@link DiagnosticCommands}; a
 * counter that cannot be read (a JVM run with {@code -XX:-UsePerfData}) is -1.
 */
final class PerfCounters implements AutoCloseable {

    private final DiagnosticCommands jvm;
    /** The target's {@code MonitoredVm}, or null when jvmstat is not accessible here. */
    private final Object monitoredVm;

    private final Method findByName;
    private final Method getValue;

    private PerfCounters(DiagnosticCommands jvm, Object monitoredVm, Method findByName, Method getValue) {
        this.jvm = jvm;
        this.monitoredVm = monitoredVm;
        this.findByName = findByName;
        this.getValue = getValue;
    }

    /** The counters of the JVM behind {@code jvm}. */
    static PerfCounters of(long pid, DiagnosticCommands jvm) {
        Module jvmstat = ModuleLayer.boot().findModule("jdk.internal.jvmstat").orElse(null);
        if (jvmstat != null && jvmstat.isExported("sun.jvmstat.monitor", PerfCounters.class.getModule())) {
            try {
                ClassLoader loader = jvmstat.getClassLoader();
                Class<?> hostType = Class.forName("sun.jvmstat.monitor.MonitoredHost", true, loader);
                Class<?> idType = Class.forName("sun.jvmstat.monitor.VmIdentifier", true, loader);
                Object host =
                        hostType.getMethod("getMonitoredHost", String.class).invoke(null, "localhost");
                Object id = idType.getConstructor(String.class).newInstance(Long.toString(pid));
                Object vm = hostType.getMethod("getMonitoredVm", idType).invoke(host, id);
                Class<?> vmType = Class.forName("sun.jvmstat.monitor.MonitoredVm", true, loader);
                Class<?> monitorType = Class.forName("sun.jvmstat.monitor.Monitor", true, loader);
                return new PerfCounters(
                        jvm, vm, vmType.getMethod("findByName", String.class), monitorType.getMethod("getValue"));
            } catch (ReflectiveOperationException | RuntimeException e) {
                // no hsperfdata file (-XX:-UsePerfData) or another layout: the jcmd route says what it can
            }
        }
        return new PerfCounters(jvm, null, null, null);
    }

    /** {@code {live, livePeak, started}} platform threads; -1 for a counter that cannot be read. */
    long[] threads() throws IOException {
        String[] names = {"java.threads.live", "java.threads.livePeak", "java.threads.started"};
        long[] values = new long[names.length];
        if (monitoredVm != null) {
            for (int i = 0; i < names.length; i++) {
                try {
                    Object monitor = findByName.invoke(monitoredVm, names[i]);
                    values[i] = monitor == null ? -1 : ((Number) getValue.invoke(monitor)).longValue();
                } catch (ReflectiveOperationException | RuntimeException e) {
                    values[i] = -1;
                }
            }
            return values;
        }
        String printed = jvm.inProcess() ? "" : jvm.run("PerfCounter.print");
        for (int i = 0; i < names.length; i++) {
            values[i] = counter(printed, names[i]);
        }
        return values;
    }

    static long counter(String printed, String name) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "=(\\d+)$").matcher(printed);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    @Override
    public void close() {
        if (monitoredVm != null) {
            try {
                monitoredVm.getClass().getMethod("detach").invoke(monitoredVm);
            } catch (ReflectiveOperationException | RuntimeException e) {
                // the mapping goes with the object either way
            }
        }
    }
}
