package dev.weft.audit;

import dev.weft.audit.ClassScanner.Call;
import dev.weft.audit.ClassScanner.ClassSummary;
import dev.weft.audit.ClassScanner.MethodSummary;
import dev.weft.audit.ClassScanner.Sig;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.FieldNode;

/**
 * Audits bytecode for what pins or hurts virtual threads on a target JDK (see {@link Rule}).
 *
 * <p>The audit is static and whole-program over its inputs: a call counts as blocking when it is
 * a known parking JDK operation ({@code Thread.sleep}, {@code Object.wait}, lock, latch, queue,
 * future and socket waits, ...) or when it leads to one through methods of the audited classes.
 * Calls are resolved by their declared owner and its audited supertypes; calls through an
 * interface or an abstract method (whose implementation is only known at run time) are not
 * followed, so the audit can miss hazards but what it reports is on a real path.
 *
 * <pre>{@code
 * AuditReport report = Auditor.forTargetJdk(21).audit(List.of("target/app.jar"));
 * System.out.println(report.toText());
 * Files.writeString(Path.of("weft-audit.sarif"), report.toSarif());
 * }</pre>
 *
 * <p>An auditor holds no state between audits and may be used from several threads.
 */
public final class Auditor {

    /** The oldest JDK with virtual threads. */
    public static final int MIN_TARGET_JDK = 21;

    private final int targetJdk;

    private Auditor(int targetJdk) {
        this.targetJdk = targetJdk;
    }

    /**
     * An auditor for code that will run on JDK {@code targetJdk}: monitors pin only before JDK 24,
     * so {@link Rule#SYNCHRONIZED_BLOCKING} and {@link Rule#OBJECT_WAIT} are errors for 21-23 and
     * information from 24.
     *
     * @throws IllegalArgumentException if {@code targetJdk} is older than 21 (no virtual threads)
     */
    public static Auditor forTargetJdk(int targetJdk) {
        if (targetJdk < MIN_TARGET_JDK) {
            throw new IllegalArgumentException("target JDK " + targetJdk + " has no virtual threads; give "
                    + MIN_TARGET_JDK + " or newer");
        }
        return new Auditor(targetJdk);
    }

    /** An auditor for the JDK this runs on. */
    public static Auditor forRunningJdk() {
        return forTargetJdk(Runtime.version().feature());
    }

    /** The JDK the audited code will run on. */
    public int targetJdk() {
        return targetJdk;
    }

    /**
     * Audits jars, folders of classes and jars, class files, and classpaths of them.
     *
     * @throws IllegalArgumentException if an input does not exist or is none of those
     * @throws IOException              if reading an input fails
     */
    public AuditReport audit(List<String> inputs) throws IOException {
        return audit(inputs, List.of());
    }

