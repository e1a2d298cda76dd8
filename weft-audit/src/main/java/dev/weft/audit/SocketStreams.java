package dev.weft.audit;

import dev.weft.audit.ClassScanner.Call;
import dev.weft.audit.ClassScanner.ClassSummary;
import dev.weft.audit.ClassScanner.MethodSummary;
import dev.weft.audit.ClassScanner.Sig;
import dev.weft.audit.StreamOrigins.Loaded;
import dev.weft.audit.StreamOrigins.Made;
import dev.weft.audit.StreamOrigins.Origin;
import dev.weft.audit.StreamOrigins.Other;
import dev.weft.audit.StreamOrigins.Param;
import dev.weft.audit.StreamOrigins.Returned;
import dev.weft.audit.StreamOrigins.Store;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.FieldNode;

/**
 * Decides, over the whole program, whether a stream I/O call works on a socket's stream. A
 * stream is a socket's when its origins lead, through fields, getters (with their dispatch
 * resolved in the inputs), wrappers ({@code new BufferedInputStream(...)}) and channel adapters,
 * to {@code Socket.getInputStream()}/{@code getOutputStream()} (any {@code Socket}, so
 * {@code SSLSocket} too), an {@code HttpURLConnection}'s stream, or {@code Channels.newInputStream}
 * of a {@code SocketChannel}. It is certainly not one when every origin is in memory
 * ({@code ByteArrayInputStream}, {@code StringWriter}), a file, a class-path resource, a process
 * pipe or the console ({@code System.out}): reading those does not park a virtual thread. Anything
 * else (a parameter, a field set outside the audited code) may be a socket's.
 */
final class SocketStreams {

    /** How sure the audit is that a stream is a socket's. */
    enum Level {
        NONE,
        MAYBE,
        SOCKET
    }

    /** A verdict and the reason, e.g. {@code Socket.getInputStream() via field Conn.in}. */
    record Verdict(Level level, String because) {
        static final Verdict NONE = new Verdict(Level.NONE, "not a socket's");

        Verdict or(Verdict other) {
            return other.level.compareTo(level) > 0 ? other : this;
        }
    }

    /** Stream types whose I/O never waits for a socket: memory and files. */
    private static final List<String> NOT_SOCKETS = List.of(
            "java/io/ByteArrayInputStream",
            "java/io/ByteArrayOutputStream",
            "java/io/StringReader",
            "java/io/StringWriter",
            "java/io/CharArrayReader",
            "java/io/CharArrayWriter",
            "java/io/StringBufferInputStream",
            "java/io/FileInputStream",
            "java/io/FileOutputStream",
            "java/io/FileReader",
            "java/io/FileWriter",
            "java/io/RandomAccessFile");
    /** The types whose read/write/flush/skip... are stream I/O. */
    private static final List<String> STREAM_TYPES = List.of(
            "java/io/InputStream",
            "java/io/OutputStream",
            "java/io/Reader",
            "java/io/Writer",
            "java/io/DataInput",
            "java/io/DataOutput",
            "java/io/ObjectInput",
            "java/io/ObjectOutput");
    /** Owners whose returned streams are files, resources or pipes. */
    private static final List<String> NOT_SOCKET_FACTORIES = List.of(
            "java/nio/file/Files",
            "java/lang/Class",
            "java/lang/ClassLoader",
            "java/lang/Process",
            "java/util/zip/ZipFile",
            "java/lang/Module");

    private static final int MAX_DEPTH = 16;

    private final Hierarchy hierarchy;
    private final Map<String, ClassSummary> classes;
    private final Function<Sig, List<MethodSummary>> targets;
    private final Map<List<String>, List<Store>> stores = new HashMap<>();
    private final Map<Object, Verdict> memo = new HashMap<>();
    private final Map<Call, Verdict> byCall = new IdentityHashMap<>();

    /**
     * @param targets the audited methods a call may run (its declared method, or the
     *                implementations dispatch resolves to), empty when unknown
     */
    SocketStreams(Hierarchy hierarchy, Map<String, ClassSummary> classes, Function<Sig, List<MethodSummary>> targets) {
        this.hierarchy = hierarchy;
        this.classes = classes;
        this.targets = targets;
        for (ClassSummary c : classes.values()) {
            for (MethodSummary m : c.methods()) {
                for (Store s : m.stores()) {
                    stores.computeIfAbsent(field(s.owner(), s.name()), k -> new ArrayList<>())
                            .add(s);
                }
            }
        }
    }

    /** True when {@code call} is a read, write, flush, skip ... on a stream, reader or writer that may be a socket's. */
    boolean isStreamIo(Call call) {
        if (!StreamOrigins.IO_NAMES.contains(call.name())) {
            return false;
        }
        List<String> types = hierarchy.selfAndSupertypes(call.owner());
        return types.stream().anyMatch(STREAM_TYPES::contains) && types.stream().noneMatch(NOT_SOCKETS::contains);
    }

    /** Whether the stream {@code call} (a stream I/O call) works on is a socket's. */
    Verdict verdict(Call call) {
        Verdict v = byCall.get(call);
        if (v == null) {
            v = call.receiver() == null
                    ? new Verdict(Level.MAYBE, "where the stream comes from was not analyzed")
                    : of(call.receiver(), 0);
            byCall.put(call, v);
        }
        return v;
    }

    private Verdict of(Set<Origin> origins, int depth) {
        Verdict v = Verdict.NONE;
        for (Origin o : origins) {
            v = v.or(of(o, depth));
            if (v.level() == Level.SOCKET) {
                break;
            }
        }
        return v;
    }

