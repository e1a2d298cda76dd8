package dev.weft.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuditorTest {

    private static final String FIX = "dev.weft.audit.fixture.";

    /** rule | class | member | severity on JDK 21 | severity on JDK 25 | path (for reachability findings). */
    private static final List<List<String>> EXPECTED = List.of(
            List.of("blocking-in-class-init", "BlockingInit", "<clinit>", "error", "error", "java.lang.Thread.sleep"),
            List.of(
                    "blocking-in-class-init",
                    "IndirectInit",
                    "<clinit>",
                    "error",
                    "error",
                    FIX + "Loader.load -> java.util.concurrent.CountDownLatch.await"),
            List.of(
                    "blocking-in-class-init",
                    "LockInInit",
                    "<clinit>",
                    "warning",
                    "warning",
                    "java.util.concurrent.locks.ReentrantLock.lock"),
            List.of(
                    "synchronized-blocking",
                    "SyncMethod",
                    "take",
                    "error",
                    "info",
                    "java.util.concurrent.BlockingQueue.take"),
            List.of(
                    "synchronized-blocking",
                    "SyncBlock",
                    "refresh",
                    "error",
                    "info",
                    FIX + "SyncBlock.fetch -> java.lang.Thread.sleep"),
            List.of("synchronized-blocking", "SocketRead", "next", "error", "info", "java.io.InputStream.read"),
            List.of(
                    "synchronized-blocking",
                    "FramedReader",
                    "readFrame",
                    "error",
                    "info",
                    "java.io.DataInputStream.readFully"),
            List.of("synchronized-blocking", "StreamCopier", "copy", "warning", "info", "java.io.InputStream.read"),
            List.of(
                    "synchronized-blocking",
                    "Dispatcher",
                    "poll",
                    "error",
                    "info",
                    FIX + "SocketTransport.receive (dispatch of Transport.receive) -> java.io.InputStream.read"),
            List.of("object-wait", "Waiter", "awaitReady", "error", "info", ""),
            List.of("native-method", "NativeHolder", "poll", "warning", "warning", ""),
            List.of("native-upcall", "UpcallUser", "stub", "warning", "warning", ""),
            List.of("thread-yield-spin", "Spinner", "awaitDone", "warning", "warning", ""),
            List.of("thread-local-field", "Holder", "BUFFER", "info", "info", ""));

    private static Set<List<String>> expected(int targetJdk) {
        return EXPECTED.stream()
                .map(e -> List.of(e.get(0), FIX + e.get(1), e.get(2), e.get(targetJdk < 24 ? 3 : 4), e.get(5)))
                .collect(Collectors.toSet());
    }

    private static Set<List<String>> found(AuditReport r) {
        return r.findings().stream()
                .map(f -> List.of(
                        f.rule().id(),
                        f.className(),
                        f.member(),
                        f.severity().toString(),
                        String.join(" -> ", f.path())))
                .collect(Collectors.toSet());
    }

    @Test
    void findsEveryHazardInTheFixtureJarAndNothingElse(@TempDir Path dir) throws Exception {
        Path jar = Fixtures.fixtureJar(dir);
        for (int jdk : new int[] {21, 25}) {
            AuditReport r = Auditor.forTargetJdk(jdk).audit(List.of(jar.toString()));
            assertEquals(expected(jdk), found(r), "target JDK " + jdk + ":\n" + r.toText());
            assertEquals(EXPECTED.size(), r.findings().size(), r.toText());
            assertEquals(jdk, r.targetJdk());
            assertTrue(r.problems().isEmpty(), r.problems().toString());
            assertEquals(Fixtures.classes().size(), r.classes());
        }
    }

    @Test
    void streamFindingsSayWhetherTheStreamIsASockets(@TempDir Path dir) throws Exception {
        AuditReport r =
                Auditor.forTargetJdk(21).audit(List.of(Fixtures.fixtureJar(dir).toString()));
        Map<String, String> messages = new HashMap<>();
        r.findings().forEach(f -> messages.put(f.className().substring(FIX.length()), f.message()));
        assertEquals(
                "synchronized method calls InputStream.read, which blocks on a socket: the stream is Socket.getInputStream()",
                messages.get("SocketRead"));
        assertEquals(
                "synchronized block calls DataInputStream.readFully, which blocks on a socket: the stream is"
                        + " Socket.getInputStream() via field FramedReader.in",
                messages.get("FramedReader"));
        assertEquals(
                "synchronized method calls InputStream.read, which blocks if the stream is a socket's, which the audit"
                        + " cannot tell (it is a parameter)",
                messages.get("StreamCopier"));
        assertTrue(
                messages.get("Dispatcher")
                        .startsWith("synchronized method calls SocketTransport.receive (dispatch of"
                                + " Transport.receive), which leads to InputStream.read, which blocks on a socket: the stream is"
                                + " Socket.getInputStream() via field SocketTransport.in"),
                messages.get("Dispatcher"));
        assertEquals(null, messages.get("Clean"), "memory, console and file streams are not sockets");
    }

    @Test
    void dispatchIsFollowedOnlyToFewImplementations(@TempDir Path dir) throws Exception {
        Map<String, byte[]> all = Fixtures.classes();
        Map<String, byte[]> entries = new TreeMap<>();
        for (String c : List.of("Dispatcher", "Transport", "SocketTransport")) {
            entries.put(Fixtures.PACKAGE + c + ".class", all.get(Fixtures.PACKAGE + c + ".class"));
        }
        Auditor a = Auditor.forTargetJdk(21);
        assertEquals(
                1,
                a.audit(List.of(Fixtures.jar(dir.resolve("one.jar"), entries).toString()))
                        .findings()
                        .size());
        for (int i = 0; i < Auditor.MAX_IMPLEMENTATIONS; i++) {
            entries.put("p/Quiet" + i + ".class", quietTransport("p/Quiet" + i));
        }
        AuditReport many =
                a.audit(List.of(Fixtures.jar(dir.resolve("many.jar"), entries).toString()));
        assertEquals(
                List.of(),
                many.findings(),
                "more than " + Auditor.MAX_IMPLEMENTATIONS + " implementations: not followed");
    }

    @Test
    void aConstructorThatBlocksIsFollowed(@TempDir Path dir) throws Exception {
        var slow = new org.objectweb.asm.ClassWriter(org.objectweb.asm.ClassWriter.COMPUTE_MAXS);
        slow.visit(
                org.objectweb.asm.Opcodes.V21,
                org.objectweb.asm.Opcodes.ACC_PUBLIC,
                "p/Slow",
                null,
                "java/lang/Object",
                null);
        var init = slow.visitMethod(org.objectweb.asm.Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(org.objectweb.asm.Opcodes.ALOAD, 0);
        init.visitMethodInsn(org.objectweb.asm.Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        init.visitInsn(org.objectweb.asm.Opcodes.LCONST_1);
        init.visitMethodInsn(org.objectweb.asm.Opcodes.INVOKESTATIC, "java/lang/Thread", "sleep", "(J)V", false);
        init.visitInsn(org.objectweb.asm.Opcodes.RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();
        slow.visitEnd();
        var user = new org.objectweb.asm.ClassWriter(org.objectweb.asm.ClassWriter.COMPUTE_MAXS);
        user.visit(
                org.objectweb.asm.Opcodes.V21,
                org.objectweb.asm.Opcodes.ACC_PUBLIC,
                "p/User",
                null,
                "java/lang/Object",
                null);
        var make = user.visitMethod(
                org.objectweb.asm.Opcodes.ACC_PUBLIC | org.objectweb.asm.Opcodes.ACC_SYNCHRONIZED,
                "make",
                "()Ljava/lang/Object;",
                null,
                null);
        make.visitCode();
        make.visitTypeInsn(org.objectweb.asm.Opcodes.NEW, "p/Slow");
        make.visitInsn(org.objectweb.asm.Opcodes.DUP);
        make.visitMethodInsn(org.objectweb.asm.Opcodes.INVOKESPECIAL, "p/Slow", "<init>", "()V", false);
        make.visitInsn(org.objectweb.asm.Opcodes.ARETURN);
        make.visitMaxs(0, 0);
        make.visitEnd();
        user.visitEnd();
        Path jar = Fixtures.jar(
                dir.resolve("ctor.jar"),
                Map.of("p/Slow.class", slow.toByteArray(), "p/User.class", user.toByteArray()));
        AuditReport r = Auditor.forTargetJdk(21).audit(List.of(jar.toString()));
        assertEquals(
                List.of("p.Slow.<init> -> java.lang.Thread.sleep"),
                r.findings().stream().map(f -> String.join(" -> ", f.path())).toList(),
                r.toText());
    }

    /** A Transport whose receive() returns 0. */
    private static byte[] quietTransport(String name) {
        var cw = new org.objectweb.asm.ClassWriter(org.objectweb.asm.ClassWriter.COMPUTE_MAXS);
        cw.visit(
                org.objectweb.asm.Opcodes.V21,
                org.objectweb.asm.Opcodes.ACC_PUBLIC,
                name,
                null,
                "java/lang/Object",
                new String[] {Fixtures.PACKAGE + "Transport"});
        var m = cw.visitMethod(org.objectweb.asm.Opcodes.ACC_PUBLIC, "receive", "()I", null, null);
        m.visitCode();
        m.visitInsn(org.objectweb.asm.Opcodes.ICONST_0);
        m.visitInsn(org.objectweb.asm.Opcodes.IRETURN);
        m.visitMaxs(0, 0);
        m.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    @Test
    void reportsEachHazardAtTheLineItIsOn(@TempDir Path dir) throws Exception {
        AuditReport r =
                Auditor.forTargetJdk(21).audit(List.of(Fixtures.fixtureJar(dir).toString()));
        Map<String, Finding> byRuleAndClass = new HashMap<>();
        r.findings().forEach(f -> byRuleAndClass.put(f.rule().id() + " " + f.className(), f));
        for (Fixtures.Marked m : Fixtures.markers()) {
            Finding f = byRuleAndClass.get(m.rule() + " " + FIX + m.simpleClass());
            assertTrue(f != null, "no " + m.rule() + " finding for " + m.simpleClass() + ":\n" + r.toText());
            boolean hasLine = !(m.rule().equals("native-method") || m.rule().equals("thread-local-field"));
            assertEquals(hasLine ? m.line() : -1, f.line(), f.toString());
            assertEquals(m.simpleClass() + ".java" + (hasLine ? ":" + m.line() : ""), f.sourcePosition());
        }
        assertEquals(EXPECTED.size(), Fixtures.markers().size(), "one marker per expected finding");
    }

    @Test
    void readsFoldersClassFilesAndClasspaths(@TempDir Path dir) throws Exception {
        Path classes = dir.resolve("classes");
        for (var e : Fixtures.classes().entrySet()) {
            Path f = classes.resolve(e.getKey());
            Files.createDirectories(f.getParent());
            Files.write(f, e.getValue());
        }
        Auditor a = Auditor.forTargetJdk(21);
        assertEquals(expected(21), found(a.audit(List.of(classes.toString()))), "a folder of classes");

        Path spinner = classes.resolve(Fixtures.PACKAGE + "Spinner.class");
        Path holder = classes.resolve(Fixtures.PACKAGE + "Holder.class");
        AuditReport two = a.audit(List.of(spinner + File.pathSeparator + holder));
        assertEquals(
                Set.of("thread-yield-spin", "thread-local-field"),
                two.findings().stream().map(f -> f.rule().id()).collect(Collectors.toSet()),
                "a classpath of class files");
        assertEquals(2, two.inputs().size());
    }

    @Test
    void followsCallsIntoTheClasspathWithoutReportingIt(@TempDir Path dir) throws Exception {
        Map<String, byte[]> all = Fixtures.classes();
        Path app = Fixtures.jar(
                dir.resolve("app.jar"),
                Map.of(Fixtures.PACKAGE + "IndirectInit.class", all.get(Fixtures.PACKAGE + "IndirectInit.class")));
        Path lib = Fixtures.jar(
                dir.resolve("lib.jar"),
                Map.of(
                        Fixtures.PACKAGE + "Loader.class", all.get(Fixtures.PACKAGE + "Loader.class"),
                        Fixtures.PACKAGE + "Spinner.class", all.get(Fixtures.PACKAGE + "Spinner.class")));
        Auditor a = Auditor.forTargetJdk(21);
        assertEquals(
                List.of(), a.audit(List.of(app.toString())).findings(), "Loader unknown: the call is not followed");
        AuditReport r = a.audit(List.of(app.toString()), List.of(lib.toString()));
        assertEquals(
                Set.of(List.of(
                        "blocking-in-class-init",
                        FIX + "IndirectInit",
                        "<clinit>",
                        "error",
                        FIX + "Loader.load -> java.util.concurrent.CountDownLatch.await")),
                found(r),
                "the spinner in lib is not reported");
        assertEquals(1, r.classes(), "only the audited classes count");
        assertEquals(List.of(app.toString()), r.inputs());
    }

    @Test
    void readsJarsNestedInJars(@TempDir Path dir) throws Exception {
        Path inner = Fixtures.fixtureJar(dir);
        Path outer =
                Fixtures.jar(dir.resolve("app.jar"), Map.of("BOOT-INF/lib/fixture.jar", Files.readAllBytes(inner)));
        AuditReport r = Auditor.forTargetJdk(21).audit(List.of(outer.toString()));
        assertEquals(expected(21), found(r));
        assertTrue(
                r.findings().getFirst().input().endsWith("app.jar!/BOOT-INF/lib/fixture.jar"),
                r.findings().getFirst().input());
    }

    @Test
    void takesTheNewestMultiReleaseVersionForTheTarget(@TempDir Path dir) throws Exception {
        Map<String, byte[]> all = Fixtures.classes();
        Map<String, byte[]> entries = new TreeMap<>();
        entries.put("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nMulti-Release: true\n".getBytes());
        // the base version of Spinner is an empty class; from JDK 24 on it is the spinning one
        entries.put(Fixtures.PACKAGE + "Spinner.class", emptyClass(Fixtures.PACKAGE + "Spinner"));
        entries.put(
                "META-INF/versions/24/" + Fixtures.PACKAGE + "Spinner.class",
                all.get(Fixtures.PACKAGE + "Spinner.class"));
        Path jar = Fixtures.jar(dir.resolve("mr.jar"), entries);
        assertEquals(
                0,
                Auditor.forTargetJdk(21)
                        .audit(List.of(jar.toString()))
                        .findings()
                        .size());
        AuditReport on25 = Auditor.forTargetJdk(25).audit(List.of(jar.toString()));
        assertEquals(
                List.of(Rule.THREAD_YIELD_SPIN),
                on25.findings().stream().map(Finding::rule).toList());
        assertEquals(1, on25.classes());
    }

    /** A class with nothing in it, named {@code internalName}. */
    private static byte[] emptyClass(String internalName) {
        var writer = new org.objectweb.asm.ClassWriter(0);
        writer.visit(
                org.objectweb.asm.Opcodes.V21,
                org.objectweb.asm.Opcodes.ACC_PUBLIC,
                internalName,
                null,
                "java/lang/Object",
                null);
        writer.visitEnd();
        return writer.toByteArray();
    }

    @Test
    void whatCannotBeAuditedIsReportedNotDropped(@TempDir Path dir) throws Exception {
        Map<String, byte[]> entries = new TreeMap<>(Fixtures.classes());
        entries.put("broken/Broken.class", new byte[] {(byte) 0xCA, (byte) 0xFE, 0, 1, 2});
        Path jar = Fixtures.jar(dir.resolve("broken.jar"), entries);
        Path copy = Files.copy(Fixtures.fixtureJar(dir), dir.resolve("copy.jar"));
        AuditReport r = Auditor.forTargetJdk(21).audit(List.of(jar.toString(), copy.toString()));
        assertEquals(expected(21), found(r), "the readable classes are audited, once");
        assertEquals(2, r.problems().size(), r.problems().toString());
        assertTrue(
                r.problems().get(0).contains("broken/Broken.class could not be read as a class file"),
                r.problems().get(0));
        assertTrue(
                r.problems().get(1).startsWith(Fixtures.classes().size() + " classes appeared more than once"),
                r.problems().get(1));
        assertTrue(r.toText().contains("\nnot audited\n"), r.toText());
    }

    @Test
    void badInputsAreNamedWithTheFix(@TempDir Path dir) throws Exception {
        Auditor a = Auditor.forTargetJdk(21);
        var missing = assertThrows(
                IllegalArgumentException.class,
                () -> a.audit(List.of(dir.resolve("nope.jar").toString())));
        assertTrue(missing.getMessage().startsWith("no such file or folder: "), missing.getMessage());
        Path text = Files.writeString(dir.resolve("notes.txt"), "hello");
        var notJar = assertThrows(IllegalArgumentException.class, () -> a.audit(List.of(text.toString())));
        assertTrue(notJar.getMessage().contains("is not a jar, a .class file or a folder"), notJar.getMessage());
        assertThrows(IllegalArgumentException.class, () -> a.audit(List.of()));
        var old = assertThrows(IllegalArgumentException.class, () -> Auditor.forTargetJdk(17));
        assertEquals("target JDK 17 has no virtual threads; give 21 or newer", old.getMessage());
        var future = assertThrows(IllegalArgumentException.class, () -> Auditor.forTargetJdk(99));
        assertEquals(
                "target JDK 99 is newer than the pinning rules the audit knows; give 21 to " + Auditor.maxTargetJdk(),
                future.getMessage());
    }

    @Test
    void inputsThatHoldNothingToAuditAreErrorsNamingTheFile(@TempDir Path dir) throws Exception {
        Auditor a = Auditor.forTargetJdk(21);
        Path empty = Files.createDirectories(dir.resolve("classes"));
        assertEquals(
                empty + ": an empty folder; give the folder the build writes its classes to (e.g. target/classes,"
                        + " after mvn compile) or a jar",
                badInput(a, empty));
        Path noClasses = Files.createDirectories(dir.resolve("resources"));
        Files.writeString(noClasses.resolve("app.properties"), "a=1");
        assertTrue(badInput(a, noClasses).startsWith(noClasses + ": a folder with no class files or jars;"));
        Path text = Files.writeString(dir.resolve("x.jar"), "not a jar");
        assertEquals(
                text + ": not a jar (no zip header); give a jar built by your build tool, a folder of classes or"
                        + " .class files",
                badInput(a, text));
        Path zero = Files.write(dir.resolve("zero.jar"), new byte[0]);
        assertTrue(badInput(a, zero).contains("not a jar (the file is empty)"));
        byte[] whole = Files.readAllBytes(Fixtures.fixtureJar(dir));
        Path cut = Files.write(dir.resolve("cut.jar"), java.util.Arrays.copyOf(whole, whole.length / 2));
        assertTrue(badInput(a, cut).startsWith(cut + ": a truncated or corrupt jar ("), badInput(a, cut));
        byte[] garbled = whole.clone();
        for (int i = 200; i < whole.length / 2; i++) {
            garbled[i] ^= 0x5A; // entries garbled, the central directory intact
        }
        Path corrupt = Files.write(dir.resolve("corrupt.jar"), garbled);
        assertTrue(badInput(a, corrupt).startsWith(corrupt + ": a truncated or corrupt jar ("), badInput(a, corrupt));
        Path resourcesOnly = Fixtures.jar(dir.resolve("resources.jar"), Map.of("app.properties", "a=1".getBytes()));
        assertEquals(
                resourcesOnly + ": no class files in it; give jars or folders of compiled classes",
                badInput(a, resourcesOnly));
    }

    /** The one-line message of the audit's refusal of {@code input}. */
    private static String badInput(Auditor a, Path input) {
        String message = assertThrows(IllegalArgumentException.class, () -> a.audit(List.of(input.toString())))
                .getMessage();
        assertEquals(1, message.lines().count(), message);
        return message;
    }

    @Test
    void aThreadLocalSubclassInTheAuditedCodeCountsToo(@TempDir Path dir) throws Exception {
        var cw = new org.objectweb.asm.ClassWriter(0);
        cw.visit(
                org.objectweb.asm.Opcodes.V21,
                org.objectweb.asm.Opcodes.ACC_PUBLIC,
                "p/Counter",
                null,
                "java/lang/ThreadLocal",
                null);
        cw.visitEnd();
        var user = new org.objectweb.asm.ClassWriter(0);
        user.visit(
                org.objectweb.asm.Opcodes.V21,
                org.objectweb.asm.Opcodes.ACC_PUBLIC,
                "p/User",
                null,
                "java/lang/Object",
                null);
        user.visitField(org.objectweb.asm.Opcodes.ACC_PRIVATE, "counter", "Lp/Counter;", null, null)
                .visitEnd();
        user.visitEnd();
        Path jar = Fixtures.jar(
                dir.resolve("tl.jar"), Map.of("p/Counter.class", cw.toByteArray(), "p/User.class", user.toByteArray()));
        AuditReport r = Auditor.forTargetJdk(21).audit(List.of(jar.toString()));
        assertEquals(1, r.findings().size(), r.toText());
        assertEquals(
                "field counter holds a Counter: one value per thread that uses it",
                r.findings().getFirst().message());
    }
}
