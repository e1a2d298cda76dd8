package dev.weft.audit;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.LookupSwitchInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TableSwitchInsnNode;
import org.objectweb.asm.tree.TryCatchBlockNode;

/**
 * Reads one class and keeps what the audit needs: its supertypes, its fields' types, and per
 * method its calls (with line and whether a monitor is held) and the spin loops around
 * {@code Thread.yield}. Whole-program questions (does this call block, through other methods?)
 * are answered later by {@link Auditor}, once every class is known.
 */
final class ClassScanner {

    /**
     * A method by owner, name and descriptor: the key of calls and methods, looked up in hash
     * maps millions of times per audit, so its hash is computed once.
     */
    static final class Sig {
        private final String owner;
        private final String name;
        private final String desc;
        private final int hash;

        Sig(String owner, String name, String desc) {
            this.owner = owner;
            this.name = name;
            this.desc = desc;
            this.hash = (owner.hashCode() * 31 + name.hashCode()) * 31 + desc.hashCode();
        }

        String owner() {
            return owner;
        }

        String name() {
            return name;
        }

        String desc() {
            return desc;
        }

        @Override
        public boolean equals(Object o) {
            return o == this
                    || (o instanceof Sig s
                            && s.hash == hash
                            && s.owner.equals(owner)
                            && s.name.equals(name)
                            && s.desc.equals(desc));
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public String toString() {
            return owner + "." + name + desc;
        }
    }

    /**
     * A method call instruction; {@code receiver} is where the object it is called on comes from
     * when the call may be stream I/O and its method was analyzed ({@link StreamOrigins}), else null.
     */
    record Call(Sig target, int line, boolean inMonitor, Set<StreamOrigins.Origin> receiver) {
        String owner() {
            return target.owner();
        }

        String name() {
            return target.name();
        }

        String desc() {
            return target.desc();
        }
    }

    /**
     * What the audit keeps of a method; {@code stores} and {@code returns} are its stores into
     * stream-like fields and where what it returns comes from, when it was analyzed ({@link StreamOrigins}).
     */
    record MethodSummary(
            Sig sig,
            int access,
            List<Call> calls,
            List<Integer> spinningYields,
            List<StreamOrigins.Store> stores,
            Set<StreamOrigins.Origin> returns,
            boolean analyzed) {
        String owner() {
            return sig.owner();
        }

        String name() {
            return sig.name();
        }

        String desc() {
            return sig.desc();
        }

        boolean hasCode() {
            return (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) == 0;
        }
    }

    /** What the audit keeps of a class. */
    record ClassSummary(
            String name,
            String superName,
            List<String> interfaces,
            String sourceFile,
            List<FieldNode> fields,
            List<MethodSummary> methods,
            String input) {}

    private ClassScanner() {}

    /** Reads a class file; throws IllegalArgumentException (from ASM) for one it cannot parse. */
    static ClassSummary scan(byte[] bytes, String input) {
        ClassNode c = new ClassNode();
        new ClassReader(bytes).accept(c, ClassReader.SKIP_FRAMES);
        List<MethodSummary> methods = new ArrayList<>(c.methods.size());
        for (MethodNode m : c.methods) {
            methods.add(method(c.name, m));
        }
        return new ClassSummary(
                c.name,
                c.superName,
                c.interfaces == null ? List.of() : List.copyOf(c.interfaces),
                c.sourceFile,
                c.fields == null ? List.of() : List.copyOf(c.fields),
                methods,
                input);
    }

    private static MethodSummary method(String owner, MethodNode m) {
        AbstractInsnNode[] insns = m.instructions.toArray();
        boolean[] inMonitor = monitorHeld(m, insns);
        boolean analyzed = StreamOrigins.worthAnalyzing(m);
        StreamOrigins.Result streams = analyzed ? StreamOrigins.analyze(owner, m, insns) : StreamOrigins.Result.NONE;
        List<Call> calls = new ArrayList<>();
        List<Integer> yields = new ArrayList<>();
        int line = -1;
        for (int i = 0; i < insns.length; i++) {
            AbstractInsnNode insn = insns[i];
            if (insn instanceof LineNumberNode ln) {
                line = ln.line;
            } else if (insn instanceof MethodInsnNode call) {
                calls.add(new Call(
                        new Sig(call.owner, call.name, call.desc),
                        line,
                        inMonitor[i],
                        streams.receivers().get(i)));
                if (call.owner.equals("java/lang/Thread") && call.name.equals("yield") && inLoop(insns, i)) {
                    yields.add(line);
                }
            }
        }
        return new MethodSummary(
                new Sig(owner, m.name, m.desc),
                m.access,
                List.copyOf(calls),
                List.copyOf(yields),
                streams.stores(),
                streams.returns(),
                analyzed);
    }

