package dev.weft.lab.run;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The scenarios registered in a lab, in article order.
 *
 * <p>Scenarios register with one descriptor file each under a folder of the classpath,
 * {@value #FOLDER} for the lab itself, so that adding a scenario never edits a shared list.
 */
public final class Registry {

    /** Where the lab's descriptors live on the classpath. */
    public static final String FOLDER = "META-INF/weft/scenarios/";

    private final String folder;
    private final List<Descriptor> scenarios;

    private Registry(String folder, List<Descriptor> scenarios) {
        this.folder = folder;
        this.scenarios = List.copyOf(scenarios);
    }

    /** The lab's scenarios: every descriptor under {@value #FOLDER}. */
    public static Registry load() {
        return load(FOLDER, Registry.class.getClassLoader());
    }

    /**
     * Every descriptor ({@code *.properties}) under {@code folder} in every classpath root of
     * {@code loader}, folders and jars alike.
     *
     * @throws IllegalArgumentException if a descriptor is incomplete or two share a name
     */
    public static Registry load(String folder, ClassLoader loader) {
        String prefix = folder.endsWith("/") ? folder : folder + "/";
        List<Descriptor> found = new ArrayList<>();
        try {
            for (URL root : Collections.list(loader.getResources(prefix))) {
                if ("jar".equals(root.getProtocol())) {
                    JarURLConnection connection = (JarURLConnection) root.openConnection();
                    connection.setUseCaches(false);
                    try (JarFile jar = connection.getJarFile()) {
                        for (var entry : jar.stream()
                                .filter(e -> e.getName().startsWith(prefix)
                                        && e.getName().endsWith(".properties"))
                                .toList()) {
                            try (InputStream in = jar.getInputStream(entry)) {
                                found.add(Descriptor.read(in, jar.getName() + "!/" + entry.getName()));
                            }
                        }
                    }
                } else {
                    try (Stream<Path> files = Files.list(Path.of(root.toURI()))) {
                        for (Path f : files.filter(f -> f.toString().endsWith(".properties"))
                                .sorted()
                                .toList()) {
                            try (InputStream in = Files.newInputStream(f)) {
                                found.add(Descriptor.read(in, f.toString()));
                            }
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the scenario descriptors under " + prefix, e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate the scenario descriptors under " + prefix, e);
        }
        found.sort(Comparator.comparing(Descriptor::article).thenComparing(Descriptor::name));
        for (int i = 1; i < found.size(); i++) {
            if (found.get(i).name().equals(found.get(i - 1).name())) {
                throw new IllegalArgumentException(
                        "two scenario descriptors are named " + found.get(i).name());
            }
        }
        return new Registry(prefix, found);
    }

    /** The classpath folder these descriptors came from. */
    public String folder() {
        return folder;
    }

    /** Every scenario, in article order. */
    public List<Descriptor> all() {
        return scenarios;
    }

    /** The names of every scenario, in article order. */
    public List<String> names() {
        return scenarios.stream().map(Descriptor::name).toList();
    }

    /**
     * The scenarios named, in article order.
     *
     * @throws IllegalArgumentException naming the unknown ones and listing the known ones
     */
    public List<Descriptor> select(List<String> names) {
        List<String> unknown = names.stream().filter(n -> !names().contains(n)).toList();
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(
                    "unknown scenario " + String.join(", ", unknown) + "; known: " + String.join(", ", names()));
        }
        return scenarios.stream().filter(d -> names.contains(d.name())).toList();
    }
}
