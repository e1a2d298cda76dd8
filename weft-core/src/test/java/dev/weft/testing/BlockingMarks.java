package dev.weft.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.TypeReference;
import org.objectweb.asm.tree.AnnotationNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * Reads IntelliJ's blocking-call marks ({@code org.jetbrains.annotations.Blocking} and
 * {@code BlockingExecutor}) from compiled classes. They have CLASS retention, so reflection does
 * not see them: this reads the class files with ASM. Shared with the modules that depend on
 * weft-core through its test jar (only this package is in it).
 */
public final class BlockingMarks {

    /** The descriptor of {@code @Blocking}. */
    public static final String BLOCKING = "Lorg/jetbrains/annotations/Blocking;";
    /** The descriptor of {@code @BlockingExecutor}. */
    public static final String BLOCKING_EXECUTOR = "Lorg/jetbrains/annotations/BlockingExecutor;";

    private BlockingMarks() {}

    /** The class file of {@code c}, read without code. */
    public static ClassNode read(Class<?> c) {
        try (InputStream in =
                c.getResourceAsStream(c.getName().substring(c.getName().lastIndexOf('.') + 1) + ".class")) {
            return read(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ClassNode read(byte[] bytes) {
        ClassNode node = new ClassNode();
        new ClassReader(bytes).accept(node, ClassReader.SKIP_CODE);
        return node;
    }

    /** A method as the tests name it: {@code name(SimpleParamType, ...)}, e.g. {@code join(Joiner)}. */
    public static String signature(MethodNode m) {
        return m.name
                + Arrays.stream(Type.getArgumentTypes(m.desc))
                        .map(t -> t.getClassName().replaceAll(".*[.$]", ""))
                        .collect(Collectors.joining(", ", "(", ")"));
    }

    /** True if {@code annotations} (a class file's invisible annotations, may be null) has {@code desc}. */
    public static boolean has(List<? extends AnnotationNode> annotations, String desc) {
        return annotations != null && annotations.stream().anyMatch(a -> a.desc.equals(desc));
    }

    /** The methods of {@code c} whose class file marks them with annotation {@code desc}. */
    public static Set<String> marked(Class<?> c, String desc) {
        return read(c).methods.stream()
                .filter(m -> has(m.invisibleAnnotations, desc))
                .map(BlockingMarks::signature)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The methods of {@code c} whose return type carries type annotation {@code desc}. */
    public static Set<String> returnTypeMarked(Class<?> c, String desc) {
        return read(c).methods.stream()
                .filter(m -> m.invisibleTypeAnnotations != null
                        && m.invisibleTypeAnnotations.stream()
                                .anyMatch(a -> a.desc.equals(desc)
                                        && new TypeReference(a.typeRef).getSort() == TypeReference.METHOD_RETURN))
                .map(BlockingMarks::signature)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /**
     * Every public method of a public class in the module that {@code anyClass} was compiled in
     * (its classes folder) that declares {@code InterruptedException}, so waits, but is not
     * marked {@code @Blocking}: {@code Class#method(Params)}.
     */
    public static Set<String> unmarkedWaits(Class<?> anyClass) {
        Path classes;
        try {
            classes = Path.of(
                    anyClass.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        Set<String> unmarked = new TreeSet<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                ClassNode c = read(Files.readAllBytes(f));
                if ((c.access & Opcodes.ACC_PUBLIC) == 0) {
                    continue;
                }
                for (MethodNode m : c.methods) {
                    if ((m.access & Opcodes.ACC_PUBLIC) != 0
                            && (m.access & Opcodes.ACC_SYNTHETIC) == 0
                            && m.exceptions.contains("java/lang/InterruptedException")
                            && !has(m.invisibleAnnotations, BLOCKING)) {
                        unmarked.add(c.name.replace('/', '.') + "#" + signature(m));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return unmarked;
    }
}
