package dev.weft.audit;

import static org.objectweb.asm.Opcodes.ACC_FINAL;
import static org.objectweb.asm.Opcodes.ACC_PUBLIC;
import static org.objectweb.asm.Opcodes.ACC_STATIC;

import dev.weft.audit.fixture.BlockingInit;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * The fixture jar the audit tests run on (weft-cli's tests too, through this module's test jar): the compiled classes of {@code dev.weft.audit.fixture}
 * (one known instance of each hazard, marked {@code // HAZARD <rule>} in their sources, and a
 * class of near misses) plus a class generated here that creates an FFM upcall stub (the FFM API
 * is final only from JDK 22, and the fixtures compile for 21).
 */
public final class Fixtures {

    public static final String PACKAGE = "dev/weft/audit/fixture/";
    static final Path SOURCES = Path.of("src/test/java/dev/weft/audit/fixture");

    private Fixtures() {}

    /** The fixture classes by jar entry name. */
    public static Map<String, byte[]> classes() throws IOException {
        Map<String, byte[]> classes = new TreeMap<>();
        Path location;
        try {
            location = Path.of(BlockingInit.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException e) {
            throw new IOException(e);
        }
        // target/test-classes here; this module's test jar in weft-cli's tests
        try (FileSystem jar = Files.isDirectory(location) ? null : FileSystems.newFileSystem(location);
                Stream<Path> files = Files.list(jar == null ? location.resolve(PACKAGE) : jar.getPath(PACKAGE))) {
            for (Path f :
                    files.filter(p -> p.toString().endsWith(".class")).sorted().toList()) {
                classes.put(PACKAGE + f.getFileName(), Files.readAllBytes(f));
            }
        }
        classes.put(PACKAGE + "UpcallUser.class", upcallUser());
        return classes;
    }

    /** Writes a jar of {@code entries} to {@code jar}. */
    public static Path jar(Path jar, Map<String, byte[]> entries) throws IOException {
        try (OutputStream out = Files.newOutputStream(jar);
                JarOutputStream j = new JarOutputStream(out)) {
            for (var e : entries.entrySet()) {
                j.putNextEntry(new JarEntry(e.getKey()));
                j.write(e.getValue());
                j.closeEntry();
            }
        }
        return jar;
    }

    /** The fixture jar, written into {@code dir}. */
    public static Path fixtureJar(Path dir) throws IOException {
        return jar(dir.resolve("fixture.jar"), classes());
    }

    /**
     * {@code public final class UpcallUser { public static Object stub() { return
     * Linker.nativeLinker().upcallStub(null, null, null); } }}, compiled for JDK 21 by hand; it
     * is only ever read, never loaded.
     */
    static byte[] upcallUser() {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        cw.visit(
                Opcodes.V21,
                ACC_PUBLIC | ACC_FINAL | Opcodes.ACC_SUPER,
                PACKAGE + "UpcallUser",
                null,
                "java/lang/Object",
                null);
        cw.visitSource("UpcallUser.java", null);
        MethodVisitor m = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, "stub", "()Ljava/lang/Object;", null, null);
        m.visitCode();
        org.objectweb.asm.Label line = new org.objectweb.asm.Label();
        m.visitLabel(line);
        m.visitLineNumber(7, line);
        m.visitMethodInsn(
                Opcodes.INVOKESTATIC, "java/lang/foreign/Linker", "nativeLinker", "()Ljava/lang/foreign/Linker;", true);
        m.visitInsn(Opcodes.ACONST_NULL);
        m.visitInsn(Opcodes.ACONST_NULL);
        m.visitInsn(Opcodes.ACONST_NULL);
        m.visitInsn(Opcodes.ICONST_0);
        m.visitTypeInsn(Opcodes.ANEWARRAY, "java/lang/foreign/Linker$Option");
        m.visitMethodInsn(
                Opcodes.INVOKEINTERFACE,
                "java/lang/foreign/Linker",
                "upcallStub",
                "(Ljava/lang/invoke/MethodHandle;Ljava/lang/foreign/FunctionDescriptor;Ljava/lang/foreign/Arena;"
                        + "[Ljava/lang/foreign/Linker$Option;)Ljava/lang/foreign/MemorySegment;",
                true);
        m.visitInsn(Opcodes.ARETURN);
        m.visitMaxs(0, 0);
        m.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    /** A hazard marked in a fixture source: {@code // HAZARD <rule>} on {@code line} of {@code file}. */
    record Marked(String rule, String simpleClass, int line) {}

    /** Every {@code // HAZARD} marker in the fixture sources, plus the generated upcall. */
    static List<Marked> markers() throws IOException {
        List<Marked> marked = new ArrayList<>();
        try (Stream<Path> files = Files.list(SOURCES)) {
            for (Path f : files.sorted().toList()) {
                List<String> lines = Files.readAllLines(f);
                for (int i = 0; i < lines.size(); i++) {
                    int at = lines.get(i).indexOf("// HAZARD ");
                    if (at >= 0) {
                        String name = f.getFileName().toString();
                        marked.add(new Marked(
                                lines.get(i)
                                        .substring(at + "// HAZARD ".length())
                                        .strip(),
                                name.substring(0, name.length() - ".java".length()),
                                i + 1));
                    }
                }
            }
        }
        marked.add(new Marked("native-upcall", "UpcallUser", 7));
        return marked;
    }
}
