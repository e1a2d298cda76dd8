package dev.weft.audit;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One hazard found in bytecode.
 *
 * @param rule       what was found
 * @param severity   how much it matters on the audit's target JDK
 * @param className  the class, binary name with dots ({@code com.acme.Cache$Entry})
 * @param member     the method name ({@code <clinit>} for a class initializer) or the field name
 * @param descriptor the method or field descriptor, e.g. {@code ()V}
 * @param sourceFile the source file the class was compiled from, or null when unknown
 * @param line       the source line, or -1 when unknown (fields, classes without line numbers)
 * @param message    what happens there, e.g. {@code calls Thread.sleep}
 * @param path       for reachability findings, the calls from the finding's location to the
 *                   blocking operation, outermost first; empty otherwise
 * @param input      the jar or folder the class came from
 */
public record Finding(
        Rule rule,
        Severity severity,
        String className,
        String member,
        String descriptor,
        String sourceFile,
        int line,
        String message,
        List<String> path,
        String input) {

    /** @throws NullPointerException if a required component is null */
    public Finding {
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(className, "className");
        Objects.requireNonNull(member, "member");
        Objects.requireNonNull(message, "message");
        path = List.copyOf(path);
    }

    /** {@code com.acme.Cache.load} */
    public String location() {
        return className + "." + member;
    }

    /** {@code Cache.java:42}, {@code Cache.java}, or the class name when there is no source file. */
    public String sourcePosition() {
        String file = sourceFile == null ? className : sourceFile;
        return line < 0 ? file : file + ":" + line;
    }

    /** The finding as data: {@code rule, severity, class, member, descriptor, source_file, line, message, path, input}. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rule", rule.id());
        m.put("severity", severity.toString());
        m.put("class", className);
        m.put("member", member);
        m.put("descriptor", descriptor);
        m.put("source_file", sourceFile);
        m.put("line", line < 0 ? null : line);
        m.put("message", message);
        m.put("path", path);
        m.put("input", input);
        return m;
    }
}