    /**
     * Audits {@code inputs}, following calls into {@code classpath} (the libraries they use) to
     * see what blocks, without reporting the libraries' own hazards. Both take the same kinds of
     * entries.
     *
     * @throws IllegalArgumentException if an entry does not exist or is none of those kinds
     * @throws IOException              if reading an entry fails
     */
    public AuditReport audit(List<String> inputs, List<String> classpath) throws IOException {
        Objects.requireNonNull(inputs, "inputs");
        Objects.requireNonNull(classpath, "classpath");
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("nothing to audit: give jars, folders of classes, .class files or a classpath");
        }
        long start = System.nanoTime();
        ClassSource audited = new ClassSource(targetJdk);
        for (String input : inputs) {
            audited.add(input);
        }
        ClassSource libraries = new ClassSource(targetJdk);
        for (String entry : classpath) {
            libraries.add(entry);
        }
        List<String> problems = new ArrayList<>();
        Map<String, ClassSummary> classes = new HashMap<>();
        int[] duplicates = {0};
        long bytes = read(audited, classes, problems, duplicates);
        int auditedClasses = classes.size();
        Set<String> auditedNames = new HashSet<>(classes.keySet());
        bytes += read(libraries, classes, problems, new int[1]);
        if (duplicates[0] > 0) {
            problems.add(duplicates[0] + " classes appeared more than once in the inputs; the first of each was audited");
        }
        List<Finding> findings = new Analysis(classes, auditedNames).findings();
        return new AuditReport(audited.inputs(), targetJdk, auditedClasses, bytes,
                Duration.ofNanos(System.nanoTime() - start), findings, problems);
    }

    /**
     * Parses every class of {@code source} into {@code classes} (a class already there wins);
     * returns the bytes read.
     */
    private static long read(ClassSource source, Map<String, ClassSummary> classes, List<String> problems,
                             int[] duplicates) {
        long bytes = 0;
        // Parsing is most of the work and each class stands alone: parse in parallel, keep input order.
        List<Object> scanned = source.classes().parallelStream().map(Auditor::scan).toList();
        for (int i = 0; i < scanned.size(); i++) {
            bytes += source.classes().get(i).bytes().length;
            if (scanned.get(i) instanceof ClassSummary c) {
                if (classes.putIfAbsent(c.name(), c) != null) {
                    duplicates[0]++;
                }
            } else {
                problems.add((String) scanned.get(i));
            }
        }
        return bytes;
    }

    /** The class's summary, or a line saying why it could not be read. */
    private static Object scan(ClassSource.ClassFile f) {
        try {
            return ClassScanner.scan(f.bytes(), f.input());
        } catch (RuntimeException e) {
            return f.input() + ": " + f.name() + " could not be read as a class file (" + e + "); not audited";
        }
    }

    /** The whole-program part: hierarchy, call resolution, blocking reachability, findings. */
    private final class Analysis {
        private final Map<String, ClassSummary> classes;
        private final Set<String> audited;
        private final Hierarchy hierarchy = new Hierarchy();
        private final Map<Sig, MethodSummary> methods = new HashMap<>();
        /** Every method, in a fixed order, so that paths come out the same on every run. */
        private final List<MethodSummary> ordered = new ArrayList<>();
        private final Map<Sig, Optional<Blocking.Kind>> blockingCalls = new HashMap<>();
        private final Map<Sig, Optional<MethodSummary>> resolved = new HashMap<>();
        /**
         * Per kind of blocking, for each method that leads to it: the next method on its shortest
         * path there, or the blocking call itself.
         */
        private final Map<Blocking.Kind, Map<Sig, Step>> toBlocking = new EnumMap<>(Blocking.Kind.class);
        private final List<Finding> findings = new ArrayList<>();

        private record Step(MethodSummary via, Call blockingCall) {
        }

        Analysis(Map<String, ClassSummary> classes, Set<String> audited) {
            this.classes = classes;
            this.audited = audited;
            for (ClassSummary c : classes.values()) {
                hierarchy.add(c.name(), c.superName(), c.interfaces());
                for (MethodSummary m : c.methods()) {
                    methods.put(m.sig(), m);
                }
            }
            ordered.addAll(methods.values());
            ordered.sort(Comparator.comparing(MethodSummary::owner).thenComparing(MethodSummary::name)
                    .thenComparing(MethodSummary::desc));
        }

        List<Finding> findings() {
            for (Blocking.Kind kind : Blocking.Kind.values()) {
                toBlocking.put(kind, reachability(kind));
            }
            List<ClassSummary> sorted = new ArrayList<>(classes.values());
            sorted.removeIf(c -> !audited.contains(c.name())); // the classpath is followed, not reported
            sorted.sort(Comparator.comparing(ClassSummary::name));
            for (ClassSummary c : sorted) {
                fields(c);
                for (MethodSummary m : c.methods()) {
                    method(c, m);
                }
            }
            // One finding per rule and source line: the first call there (in bytecode order) stands for the rest.
            Set<List<Object>> seen = new HashSet<>();
            List<Finding> unique = new ArrayList<>();
            for (Finding f : findings) {
                if (seen.add(List.of(f.rule(), f.className(), f.member(), f.descriptor(), f.line()))) {
                    unique.add(f);
                }
            }
            unique.sort(Comparator.comparing(Finding::severity).thenComparing(Finding::className)
                    .thenComparing(Finding::member).thenComparingInt(Finding::line).thenComparing(f -> f.rule().id()));
            return List.copyOf(unique);
        }

        /**
         * Breadth-first from the methods that block this way directly, along reversed calls: for
         * every method that leads to such blocking, the first step of a shortest path.
         */
        private Map<Sig, Step> reachability(Blocking.Kind kind) {
            Map<Sig, Step> steps = new HashMap<>();
            Map<Sig, List<MethodSummary>> callers = new HashMap<>();
            Deque<MethodSummary> queue = new ArrayDeque<>();
            for (MethodSummary m : ordered) {
                for (Call c : m.calls()) {
                    if (kind(c) == kind) {
                        if (!steps.containsKey(m.sig())) {
                            steps.put(m.sig(), new Step(null, c));
                            queue.add(m);
                        }
                    } else {
                        MethodSummary target = resolve(c);
                        if (target != null) {
                            callers.computeIfAbsent(target.sig(), k -> new ArrayList<>()).add(m);
                        }
                    }
                }
            }
            while (!queue.isEmpty()) {
                MethodSummary t = queue.removeFirst();
                for (MethodSummary caller : callers.getOrDefault(t.sig(), List.of())) {
                    if (!steps.containsKey(caller.sig())) {
                        steps.put(caller.sig(), new Step(t, null));
                        queue.add(caller);
                    }
                }
            }
            return steps;
        }

        private void fields(ClassSummary c) {
            for (FieldNode f : c.fields()) {
                Type t = Type.getType(f.desc);
                if (t.getSort() == Type.OBJECT && hierarchy.isA(t.getInternalName(), "java/lang/ThreadLocal")) {
                    add(Rule.THREAD_LOCAL_FIELD, c, f.name, f.desc, -1,
                            ((f.access & Opcodes.ACC_STATIC) != 0 ? "static field " : "field ") + f.name
                                    + " holds a " + simple(t.getInternalName()) + ": one value per thread that uses it",
                            List.of());
                }
            }
        }

        private void method(ClassSummary c, MethodSummary m) {
            if ((m.access() & Opcodes.ACC_NATIVE) != 0) {
                add(Rule.NATIVE_METHOD, c, m.name(), m.desc(), -1,
                        "native method " + m.name() + m.desc() + ": a virtual thread running it cannot unmount", List.of());
            }
            for (int line : m.spinningYields()) {
                add(Rule.THREAD_YIELD_SPIN, c, m.name(), m.desc(), line, "calls Thread.yield in a loop", List.of());
            }
            boolean clinit = m.name().equals("<clinit>");
            for (Call call : m.calls()) {
                if (Blocking.isObjectWait(call.name(), call.desc())) {
                    add(Rule.OBJECT_WAIT, c, m.name(), m.desc(), call.line(), "calls Object.wait", List.of());
                }
                if (call.owner().equals("java/lang/foreign/Linker") && call.name().equals("upcallStub")) {
                    add(Rule.NATIVE_UPCALL, c, m.name(), m.desc(), call.line(),
                            "creates an upcall stub: Java code that native code calls back runs under a native frame",
                            List.of());
                }
                if (clinit || call.inMonitor()) {
                    Blocking.Kind kind = Blocking.Kind.WAITS;
                    List<String> path = pathFrom(call, kind);
                    if (path.isEmpty()) {
                        kind = Blocking.Kind.LOCKS;
                        path = pathFrom(call, kind);
                    }
                    if (path.isEmpty()) {
                        continue;
                    }
                    if (clinit) {
                        add(Rule.BLOCKING_IN_CLASS_INIT, kind, c, m.name(), m.desc(), call.line(),
                                "the class initializer " + describe(path, kind), path);
                    }
                    if (call.inMonitor() && !Blocking.isObjectWait(call.name(), call.desc())) {
                        add(Rule.SYNCHRONIZED_BLOCKING, kind, c, m.name(), m.desc(), call.line(),
                                ((m.access() & Opcodes.ACC_SYNCHRONIZED) != 0 ? "synchronized method " : "synchronized block ")
                                        + describe(path, kind), path);
                    }
                }
            }
        }

        /** The calls from {@code call} to a blocking operation of this kind, or empty when there is none. */
        private List<String> pathFrom(Call call, Blocking.Kind kind) {
            if (kind(call) == kind) {
                return List.of(qualified(call.owner(), call.name()));
            }
            Map<Sig, Step> steps = toBlocking.get(kind);
            MethodSummary target = resolve(call);
            if (target == null || !steps.containsKey(target.sig())) {
                return List.of();
            }
            List<String> path = new ArrayList<>();
            MethodSummary at = target;
            while (at != null) {
                path.add(qualified(at.owner(), at.name()));
                Step s = steps.get(at.sig());
                if (s.blockingCall() != null) {
                    path.add(qualified(s.blockingCall().owner(), s.blockingCall().name()));
                }
                at = s.via();
            }
            return path;
        }

        private String describe(List<String> path, Blocking.Kind kind) {
            String last = shortName(path.getLast());
            String blocks = kind == Blocking.Kind.WAITS ? "blocks" : "blocks when the lock is contended";
            if (path.size() == 1) {
                return "calls " + last + ", which " + blocks;
            }
            return "calls " + shortName(path.getFirst()) + ", which leads to " + last
                    + (path.size() > 2 ? " (" + (path.size() - 1) + " calls deep)" : "") + ", which " + blocks;
        }

        private Blocking.Kind kind(Call c) {
            return blockingCalls.computeIfAbsent(c.target(),
                    k -> Optional.ofNullable(Blocking.kind(k.owner(), k.name(), k.desc(), hierarchy))).orElse(null);
        }

        /** The audited method a call runs: declared by its owner or inherited from an audited supertype. */
        private MethodSummary resolve(Call c) {
            return resolved.computeIfAbsent(c.target(), this::lookUp).orElse(null);
        }

        private Optional<MethodSummary> lookUp(Sig call) {
            if (hierarchy.contains(call.owner())) {
                for (String type : hierarchy.selfAndSupertypes(call.owner())) {
                    MethodSummary m = methods.get(new Sig(type, call.name(), call.desc()));
                    if (m != null && m.hasCode()) {
                        return Optional.of(m);
                    }
                }
            }
            return Optional.empty();
        }

        private void add(Rule rule, ClassSummary c, String member, String desc, int line, String message, List<String> path) {
            add(rule, Blocking.Kind.WAITS, c, member, desc, line, message, path);
        }

        /** A finding whose blocking only happens under lock contention is one severity lower. */
        private void add(Rule rule, Blocking.Kind kind, ClassSummary c, String member, String desc, int line,
                         String message, List<String> path) {
            Severity severity = rule.severity(targetJdk);
            if (kind == Blocking.Kind.LOCKS && severity != Severity.INFO) {
                severity = Severity.values()[severity.ordinal() + 1];
            }
            findings.add(new Finding(rule, severity, c.name().replace('/', '.'), member, desc,
                    c.sourceFile(), line, message, path, c.input()));
        }
    }

    private static String qualified(String owner, String name) {
        return owner.replace('/', '.') + "." + name;
    }

    /** {@code java.util.concurrent.CountDownLatch.await} becomes {@code CountDownLatch.await}. */
    private static String shortName(String qualified) {
        int method = qualified.lastIndexOf('.');
        int type = qualified.lastIndexOf('.', method - 1);
        return qualified.substring(type + 1);
    }

    private static String simple(String internalName) {
        return internalName.substring(internalName.lastIndexOf('/') + 1);
    }
}
