package dev.weft.audit;

import dev.weft.audit.ClassScanner.Sig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.VarInsnNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.SourceInterpreter;
import org.objectweb.asm.tree.analysis.SourceValue;

/**
 * Where the streams of one method come from, as far as its own bytecode tells: for every call
 * that may be stream I/O ({@code in.read()}, {@code out.flush()}), the origins of its receiver;
 * for every store into a stream-like field, the origins of the stored value; and the origins of
 * what the method returns. An origin is a call's result, a field, a new object (with the
 * origins of its constructor's arguments, so {@code new DataInputStream(socket.getInputStream())}
 * keeps the socket), a parameter, or something else. Whether an origin is a socket is decided
 * later, over the whole program ({@link SocketStreams}).
 *
 * <p>Only methods whose instructions mention such calls, fields or return types are analyzed
 * (a data-flow analysis costs far more than reading the class), see {@link #worthAnalyzing}.
 */
final class StreamOrigins {

    /** Where a value comes from. */
    sealed interface Origin {}

    /** The result of a call; {@code args} (origins per reference argument) only for static calls. */
    record Returned(Sig call, List<Set<Origin>> args) implements Origin {}

    /** A field's value. */
    record Loaded(String owner, String name, String desc) implements Origin {}

    /** A new object, with the origins of its constructor's reference arguments. */
    record Made(String type, List<Set<Origin>> args) implements Origin {}

    /** A parameter of the method, or {@code this} (index 0 of an instance method). */
    record Param(int local) implements Origin {}

    /** Anything else: an array element, a constant, a value the analysis could not follow. */
    record Other(String what) implements Origin {}

    /** A store into a field. */
    record Store(String owner, String name, Set<Origin> value) {}

    /** What one method's analysis found: receivers by call instruction index, stores, returns. */
    record Result(Map<Integer, Set<Origin>> receivers, List<Store> stores, Set<Origin> returns) {
        static final Result NONE = new Result(Map.of(), List.of(), Set.of());
    }

    /**
     * Method names of stream and reader/writer I/O that may block on a socket: InputStream,
     * OutputStream, Reader, Writer and DataInput/DataOutput. print/println are left out (they
     * are console output far more often than socket output).
     */
    static final Set<String> IO_NAMES = Set.of(
            "read",
            "readNBytes",
            "readAllBytes",
            "skip",
            "skipNBytes",
            "transferTo",
            "readFully",
            "skipBytes",
            "readLine",
            "readBoolean",
            "readByte",
            "readUnsignedByte",
            "readShort",
            "readUnsignedShort",
            "readChar",
            "readInt",
            "readLong",
            "readFloat",
            "readDouble",
            "readUTF",
            "readObject",
            "write",
            "flush",
            "append",
            "writeBytes",
            "writeChars",
            "writeBoolean",
            "writeByte",
            "writeShort",
            "writeChar",
            "writeInt",
            "writeLong",
            "writeFloat",
            "writeDouble",
            "writeUTF",
            "writeObject");

    /** Type names that may hold a stream or where one comes from (a cheap filter before the analysis). */
    private static final List<String> STREAMISH = List.of(
            "Stream",
            "Reader",
            "Writer",
            "Socket",
            "Channel",
            "Input",
            "Output",
            "Connection",
            "Packet",
            "Transport",
            "Sender",
            "Receiver");

    private static boolean streamish(String desc) {
        for (String s : STREAMISH) {
            if (desc.contains(s)) {
                return true;
            }
        }
        return false;
    }

    private StreamOrigins() {}

    /** True when the method calls something named like stream I/O, or stores or returns a stream-like type. */
    static boolean worthAnalyzing(MethodNode m) {
        if (m.instructions.size() == 0) {
            return false;
        }
        boolean returnsStream = streamish(m.desc.substring(m.desc.indexOf(')')));
        for (AbstractInsnNode insn : m.instructions) {
            if (insn instanceof MethodInsnNode c && mayBeStreamIo(c)) {
                return true;
            }
            if (insn instanceof FieldInsnNode f
                    && (f.getOpcode() == Opcodes.PUTFIELD || f.getOpcode() == Opcodes.PUTSTATIC)
                    && f.desc.startsWith("L")
                    && streamish(f.desc)) {
                return true;
            }
            if (returnsStream && insn.getOpcode() == Opcodes.ARETURN) {
                return true;
            }
        }
        return false;
    }

