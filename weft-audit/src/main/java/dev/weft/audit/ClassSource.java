package dev.weft.audit;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;

/**
 * The class files of the audit's inputs: jars (with the jars nested in them, one level deep, as
 * in Spring Boot or WAR archives), folders of classes and jars, single class files, and
 * classpaths that join any of these with the path separator. A multi-release jar contributes,
 * per class, its newest version for the target JDK.
 */
final class ClassSource {

    /** One class file. */
    record ClassFile(String name, byte[] bytes, String input) {}

    private static final Pattern VERSIONED = Pattern.compile("META-INF/versions/(\\d+)/(.+)");

    private final int targetJdk;
    private final List<ClassFile> classes = new ArrayList<>();
    private final List<String> inputs = new ArrayList<>();

    ClassSource(int targetJdk) {
        this.targetJdk = targetJdk;
    }

    /**
     * Adds everything {@code arg} names.
     *
     * @throws IllegalArgumentException naming the entry that does not exist or is not a jar, a
     *                                  class file or a folder
     * @throws IOException              if reading fails
     */
    void add(String arg) throws IOException {
        for (String part : arg.split(Pattern.quote(File.pathSeparator))) {
            if (part.isBlank()) {
                continue;
            }
            Path p = Path.of(part);
            if (!Files.exists(p)) {
                throw new IllegalArgumentException("no such file or folder: " + part
                        + " (give jars, folders of classes, .class files or a classpath)");
            }
            if (Files.isDirectory(p)) {
                addFolder(p);
            } else if (isJar(p.toString())) {
                inputs.add(p.toString());
                addJarFile(p);
            } else if (p.toString().endsWith(".class")) {
                inputs.add(p.toString());
                classes.add(new ClassFile(p.toString(), Files.readAllBytes(p), p.toString()));
            } else {
                throw new IllegalArgumentException(part + " is not a jar, a .class file or a folder; give one of those"
                        + " (or a classpath of them)");
            }
        }
    }

    List<ClassFile> classes() {
        return classes;
    }

    List<String> inputs() {
        return inputs;
    }

    private static boolean isJar(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return n.endsWith(".jar") || n.endsWith(".war") || n.endsWith(".zip");
    }

    /**
     * A folder of classes or jars. One with neither is an error, not an audit of nothing: a CI job
     * pointed at an unbuilt {@code target/classes} must not pass.
     */
    private void addFolder(Path folder) throws IOException {
        inputs.add(folder.toString());
        List<Path> files;
        try (Stream<Path> walk = Files.walk(folder)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        int found = 0;
        for (Path f : files) {
            String name = f.toString();
            if (name.endsWith(".class") && !f.getFileName().toString().equals("module-info.class")) {
                classes.add(new ClassFile(folder.relativize(f).toString(), Files.readAllBytes(f), folder.toString()));
                found++;
            } else if (isJar(name)) {
                addJarFile(f);
                found++;
            }
        }
        if (found == 0) {
            throw new IllegalArgumentException(
                    folder + ": " + (files.isEmpty() ? "an empty folder" : "a folder with no class files or jars")
                            + "; give the folder the build writes its classes to (e.g. target/classes, after mvn compile) or a jar");
        }
    }

    /**
     * A jar, zip or war on disk: checked first as a whole (a file that is not a zip, or one cut
     * short, has no central directory at its end), then read entry by entry.
     */
    private void addJarFile(Path jar) throws IOException {
        byte[] magic = new byte[4];
        int read;
        try (InputStream in = Files.newInputStream(jar)) {
            read = in.readNBytes(magic, 0, 4);
        }
        if (read < 4
                || magic[0] != 'P'
                || magic[1] != 'K'
                || !((magic[2] == 3 && magic[3] == 4) || (magic[2] == 5 && magic[3] == 6))) {
            throw new IllegalArgumentException(
                    jar + ": not a jar (" + (read == 0 ? "the file is empty" : "no zip header")
                            + "); give a jar built by your build tool, a folder of classes or .class files");
        }
        try (ZipFile whole = new ZipFile(jar.toFile())) {
            whole.size(); // opening reads the central directory: a truncated jar fails here
        } catch (ZipException e) {
            throw corrupt(jar.toString(), e);
        }
        try (InputStream in = Files.newInputStream(jar)) {
            addJar(in, jar.toString(), true);
        }
    }

    private static IllegalArgumentException corrupt(String jar, IOException e) {
        return new IllegalArgumentException(jar + ": a truncated or corrupt jar ("
                + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())
                + "); build or download it again");
    }

    private void addJar(InputStream raw, String input, boolean nest) throws IOException {
        Map<String, ClassFile> base = new LinkedHashMap<>();
        Map<String, Integer> versionOf = new LinkedHashMap<>();
        List<byte[]> nested = new ArrayList<>();
        List<String> nestedNames = new ArrayList<>();
        try (ZipInputStream zip = new ZipInputStream(raw)) {
            readEntries(zip, input, nest, base, versionOf, nested, nestedNames);
        } catch (ZipException | EOFException e) {
            throw corrupt(input, e);
        }
        classes.addAll(base.values());
        for (int i = 0; i < nested.size(); i++) {
            addJar(new ByteArrayInputStream(nested.get(i)), nestedNames.get(i), false);
        }
    }

    private void readEntries(
            ZipInputStream zip,
            String input,
            boolean nest,
            Map<String, ClassFile> base,
            Map<String, Integer> versionOf,
            List<byte[]> nested,
            List<String> nestedNames)
            throws IOException {
        ZipEntry e;
        while ((e = zip.getNextEntry()) != null) {
            String name = e.getName();
            if (e.isDirectory()) {
                continue;
            }
            if (name.endsWith(".class")) {
                String className = name;
                int version = 0;
                Matcher m = VERSIONED.matcher(name);
                if (m.matches()) {
                    version = Integer.parseInt(m.group(1));
                    className = m.group(2);
                    if (version > targetJdk) {
                        continue; // for a newer JDK than the target
                    }
                }
                if (className.endsWith("module-info.class")) {
                    continue;
                }
                Integer had = versionOf.get(className);
                if (had == null || version > had) {
                    versionOf.put(className, version);
                    base.put(className, new ClassFile(className, zip.readAllBytes(), input));
                }
            } else if (nest && isJar(name)) {
                nested.add(zip.readAllBytes());
                nestedNames.add(input + "!/" + name);
            }
        }
    }
}
