package dev.weft.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weft.pin.PinMonitor;
import dev.weft.scheduler.SchedulerSnapshot;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.lang.module.FindException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Exports;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java library modules' descriptors (module-info.java, decision 0107) as a user on the module
 * path meets them: each exports exactly its API packages to everyone and its internal packages
 * only to weft's modules; a consumer module compiles against the API and runs, and fails to
 * compile against an internal package, which the same source on the class path still reaches.
 * The modules are the ones this test's class path holds (weft-build-test depends on them).
 */
class ModulePathTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /** artifact -> module name and the packages it exports to every module (its API). */
    private static final Map<String, Map.Entry<String, Set<String>>> API = new LinkedHashMap<>();

    static {
        API.put(
                "weft-core",
                Map.entry(
                        "dev.weft.core",
                        Set.of(
                                "dev.weft.context",
                                "dev.weft.jfr",
                                "dev.weft.limit",
                                "dev.weft.scope",
                                "dev.weft.thread")));
        API.put("weft-pool", Map.entry("dev.weft.pool", Set.of("dev.weft.pool")));
        API.put(
                "weft-diagnostics",
                Map.entry("dev.weft.diagnostics", Set.of("dev.weft.pin", "dev.weft.recording", "dev.weft.scheduler")));
        API.put("weft-jdbc", Map.entry("dev.weft.jdbc", Set.of("dev.weft.jdbc")));
        API.put("weft-junit", Map.entry("dev.weft.junit", Set.of("dev.weft.junit")));
        API.put("weft-audit", Map.entry("dev.weft.audit", Set.of("dev.weft.audit")));
    }

    /** The explicit (non-automatic) modules on this test's class path, by name. */
    private static Map<String, ModuleReference> modulesOnTheClassPath() {
        Map<String, ModuleReference> found = new LinkedHashMap<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (!Files.exists(p) || (Files.isDirectory(p) && !Files.exists(p.resolve("module-info.class")))) {
                continue; // a directory without a descriptor would be read as a directory of modules
            }
            try {
                for (ModuleReference m : ModuleFinder.of(p).findAll()) {
                    if (!m.descriptor().isAutomatic()) {
                        found.putIfAbsent(m.descriptor().name(), m);
                    }
                }
            } catch (FindException notAModule) {
                // a jar whose automatic name cannot be derived: not one of weft's
            }
        }
        return found;
    }

    private static ModuleReference module(Map<String, ModuleReference> modules, String artifact) {
        String name = API.get(artifact).getKey();
        ModuleReference m = modules.get(name);
        assertNotNull(
                m,
                artifact + " has no module descriptor (module-info.class) named " + name
                        + " on weft-build-test's class path; explicit modules found: " + modules.keySet());
        return m;
    }

    /** Every reactor module's weft.module.name (its Automatic-Module-Name, or its descriptor's name). */
    private static Set<String> weftModuleNames() throws IOException {
        Set<String> names = new TreeSet<>();
        Matcher module = Pattern.compile("<module>([^<]+)</module>").matcher(Files.readString(ROOT.resolve("pom.xml")));
        while (module.find()) {
            Path pom = ROOT.resolve(module.group(1)).resolve("pom.xml");
            Matcher name = Pattern.compile("<weft.module.name>([^<]+)</weft.module.name>")
                    .matcher(Files.readString(pom));
            if (name.find()) {
                names.add(name.group(1));
            }
        }
        return names;
    }

    @Test
    void eachLibraryExportsItsApiToEveryoneAndItsInternalsOnlyToWeftsModules() throws IOException {
        Map<String, ModuleReference> modules = modulesOnTheClassPath();
        Set<String> weftModules = weftModuleNames();
        for (String artifact : API.keySet()) {
            ModuleDescriptor d = module(modules, artifact).descriptor();
            String pom = Files.readString(ROOT.resolve(artifact).resolve("pom.xml"));
            assertTrue(
                    pom.contains("<weft.module.name>" + d.name() + "</weft.module.name>"),
                    artifact + ": its descriptor's name " + d.name() + " must be its <weft.module.name>, the"
                            + " Automatic-Module-Name users' requires name");
            Set<String> api = new TreeSet<>();
            for (Exports e : d.exports()) {
                if (e.isQualified()) {
                    assertTrue(
                            e.source().endsWith(".internal"),
                            d.name() + " exports " + e.source()
                                    + " to some modules: only a dev.weft...internal package is exported that way");
                    assertTrue(
                            weftModules.containsAll(e.targets()),
                            d.name() + " exports " + e.source() + " to " + e.targets()
                                    + ": each must be a weft module's name (" + weftModules + ")");
                } else {
                    api.add(e.source());
                }
            }
            assertEquals(
                    new TreeSet<>(API.get(artifact).getValue()), api, d.name() + ": the packages exported to everyone");
            Set<String> hidden = new TreeSet<>(d.packages());
            hidden.removeAll(api);
            assertTrue(
                    hidden.stream().allMatch(p -> p.endsWith(".internal")),
                    d.name() + ": every package it does not export to everyone is named ...internal; found " + hidden);
            assertTrue(d.opens().isEmpty() && !d.isOpen(), d.name() + " opens nothing to reflection");
        }
        Set<String> core = module(modules, "weft-core").descriptor().packages();
        for (String diagnostics : API.get("weft-diagnostics").getValue()) {
            assertFalse(
                    core.contains(diagnostics),
                    "weft-core holds " + diagnostics + ": diagnostics are weft-diagnostics'");
        }
    }

    private static final String USER = """
            package consumer;

            import dev.weft.context.ContextKey;
            import dev.weft.context.Context;
            import dev.weft.limit.Limiter;
            import dev.weft.pin.PinCapture;
            import dev.weft.pin.PinProbe;
            import dev.weft.pool.Pool;
            import dev.weft.pool.ResourceFactory;
            import dev.weft.scheduler.SchedulerSnapshot;
            import dev.weft.scope.Scope;
            import dev.weft.scope.Subtask;
            import java.time.Duration;
            import java.util.concurrent.atomic.AtomicInteger;

            public class Main {
                static final ContextKey<String> USER = ContextKey.of("user");

                public static void main(String[] args) throws Exception {
                    AtomicInteger made = new AtomicInteger();
                    Limiter limiter = Limiter.of("db", 2);
                    try (Pool<Integer> pool = Pool.builder("numbers", ResourceFactory.of(made::incrementAndGet, n -> { }))
                            .maxSize(1).build()) {
                        String seen = Context.where(USER, "ada").call(() -> {
                            try (Scope scope = Scope.open()) {
                                Subtask<String> task = scope.fork(() -> {
                                    try (var lease = pool.borrow(); var permit = limiter.acquire()) {
                                        return USER.get() + " on a " + (Thread.currentThread().isVirtual() ? "virtual" : "platform")
                                                + " thread, resource " + lease.get();
                                    }
                                });
                                scope.join();
                                return task.get();
                            }
                        });
                        System.out.println(seen);
                    }
                    PinCapture capture = PinCapture.start();
                    PinProbe.pinVirtualThread(Duration.ofMillis(15));
                    System.out.println("pins: " + capture.end().pins());
                    System.out.println("scheduler bean: " + SchedulerSnapshot.take().schedulerAvailable());
                }
            }
            """;

    private static final String INTRUDER = """
            package consumer;

            public class Intruder {
                public static void main(String[] args) {
                    System.out.println(dev.weft.thread.internal.Durations.human(java.time.Duration.ofMillis(1500)));
                    System.out.println(dev.weft.pin.internal.PinAggregator.DEFAULT_TOP_FRAMES);
                }
            }
            """;

    private static final String DESCRIPTOR = """
            module consumer {
                requires dev.weft.core;
                requires dev.weft.pool;
                requires dev.weft.diagnostics;
            }
            """;

    private record Compiled(boolean ok, String diagnostics) {}

    private static Compiled javac(Path out, List<String> options, Path... sources) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> args = new ArrayList<>(options);
        args.addAll(List.of("-d", out.toString(), "-proc:none"));
        for (Path s : sources) {
            args.add(s.toString());
        }
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int exit = javac.run(null, diagnostics, diagnostics, args.toArray(String[]::new));
        return new Compiled(exit == 0, diagnostics.toString(StandardCharsets.UTF_8));
    }

    private static Path write(Path dir, String relative, String text) throws IOException {
        Path f = dir.resolve(relative);
        Files.createDirectories(f.getParent());
        Files.writeString(f, text);
        return f;
    }

    /** weft-core, weft-pool and weft-diagnostics, where this test's class path has them (jar or classes folder). */
    private static String weftModulePath(Map<String, ModuleReference> modules) {
        return List.of("weft-core", "weft-pool", "weft-diagnostics").stream()
                .map(a -> Path.of(module(modules, a).location().orElseThrow()).toString())
                .collect(Collectors.joining(File.pathSeparator));
    }

    @Test
    void aUserModuleCompilesAgainstTheApiAndRunsButCannotReachAnInternalPackage(@TempDir Path dir) throws Exception {
        assumeTrue(PinMonitor.isAvailable(), "the consumer captures a pin: this runtime has no JFR");
        assumeTrue(
                ModuleLayer.boot().findModule("jdk.compiler").isPresent(),
                "compiling the consumer needs javac: this runtime (" + Runtime.version() + ") has no jdk.compiler;"
                        + " the unit tier runs this test on the build JDK");
        String weft = weftModulePath(modulesOnTheClassPath());

        Path src = dir.resolve("src");
        Path main = write(src, "consumer/Main.java", USER);
        Path descriptor = write(src, "module-info.java", DESCRIPTOR);
        Path classes = dir.resolve("classes");
        Compiled api = javac(classes, List.of("--module-path", weft), descriptor, main);
        assertTrue(
                api.ok(),
                "a module requiring dev.weft.core, dev.weft.pool and dev.weft.diagnostics compiles against"
                        + " their API:\n" + api.diagnostics());

        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "--module-path",
                        classes + File.pathSeparator + weft,
                        "--module",
                        "consumer/consumer.Main")
                .redirectOutput(dir.resolve("consumer.out").toFile())
                .redirectError(dir.resolve("consumer.err").toFile())
                .start();
        try {
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the consumer ended within a minute");
        } finally {
            p.destroyForcibly();
        }
        String output = Files.readString(dir.resolve("consumer.out"));
        String errors = Files.readString(dir.resolve("consumer.err"));
        assertEquals(0, p.exitValue(), "the consumer runs on the module path:\n" + output + errors);
        // The scheduler's MXBean (JDK 24+, module jdk.management, read reflectively) is found on
        // the module path exactly when it is on this class path.
        boolean bean = SchedulerSnapshot.take().schedulerAvailable();
        assertEquals(
                List.of("ada on a virtual thread, resource 1", "pins: 1", "scheduler bean: " + bean),
                output.lines().toList(),
                "the consumer's output: context, scope, pool and limiter from weft-core and"
                        + " weft-pool; a pin captured over JFR and a scheduler snapshot from weft-diagnostics\n"
                        + errors);

        Path intruder = write(src, "consumer/Intruder.java", INTRUDER);
        Compiled internal = javac(dir.resolve("intruder"), List.of("--module-path", weft), descriptor, intruder);
        assertFalse(internal.ok(), "a user module must not compile against weft's internal packages");
        for (String pkg : List.of("dev.weft.thread.internal", "dev.weft.pin.internal")) {
            assertTrue(
                    internal.diagnostics().contains("package " + pkg + " is not visible"),
                    pkg + " is not visible to a user module:\n" + internal.diagnostics());
        }

        String classPath = weft; // the same folders and jars, now on the class path: nothing is enforced there
        Compiled unnamed = javac(dir.resolve("classpath"), List.of("-classpath", classPath), main, intruder);
        assertTrue(
                unnamed.ok(),
                "on the class path the descriptors change nothing, internal packages included:\n"
                        + unnamed.diagnostics());
    }
}