    /** JDK types by whether they are streams, readers, writers or DataInput/DataOutput; shared by the parallel scans. */
    private static final Map<String, Boolean> JDK_STREAM = new ConcurrentHashMap<>();

    /**
     * True when {@code c} is named like stream I/O and is not called on a JDK type that is not a
     * stream ({@code StringBuilder.append}, {@code ByteBuffer}...): those are the common false
     * alarms of the name alone, and the running JDK tells them apart cheaply.
     */
    static boolean mayBeStreamIo(MethodInsnNode c) {
        if (c.getOpcode() == Opcodes.INVOKESTATIC || !IO_NAMES.contains(c.name)) {
            return false;
        }
        if (!c.owner.startsWith("java/") && !c.owner.startsWith("javax/")) {
            // Outside the JDK only a stream-like name is analyzed (ByteBuf.writeInt, a JSON
            // generator's write... are not streams, and the analysis is the audit's costliest step).
            // A stream class named otherwise still counts as stream I/O, of unknown origin: a warning.
            return streamish(c.owner.substring(c.owner.lastIndexOf('/') + 1)) || c.owner.endsWith("Data");
        }
        return JDK_STREAM.computeIfAbsent(c.owner, owner -> {
            try {
                Class<?> t = Class.forName(owner.replace('/', '.'), false, ClassLoader.getPlatformClassLoader());
                for (Class<?> s : List.of(
                        java.io.InputStream.class,
                        java.io.OutputStream.class,
                        java.io.Reader.class,
                        java.io.Writer.class,
                        java.io.DataInput.class,
                        java.io.DataOutput.class)) {
                    if (s.isAssignableFrom(t)) {
                        return true;
                    }
                }
                return false;
            } catch (ClassNotFoundException | LinkageError e) {
                return true; // not in this JDK: cannot tell
            }
        });
    }

    /** Analyzes one method; an analysis that fails (unusual bytecode) leaves every origin unknown. */
    static Result analyze(String owner, MethodNode m, AbstractInsnNode[] insns) {
        Frame<SourceValue>[] frames;
        try {
            frames = new Analyzer<>(new SourceInterpreter()).analyze(owner, m);
        } catch (AnalyzerException | RuntimeException e) {
            return Result.NONE;
        }
        return new Tracer(m, insns, frames).run();
    }

    /** Follows values back through locals, copies and casts to where they were made. */
    private static final class Tracer {
        private final MethodNode m;
        private final AbstractInsnNode[] insns;
        private final Frame<SourceValue>[] frames;
        private final Map<AbstractInsnNode, Integer> index = new IdentityHashMap<>();
        /** For each NEW, the constructor call that initializes it (found lazily). */
        private Map<AbstractInsnNode, Integer> constructors;

        Tracer(MethodNode m, AbstractInsnNode[] insns, Frame<SourceValue>[] frames) {
            this.m = m;
            this.insns = insns;
            this.frames = frames;
            for (int i = 0; i < insns.length; i++) {
                index.put(insns[i], i);
            }
        }

        Result run() {
            Map<Integer, Set<Origin>> receivers = new HashMap<>();
            List<Store> stores = new ArrayList<>();
            Set<Origin> returns = new LinkedHashSet<>();
            for (int i = 0; i < insns.length; i++) {
                Frame<SourceValue> f = frames[i];
                if (f == null) {
                    continue; // unreachable code
                }
                AbstractInsnNode insn = insns[i];
                if (insn instanceof MethodInsnNode c && mayBeStreamIo(c)) {
                    int args = Type.getArgumentTypes(c.desc).length;
                    receivers.put(i, origins(f.getStack(f.getStackSize() - args - 1), new HashSet<>()));
                } else if (insn instanceof FieldInsnNode fi
                        && (fi.getOpcode() == Opcodes.PUTFIELD || fi.getOpcode() == Opcodes.PUTSTATIC)
                        && fi.desc.startsWith("L")
                        && streamish(fi.desc)) {
                    stores.add(new Store(fi.owner, fi.name, origins(top(f), new HashSet<>())));
                } else if (insn.getOpcode() == Opcodes.ARETURN) {
                    returns.addAll(origins(top(f), new HashSet<>()));
                }
            }
            return new Result(receivers, stores, returns);
        }

        private static SourceValue top(Frame<SourceValue> f) {
            return f.getStack(f.getStackSize() - 1);
        }