    private Verdict of(Origin o, int depth) {
        if (depth > MAX_DEPTH) {
            return new Verdict(Level.MAYBE, "its origin is further than " + MAX_DEPTH + " steps");
        }
        return switch (o) {
            case Returned r -> returned(r, depth);
            case Loaded l -> loaded(l, depth);
            case Made m -> made(m, depth);
            case Param p ->
                new Verdict(Level.MAYBE, p.local() == 0 ? "it is this object or a parameter" : "it is a parameter");
            case Other x -> new Verdict(Level.MAYBE, "the audit cannot tell where it comes from");
        };
    }

    private Verdict returned(Returned r, int depth) {
        Sig s = r.call();
        String shown = StreamOrigins.simple(s.owner()) + "." + s.name() + "()";
        if ((s.name().equals("getInputStream") || s.name().equals("getOutputStream"))) {
            if (hierarchy.isA(s.owner(), "java/net/Socket")) {
                return new Verdict(Level.SOCKET, shown);
            }
            if (hierarchy.isA(s.owner(), "java/net/HttpURLConnection")) {
                return new Verdict(Level.SOCKET, shown + " (HTTP)");
            }
        }
        if (s.owner().equals("java/nio/channels/Channels")) {
            return r.args().isEmpty() ? Verdict.NONE : channel(r.args().getFirst(), shown);
        }
        if (NOT_SOCKET_FACTORIES.contains(s.owner())) {
            return Verdict.NONE;
        }
        List<MethodSummary> ms = targets.apply(s);
        if (ms.isEmpty()) {
            return new Verdict(Level.MAYBE, "it is returned by " + shown + ", outside the audited code");
        }
        Verdict v = Verdict.NONE;
        for (MethodSummary m : ms) {
            Verdict mv = memo.get(m.sig());
            if (mv == null) {
                memo.put(m.sig(), Verdict.NONE); // a cycle adds nothing
                mv = m.analyzed() ? of(m.returns(), depth + 1) : new Verdict(Level.MAYBE, "it is returned by " + shown);
                memo.put(m.sig(), mv);
            }
            v = v.or(
                    mv.level() == Level.SOCKET
                                    && ms.size() == 1
                                    && !mv.because().contains(" via ")
                            ? new Verdict(Level.SOCKET, mv.because() + " via " + shown)
                            : mv);
        }
        return v;
    }

    /** A channel adapter's stream is a socket's when the channel is a SocketChannel (by its declared type). */
    private Verdict channel(Set<Origin> channel, String shown) {
        for (Origin o : channel) {
            String type = switch (o) {
                case Returned r -> Type.getReturnType(r.call().desc()).getInternalName();
                case Loaded l -> Type.getType(l.desc()).getInternalName();
                case Made m -> m.type();
                default -> null;
            };
            if (type != null
                    && (hierarchy.isA(type, "java/nio/channels/SocketChannel")
                            || hierarchy.isA(type, "java/nio/channels/AsynchronousSocketChannel"))) {
                return new Verdict(Level.SOCKET, shown + " of a " + StreamOrigins.simple(type));
            }
            if (type != null && hierarchy.isA(type, "java/nio/channels/FileChannel")) {
                return Verdict.NONE;
            }
        }
        return new Verdict(Level.MAYBE, shown + " of a channel that may be a socket's");
    }

    private Verdict loaded(Loaded l, int depth) {
        if (l.owner().equals("java/lang/System") && List.of("out", "err", "in").contains(l.name())) {
            return Verdict.NONE; // the console
        }
        List<String> key = field(l.owner(), l.name());
        Verdict v = memo.get(key);
        if (v != null) {
            return v;
        }
        String shown = "field " + StreamOrigins.simple(key.get(0)) + "." + l.name();
        List<Store> assigned = stores.get(key);
        if (assigned == null) {
            v = new Verdict(Level.MAYBE, "it is " + shown + ", set outside the audited code");
        } else {
            memo.put(key, Verdict.NONE); // a cycle adds nothing
            v = Verdict.NONE;
            for (Store s : assigned) {
                v = v.or(of(s.value(), depth + 1));
            }
            if (v.level() == Level.SOCKET) {
                v = new Verdict(Level.SOCKET, v.because() + " via " + shown);
            } else if (v.level() == Level.MAYBE) {
                v = new Verdict(Level.MAYBE, v.because() + " (" + shown + ")");
            }
        }
        memo.put(key, v);
        return v;
    }

    private Verdict made(Made m, int depth) {
        List<String> types = hierarchy.selfAndSupertypes(m.type());
        if (types.stream().anyMatch(NOT_SOCKETS::contains)) {
            return Verdict.NONE;
        }
        if (m.args().isEmpty()) {
            return new Verdict(Level.MAYBE, "it is a new " + StreamOrigins.simple(m.type()));
        }
        Verdict v = Verdict.NONE;
        for (Set<Origin> arg : m.args()) {
            v = v.or(of(arg, depth + 1));
        }
        return v;
    }

    /** The class that declares field {@code name} as seen from {@code owner}, and the name. */
    private List<String> field(String owner, String name) {
        for (String t : hierarchy.selfAndSupertypes(owner)) {
            ClassSummary c = classes.get(t);
            if (c != null) {
                for (FieldNode f : c.fields()) {
                    if (f.name.equals(name)) {
                        return List.of(t, name);
                    }
                }
            }
        }
        return List.of(owner, name);
    }
}
