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
import java.util.IdentityHashMap;
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
 * future and socket waits, ...), stream I/O ({@code read}, {@code write}, {@code flush},
 * {@code readFully}, ... on an {@code InputStream}, {@code OutputStream}, {@code Reader} or
 * {@code Writer}) on a stream that is or may be a socket's ({@link SocketStreams}), or when it
 * leads to one through methods of the audited classes. Calls are resolved by their declared owner
 * and its audited supertypes; a call to an interface or abstract method of the inputs is followed
 * into its implementations in the inputs and classpath ({@value #DISPATCH_DEPTH} levels of
 * subtypes deep, at most {@value #MAX_IMPLEMENTATIONS} of them, never for paths that end in a lock
 * acquisition), and the call path says where dispatch was resolved:
 * {@code com.acme.SocketTransport.receive (dispatch of Transport.receive)}.
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

    /**
     * The newest JDK whose pinning rules the audit knows (the JDK weft is built and tested on); a
     * newer running JDK is accepted as a target too ({@link #maxTargetJdk()}).
     */
    public static final int NEWEST_KNOWN_JDK = 25;

    /** How many levels of subtypes below an abstract method's owner dispatch looks for implementations. */
    static final int DISPATCH_DEPTH = 4;
    /** A call with more implementations than this in the inputs is not followed (which one runs is anyone's guess). */
    static final int MAX_IMPLEMENTATIONS = 8;
    /** The kinds of blocking: those that always park (errors), then those that park only sometimes (one lower). */
    private static final List<List<Blocking.Kind>> BY_CERTAINTY = List.of(
            List.of(Blocking.Kind.WAITS, Blocking.Kind.SOCKET_IO),
            List.of(Blocking.Kind.STREAM_IO, Blocking.Kind.LOCKS));

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
     *                                  or newer than {@link #maxTargetJdk()} (rules unknown)
     */
    public static Auditor forTargetJdk(int targetJdk) {
        if (targetJdk < MIN_TARGET_JDK) {
            throw new IllegalArgumentException(
                    "target JDK " + targetJdk + " has no virtual threads; give " + MIN_TARGET_JDK + " or newer");
        }
        if (targetJdk > maxTargetJdk()) {
            throw new IllegalArgumentException(
                    "target JDK " + targetJdk + " is newer than the pinning rules the audit knows;" + " give "
                            + MIN_TARGET_JDK + " to " + maxTargetJdk());
        }
        return new Auditor(targetJdk);
    }

    /** The newest target accepted: {@link #NEWEST_KNOWN_JDK}, or the running JDK when it is newer. */
    public static int maxTargetJdk() {
        return Math.max(NEWEST_KNOWN_JDK, Runtime.version().feature());
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
     * @throws IllegalArgumentException if an input does not exist, is none of those, is a folder
     *                                  without classes, a file that is not a zip, or a truncated
     *                                  or corrupt jar, or when the inputs hold no class at all
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
            throw new IllegalArgumentException(
                    "nothing to audit: give jars, folders of classes, .class files or a classpath");
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
        if (auditedClasses == 0 && problems.isEmpty()) {
            throw new IllegalArgumentException(String.join(", ", audited.inputs())
                    + ": no class files in it; give jars or folders of compiled classes");
        }
        Set<String> auditedNames = new HashSet<>(classes.keySet());
        bytes += read(libraries, classes, problems, new int[1]);
        if (duplicates[0] > 0) {
            problems.add(
                    duplicates[0] + " classes appeared more than once in the inputs; the first of each was audited");
        }
        List<Finding> findings = new Analysis(classes, auditedNames).findings();
        return new AuditReport(
                audited.inputs(),
                targetJdk,
                auditedClasses,
                bytes,
                Duration.ofNanos(System.nanoTime() - start),
                findings,
                problems);
    }

    /**
     * Parses every class of {@code source} into {@code classes} (a class already there wins);
     * returns the bytes read.
     */
    private static long read(
            ClassSource source, Map<String, ClassSummary> classes, List<String> problems, int[] duplicates) {
        long bytes = 0;
        // Parsing is most of the work and each class stands alone: parse in parallel, keep input order.
        List<Object> scanned =
                source.classes().parallelStream().map(Auditor::scan).toList();
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
        private final Map<Call, Optional<Blocking.Kind>> streamCalls = new IdentityHashMap<>();
        private final Map<Sig, List<Target>> resolved = new HashMap<>();
        private final SocketStreams sockets;
        private Map<Sig, List<Target>> callers;
        /** Per kind, the methods that block that way themselves, with the call that does. */
        private final Map<Blocking.Kind, List<Target>> seeds = new EnumMap<>(Blocking.Kind.class);
        /**
         * Per kind of blocking, for each method that leads to it: the next method on its shortest
         * path there, or the blocking call itself.
         */
        private final Map<Blocking.Kind, Map<Sig, Step>> toBlocking = new EnumMap<>(Blocking.Kind.class);

        private final List<Finding> findings = new ArrayList<>();

        /**
         * One step of a path: the next method, or the blocking call itself; {@code dispatched}
         * names the abstract or interface method the call to {@code via} declared, when dispatch
         * was resolved to get there.
         */
        private record Step(MethodSummary via, Call blockingCall, String dispatched) {}

        /**
         * A method a call may run ({@code dispatched} is the declared abstract method, or null for
         * a direct call); for a method that blocks itself, {@code call} is the blocking call.
         */
        private record Target(MethodSummary method, String dispatched, Call call) {}

        /** A path from a call to blocking, and the blocking call it ends in. */
        private record CallPath(List<String> calls, Call blocking) {
            boolean isEmpty() {
                return calls.isEmpty();
            }
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
            sockets = new SocketStreams(
                    hierarchy,
                    classes,
                    sig -> resolve(sig).stream().map(Target::method).toList());
            // Classes by name, methods in declaration order: a fixed order, cheaper than sorting every method.
            List<String> names = new ArrayList<>(classes.keySet());
            names.sort(null);
            for (String name : names) {
                for (MethodSummary m : classes.get(name).methods()) {
                    if (methods.get(m.sig()) == m) {
                        ordered.add(m);
                    }
                }
            }
        }

        List<Finding> findings() {
            callers();
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
            unique.sort(Comparator.comparing(Finding::severity)
                    .thenComparing(Finding::className)
                    .thenComparing(Finding::member)
                    .thenComparingInt(Finding::line)
                    .thenComparing(f -> f.rule().id()));
            return List.copyOf(unique);
        }

        /**
         * Breadth-first from the methods that block this way directly, along reversed calls: for
         * every method that leads to such blocking, the first step of a shortest path.
         */
        private Map<Sig, Step> reachability(Blocking.Kind kind) {
            Map<Sig, Step> steps = new HashMap<>();
            Map<Sig, List<Target>> callers = callers();
            Deque<MethodSummary> queue = new ArrayDeque<>();
            for (Target seed : seeds.getOrDefault(kind, List.of())) {
                MethodSummary m = seed.method();
                if (!steps.containsKey(m.sig())) {
                    steps.put(m.sig(), new Step(null, seed.call(), null));
                    queue.add(m);
                }
            }
            while (!queue.isEmpty()) {
                MethodSummary t = queue.removeFirst();
                for (Target caller : callers.getOrDefault(t.sig(), List.of())) {
                    if (kind == Blocking.Kind.LOCKS && caller.dispatched() != null) {
                        // A lock parks only when contended; a path that also guesses which implementation
                        // runs is two guesses deep (in Clojure, every var lookup would reach a lazy seq's lock).
                        continue;
                    }
                    if (!steps.containsKey(caller.method().sig())) {
                        steps.put(caller.method().sig(), new Step(t, null, caller.dispatched()));
                        queue.add(caller.method());
                    }
                }
            }
            return steps;
        }

        /** Per method, the methods that call it (and through which dispatch); the same for every kind, so built once. */
        private Map<Sig, List<Target>> callers() {
            if (callers == null) {
                callers = new HashMap<>();
                for (MethodSummary m : ordered) {
                    for (Call c : m.calls()) {
                        Blocking.Kind k = kind(c);
                        if (k != null) {
                            seeds.computeIfAbsent(k, x -> new ArrayList<>()).add(new Target(m, null, c));
                        }
                        if (k != null && sockets.isStreamIo(c)) {
                            continue; // stream I/O ends a path: its stream decides, not the stream class's code
                        }
                        for (Target t : resolve(c.target())) {
                            callers.computeIfAbsent(t.method().sig(), x -> new ArrayList<>())
                                    .add(new Target(m, t.dispatched(), null));
                        }
                    }
                }
            }
            return callers;
        }

        private void fields(ClassSummary c) {
            for (FieldNode f : c.fields()) {
                Type t = Type.getType(f.desc);
                if (t.getSort() == Type.OBJECT && hierarchy.isA(t.getInternalName(), "java/lang/ThreadLocal")) {
                    add(
                            Rule.THREAD_LOCAL_FIELD,
                            c,
                            f.name,
                            f.desc,
                            -1,
                            ((f.access & Opcodes.ACC_STATIC) != 0 ? "static field " : "field ") + f.name + " holds a "
                                    + simple(t.getInternalName()) + ": one value per thread that uses it",
                            List.of());
                }
            }
        }

        private void method(ClassSummary c, MethodSummary m) {
            if ((m.access() & Opcodes.ACC_NATIVE) != 0) {
                add(
                        Rule.NATIVE_METHOD,
                        c,
                        m.name(),
                        m.desc(),
                        -1,
                        "native method " + m.name() + m.desc() + ": a virtual thread running it cannot unmount",
                        List.of());
            }
            for (int line : m.spinningYields()) {
                add(Rule.THREAD_YIELD_SPIN, c, m.name(), m.desc(), line, "calls Thread.yield in a loop", List.of());
            }
            boolean clinit = m.name().equals("<clinit>");
            for (Call call : m.calls()) {
                if (Blocking.isObjectWait(call.name(), call.desc())) {
                    add(Rule.OBJECT_WAIT, c, m.name(), m.desc(), call.line(), "calls Object.wait", List.of());
                }
                if (call.owner().equals("java/lang/foreign/Linker")
                        && call.name().equals("upcallStub")) {
                    add(
                            Rule.NATIVE_UPCALL,
                            c,
                            m.name(),
                            m.desc(),
                            call.line(),
                            "creates an upcall stub: Java code that native code calls back runs under a native frame",
                            List.of());
                }
                if (clinit || call.inMonitor()) {
                    // The blocking that always parks before the one that parks only sometimes; within
                    // each, the nearest (the likeliest to run), the surer kind on a tie.
                    Blocking.Kind kind = null;
                    CallPath path = null;
                    for (List<Blocking.Kind> group : BY_CERTAINTY) {
                        for (Blocking.Kind k : group) {
                            CallPath p = pathFrom(call, k);
                            if (!p.isEmpty()
                                    && (path == null
                                            || p.calls().size() < path.calls().size())) {
                                kind = k;
                                path = p;
                            }
                        }
                        if (kind != null) {
                            break;
                        }
                    }
                    if (kind == null) {
                        continue;
                    }
                    if (clinit) {
                        add(
                                Rule.BLOCKING_IN_CLASS_INIT,
                                kind,
                                c,
                                m.name(),
                                m.desc(),
                                call.line(),
                                "the class initializer " + describe(path, kind),
                                path.calls());
                    }
                    if (call.inMonitor() && !Blocking.isObjectWait(call.name(), call.desc())) {
                        add(
                                Rule.SYNCHRONIZED_BLOCKING,
                                kind,
                                c,
                                m.name(),
                                m.desc(),
                                call.line(),
                                ((m.access() & Opcodes.ACC_SYNCHRONIZED) != 0
                                                ? "synchronized method "
                                                : "synchronized block ")
                                        + describe(path, kind),
                                path.calls());
                    }
                }
            }
        }

        /** The calls from {@code call} to a blocking operation of this kind, or empty when there is none. */
        private CallPath pathFrom(Call call, Blocking.Kind kind) {
            if (kind(call) == kind) {
                return new CallPath(List.of(qualified(call.owner(), call.name())), call);
            }
            if (kind(call) != null && sockets.isStreamIo(call)) {
                return new CallPath(List.of(), null);
            }
            Map<Sig, Step> steps = toBlocking.get(kind);
            Target first = null;
            for (Target t : resolve(call.target())) {
                if (steps.containsKey(t.method().sig()) && (kind != Blocking.Kind.LOCKS || t.dispatched() == null)) {
                    first = t;
                    break;
                }
            }
            if (first == null) {
                return new CallPath(List.of(), null);
            }
            List<String> path = new ArrayList<>();
            Call blocking = null;
            MethodSummary at = first.method();
            String dispatched = first.dispatched();
            while (at != null) {
                path.add(qualified(at.owner(), at.name())
                        + (dispatched == null ? "" : " (dispatch of " + dispatched + ")"));
                Step s = steps.get(at.sig());
                if (s.blockingCall() != null) {
                    blocking = s.blockingCall();
                    path.add(qualified(blocking.owner(), blocking.name()));
                }
                at = s.via();
                dispatched = s.dispatched();
            }
            return new CallPath(path, blocking);
        }

        private String describe(CallPath path, Blocking.Kind kind) {
            List<String> calls = path.calls();
            String last = shortName(calls.getLast());
            String blocks = switch (kind) {
                case WAITS -> "blocks";
                case LOCKS -> "blocks when the lock is contended";
                case SOCKET_IO ->
                    "blocks on a socket: the stream is "
                            + sockets.verdict(path.blocking()).because();
                case STREAM_IO ->
                    "blocks if the stream is a socket's, which the audit cannot tell ("
                            + sockets.verdict(path.blocking()).because() + ")";
            };
            if (calls.size() == 1) {
                return "calls " + last + ", which " + blocks;
            }
            return "calls " + shortName(calls.getFirst()) + ", which leads to " + last
                    + (calls.size() > 2 ? " (" + (calls.size() - 1) + " calls deep)" : "") + ", which " + blocks;
        }

        private Blocking.Kind kind(Call c) {
            Blocking.Kind k = blockingCalls
                    .computeIfAbsent(
                            c.target(),
                            s -> Optional.ofNullable(Blocking.kind(s.owner(), s.name(), s.desc(), hierarchy)))
                    .orElse(null);
            if (k != null || !StreamOrigins.IO_NAMES.contains(c.name())) {
                return k;
            }
            return streamCalls
                    .computeIfAbsent(c, x -> {
                        if (!sockets.isStreamIo(x)) {
                            return Optional.empty();
                        }
                        return switch (sockets.verdict(x).level()) {
                            case SOCKET -> Optional.of(Blocking.Kind.SOCKET_IO);
                            case MAYBE -> Optional.of(Blocking.Kind.STREAM_IO);
                            case NONE -> Optional.empty();
                        };
                    })
                    .orElse(null);
        }

        /**
         * The audited methods a call may run: the one its owner declares or inherits from an
         * audited supertype; or, when that is abstract (an interface or abstract method of the
         * inputs), its implementations in the inputs and classpath, up to {@link #DISPATCH_DEPTH}
         * levels of subtypes below the owner and at most {@link #MAX_IMPLEMENTATIONS} of them.
         */
        private List<Target> resolve(Sig call) {
            return resolved.computeIfAbsent(call, this::lookUp);
        }

        private List<Target> lookUp(Sig call) {
            if (!hierarchy.contains(call.owner())) {
                return List.of();
            }
            MethodSummary direct = concrete(call.owner(), call);
            if (direct != null) {
                return List.of(new Target(direct, null, null));
            }
            if (call.name().startsWith("<")) {
                return List.of(); // a constructor is never dispatched
            }
            String declared = StreamOrigins.simple(call.owner()) + "." + call.name();
            List<Target> out = new ArrayList<>();
            Set<Sig> seen = new HashSet<>();
            for (String sub : hierarchy.subtypes(call.owner(), DISPATCH_DEPTH)) {
                MethodSummary m = concrete(sub, call);
                if (m != null && seen.add(m.sig())) {
                    if (out.size() == MAX_IMPLEMENTATIONS) {
                        return List.of(); // too many to say which runs: not followed
                    }
                    out.add(new Target(m, declared, null));
                }
            }
            return List.copyOf(out);
        }

        /** The method with code that {@code type} runs for {@code call}'s name and descriptor, or null. */
        private MethodSummary concrete(String type, Sig call) {
            for (String t : hierarchy.selfAndSupertypes(type)) {
                MethodSummary m = methods.get(new Sig(t, call.name(), call.desc()));
                if (m != null && m.hasCode()) {
                    return m;
                }
            }
            return null;
        }

        private void add(
                Rule rule, ClassSummary c, String member, String desc, int line, String message, List<String> path) {
            add(rule, Blocking.Kind.WAITS, c, member, desc, line, message, path);
        }

        /** A finding whose blocking only happens under lock contention is one severity lower. */
        private void add(
                Rule rule,
                Blocking.Kind kind,
                ClassSummary c,
                String member,
                String desc,
                int line,
                String message,
                List<String> path) {
            Severity severity = rule.severity(targetJdk);
            if (kind.onlySometimes() && severity != Severity.INFO) {
                severity = Severity.values()[severity.ordinal() + 1];
            }
            findings.add(new Finding(
                    rule,
                    severity,
                    c.name().replace('/', '.'),
                    member,
                    desc,
                    c.sourceFile(),
                    line,
                    message,
                    path,
                    c.input()));
        }
    }

    private static String qualified(String owner, String name) {
        return owner.replace('/', '.') + "." + name;
    }

    /**
     * {@code java.util.concurrent.CountDownLatch.await} becomes {@code CountDownLatch.await}; a
     * path entry's {@code (dispatch of ...)} note is kept as it is.
     */
    private static String shortName(String qualified) {
        int note = qualified.indexOf(" (");
        if (note > 0) {
            return shortName(qualified.substring(0, note)) + qualified.substring(note);
        }
        int method = qualified.lastIndexOf('.');
        int type = qualified.lastIndexOf('.', method - 1);
        return qualified.substring(type + 1);
    }

    private static String simple(String internalName) {
        return internalName.substring(internalName.lastIndexOf('/') + 1);
    }
}