        private Set<Origin> origins(SourceValue v, Set<AbstractInsnNode> seen) {
            Set<Origin> out = new LinkedHashSet<>();
            if (v.insns.isEmpty()) {
                out.add(new Other("a value the analysis could not follow"));
            }
            for (AbstractInsnNode p : v.insns) {
                if (seen.add(p)) {
                    origin(p, seen, out);
                }
            }
            return out;
        }

        private void origin(AbstractInsnNode p, Set<AbstractInsnNode> seen, Set<Origin> out) {
            int at = index.get(p);
            Frame<SourceValue> f = frames[at];
            switch (p) {
                case VarInsnNode load
                when p.getOpcode() == Opcodes.ALOAD -> {
                    SourceValue local = f.getLocal(load.var);
                    if (local.insns.isEmpty()) {
                        out.add(new Param(load.var)); // never stored in this method: a parameter or this
                    } else {
                        out.addAll(origins(local, seen));
                    }
                }
                case VarInsnNode store when p.getOpcode() == Opcodes.ASTORE -> out.addAll(origins(top(f), seen));
                case InsnNode copy
                when p.getOpcode() >= Opcodes.DUP && p.getOpcode() <= Opcodes.SWAP -> out.addAll(origins(top(f), seen));
                case TypeInsnNode cast when p.getOpcode() == Opcodes.CHECKCAST -> out.addAll(origins(top(f), seen));
                case TypeInsnNode made
                when p.getOpcode() == Opcodes.NEW -> out.add(new Made(made.desc, constructorArgs(p, seen)));
                case MethodInsnNode call ->
                    out.add(new Returned(
                            new Sig(call.owner, call.name, call.desc),
                            call.getOpcode() == Opcodes.INVOKESTATIC ? args(f, call.desc, seen) : List.of()));
                case FieldInsnNode field -> out.add(new Loaded(field.owner, field.name, field.desc));
                default -> {
                    if (p.getOpcode() != Opcodes.ACONST_NULL) {
                        out.add(new Other("opcode " + p.getOpcode()));
                    }
                }
            }
        }

        /** Origins of the reference arguments of a call whose frame (before the call) is {@code f}. */
        private List<Set<Origin>> args(Frame<SourceValue> f, String desc, Set<AbstractInsnNode> seen) {
            Type[] types = Type.getArgumentTypes(desc);
            List<Set<Origin>> out = new ArrayList<>();
            int base = f.getStackSize() - types.length;
            for (int k = 0; k < types.length; k++) {
                if (types[k].getSort() == Type.OBJECT
                        && !types[k].getInternalName().equals("java/lang/String")) {
                    out.add(origins(f.getStack(base + k), seen));
                }
            }
            return out;
        }

        private List<Set<Origin>> constructorArgs(AbstractInsnNode made, Set<AbstractInsnNode> seen) {
            if (constructors == null) {
                constructors = new IdentityHashMap<>();
                for (int i = 0; i < insns.length; i++) {
                    if (insns[i] instanceof MethodInsnNode c
                            && c.getOpcode() == Opcodes.INVOKESPECIAL
                            && c.name.equals("<init>")
                            && frames[i] != null) {
                        int args = Type.getArgumentTypes(c.desc).length;
                        AbstractInsnNode n = newOf(frames[i].getStack(frames[i].getStackSize() - args - 1));
                        if (n != null) {
                            constructors.putIfAbsent(n, i);
                        }
                    }
                }
            }
            Integer init = constructors.get(made);
            if (init == null) {
                return List.of();
            }
            return args(frames[init], ((MethodInsnNode) insns[init]).desc, seen);
        }

        /** The NEW a constructor's receiver was made by (through DUP), or null. */
        private AbstractInsnNode newOf(SourceValue v) {
            for (int guard = 0; guard < 4 && v.insns.size() == 1; guard++) {
                AbstractInsnNode p = v.insns.iterator().next();
                if (p.getOpcode() == Opcodes.NEW) {
                    return p;
                }
                if (p.getOpcode() != Opcodes.DUP
                        && p.getOpcode() != Opcodes.DUP_X1
                        && p.getOpcode() != Opcodes.DUP_X2) {
                    return null;
                }
                Frame<SourceValue> f = frames[index.get(p)];
                v = top(f);
            }
            return null;
        }
    }

    /** {@code com/acme/Conn} becomes {@code Conn}. */
    static String simple(String internalName) {
        return internalName.substring(internalName.lastIndexOf('/') + 1);
    }
}