    /** True when a backward jump later in the method goes back to, or before, instruction {@code at}. */
    private static boolean inLoop(AbstractInsnNode[] insns, int at) {
        Map<LabelNode, Integer> index = labelIndex(insns);
        for (int j = at + 1; j < insns.length; j++) {
            if (insns[j] instanceof JumpInsnNode jump && index.get(jump.label) <= at) {
                return true;
            }
        }
        return false;
    }

    private static Map<LabelNode, Integer> labelIndex(AbstractInsnNode[] insns) {
        Map<LabelNode, Integer> index = new IdentityHashMap<>();
        for (int i = 0; i < insns.length; i++) {
            if (insns[i] instanceof LabelNode l) {
                index.put(l, i);
            }
        }
        return index;
    }

    /**
     * Per instruction, whether a monitor is held when it runs: the whole body of a
     * {@code synchronized} method, and for {@code synchronized} blocks a data flow over the
     * control-flow graph (exception edges included) counting monitorenter and monitorexit.
     */
    static boolean[] monitorHeld(MethodNode m, AbstractInsnNode[] insns) {
        boolean[] held = new boolean[insns.length];
        if ((m.access & Opcodes.ACC_SYNCHRONIZED) != 0) {
            Arrays.fill(held, true);
            return held;
        }
        boolean hasEnter = false;
        for (AbstractInsnNode insn : insns) {
            if (insn.getOpcode() == Opcodes.MONITORENTER) {
                hasEnter = true;
                break;
            }
        }
        if (!hasEnter) {
            return held;
        }
        Map<LabelNode, Integer> index = labelIndex(insns);
        List<List<Integer>> handlers = new ArrayList<>(insns.length);
        for (int i = 0; i < insns.length; i++) {
            handlers.add(new ArrayList<>(0));
        }
        for (TryCatchBlockNode tcb : m.tryCatchBlocks) {
            int handler = index.get(tcb.handler);
            for (int i = index.get(tcb.start); i < index.get(tcb.end); i++) {
                handlers.get(i).add(handler);
            }
        }
        final int cap = 64; // nesting beyond this is held all the same; the cap ends loops that never exit
        int[] depth = new int[insns.length];
        Arrays.fill(depth, -1);
        Deque<Integer> work = new ArrayDeque<>();
        depth[0] = 0;
        work.add(0);
        while (!work.isEmpty()) {
            int i = work.removeFirst();
            int in = depth[i];
            AbstractInsnNode insn = insns[i];
            int op = insn.getOpcode();
            int out = op == Opcodes.MONITORENTER
                    ? Math.min(cap, in + 1)
                    : op == Opcodes.MONITOREXIT ? Math.max(0, in - 1) : in;
            for (int h : handlers.get(i)) {
                flow(depth, work, h, in);
            }
            if (insn instanceof JumpInsnNode j) {
                flow(depth, work, index.get(j.label), out);
                if (op != Opcodes.GOTO) {
                    flow(depth, work, i + 1, out);
                }
            } else if (insn instanceof TableSwitchInsnNode ts) {
                flow(depth, work, index.get(ts.dflt), out);
                ts.labels.forEach(l -> flow(depth, work, index.get(l), out));
            } else if (insn instanceof LookupSwitchInsnNode ls) {
                flow(depth, work, index.get(ls.dflt), out);
                ls.labels.forEach(l -> flow(depth, work, index.get(l), out));
            } else if (!ends(op)) {
                flow(depth, work, i + 1, out);
            }
        }
        for (int i = 0; i < insns.length; i++) {
            held[i] = depth[i] > 0;
        }
        return held;
    }

    private static boolean ends(int op) {
        return (op >= Opcodes.IRETURN && op <= Opcodes.RETURN) || op == Opcodes.ATHROW || op == Opcodes.RET;
    }

    private static void flow(int[] depth, Deque<Integer> work, int to, int d) {
        if (to < depth.length && d > depth[to]) {
            depth[to] = d;
            work.add(to);
        }
    }
}
