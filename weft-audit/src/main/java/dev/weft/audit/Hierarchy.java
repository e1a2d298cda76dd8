package dev.weft.audit;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The supertypes of the audited classes, by internal name; classes outside the audit are leaves. */
final class Hierarchy {

    private record Supers(String superName, List<String> interfaces) {
    }

    private final Map<String, Supers> types = new HashMap<>();

    void add(String name, String superName, List<String> interfaces) {
        types.putIfAbsent(name, new Supers(superName, List.copyOf(interfaces)));
    }

    boolean contains(String name) {
        return types.containsKey(name);
    }

    /** {@code name}, then its superclasses, then its interfaces, as far as the audit knows them. */
    List<String> selfAndSupertypes(String name) {
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
            Supers s = types.get(t);
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
