package dev.weft.audit;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The supertypes of the audited classes, by internal name. A type outside the audit that the
 * running JDK has ({@code java/io/FilterInputStream}) gets its supertypes from there, so that an
 * audited class extending a JDK class is known to be, say, an {@code InputStream}; other types
 * outside the audit are leaves.
 */
final class Hierarchy {

    private record Supers(String superName, List<String> interfaces) {}

    private final Map<String, Supers> types = new HashMap<>();

    /** Answers of {@link #selfAndSupertypes}: asked once per call site and type, and never changing once built. */
    private final Map<String, List<String>> answers = new HashMap<>();

    void add(String name, String superName, List<String> interfaces) {
        if (types.putIfAbsent(name, new Supers(superName, List.copyOf(interfaces))) == null) {
            if (superName != null) {
                children.computeIfAbsent(superName, k -> new ArrayList<>()).add(name);
            }
            for (String i : interfaces) {
                children.computeIfAbsent(i, k -> new ArrayList<>()).add(name);
            }
        }
        answers.clear();
    }

    /** Direct subclasses and implementations, per type, among the audited classes. */
    private final Map<String, List<String>> children = new HashMap<>();

    /**
     * The audited classes that extend or implement {@code name}, at most {@code depth} levels
     * below it, nearest first; {@code name} itself is not included.
     */
    List<String> subtypes(String name, int depth) {
        List<String> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        List<String> level = List.of(name);
        for (int d = 0; d < depth && !level.isEmpty(); d++) {
            List<String> next = new ArrayList<>();
            for (String t : level) {
                for (String c : children.getOrDefault(t, List.of())) {
                    if (seen.add(c)) {
                        out.add(c);
                        next.add(c);
                    }
                }
            }
            level = next;
        }
        return out;
    }

    /** True when {@code name} is one of the audited (or classpath) classes, not a JDK one. */
    boolean contains(String name) {
        Supers s = types.get(name);
        return s != null && s != JDK_UNKNOWN && !jdk.contains(name);
    }

    private static final Supers JDK_UNKNOWN = new Supers(null, List.of());
    private final Set<String> jdk = new HashSet<>();

    /** The supertypes of {@code name}: audited, else from the running JDK (loaded, not initialized). */
    private Supers supers(String name) {
        Supers s = types.get(name);
        if (s != null
                || !(name.startsWith("java/")
                        || name.startsWith("javax/")
                        || name.startsWith("jdk/")
                        || name.startsWith("sun/"))) {
            return s == JDK_UNKNOWN ? null : s;
        }
        try {
            Class<?> c = Class.forName(name.replace('/', '.'), false, ClassLoader.getPlatformClassLoader());
            List<String> interfaces = new ArrayList<>();
            for (Class<?> i : c.getInterfaces()) {
                interfaces.add(i.getName().replace('.', '/'));
            }
            s = new Supers(
                    c.getSuperclass() == null
                            ? null
                            : c.getSuperclass().getName().replace('.', '/'),
                    interfaces);
            jdk.add(name);
        } catch (ClassNotFoundException | LinkageError e) {
            s = JDK_UNKNOWN; // not in this JDK (a newer one's, or a module not present): a leaf
        }
        types.put(name, s);
        return s == JDK_UNKNOWN ? null : s;
    }

    /** {@code name}, then its superclasses, then its interfaces, as far as the audit knows them. */
    List<String> selfAndSupertypes(String name) {
        List<String> known = answers.get(name);
        if (known == null) {
            known = List.copyOf(walk(name));
            answers.put(name, known);
        }
        return known;
    }

    private List<String> walk(String name) {
        List<String> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        Deque<String> todo = new ArrayDeque<>();
        todo.add(name);
        while (!todo.isEmpty()) {
            String t = todo.removeFirst();
            if (!seen.add(t)) {
                continue;
            }
            out.add(t);
            Supers s = supers(t);
            if (s != null) {
                if (s.superName() != null) {
                    todo.addFirst(s.superName());
                }
                todo.addAll(s.interfaces());
            }
        }
        return out;
    }

    /** True when {@code name} is {@code ancestor} or extends or implements it. */
    boolean isA(String name, String ancestor) {
        return selfAndSupertypes(name).contains(ancestor);
    }
}
