package dev.weft.pin;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One frame of a pinned virtual thread's stack, as JFR recorded it.
 *
 * <p>Hidden classes (lambdas, {@code MethodHandles.Lookup.defineHiddenClass}) carry a per-class
 * address in their names, and JFR writes it in two forms: {@code Foo$$Lambda/0x000000003a045400}
 * (JDK 24+) and {@code Foo+0x00000008002e2000.537410611} (JDK 21, with an id after the address).
 * Both are dropped, so that every copy of the same code counts as one site and a frame reads the
 * same on every JDK.
 *
 * @param className   the declaring class, binary name with dots ({@code com.acme.Cache$Entry})
 * @param method      the method name ({@code <clinit>} for a class initializer)
 * @param line        the source line, or -1 when unknown
 * @param nativeFrame whether JFR marked it a native frame (a JNI method or an FFM downcall), which
 *                    a virtual thread cannot unmount past
 */
public record PinFrame(String className, String method, int line, boolean nativeFrame) {

    private static final Pattern HIDDEN_SUFFIX = Pattern.compile("[./+]0x[0-9a-fA-F]+(?:\\.[0-9]+)?");

    /** A Java frame. */
    public PinFrame(String className, String method, int line) {
        this(className, method, line, false);
    }

    /** @throws NullPointerException if a name is null */
    public PinFrame {
        className = normalize(Objects.requireNonNull(className, "className"));
        Objects.requireNonNull(method, "method");
    }

    /** {@code text} with the addresses of hidden classes removed. */
    static String normalize(String text) {
        return text == null ? null : HIDDEN_SUFFIX.matcher(text).replaceAll("");
    }

    /**
     * The frame as data: {@code class, method, line} (line null when unknown), and
     * {@code native: true} for a native frame.
     */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("class", className);
        m.put("method", method);
        m.put("line", line < 0 ? null : line);
        if (nativeFrame) {
            m.put("native", true);
        }
        return m;
    }

    /**
     * {@code com.acme.Cache.load(line 42)}, {@code com.acme.Cache.load} without a line, or
     * {@code com.acme.Native.call(native)}.
     */
    @Override
    public String toString() {
        return className + "." + method + (nativeFrame ? "(native)" : line < 0 ? "" : "(line " + line + ")");
    }
}
