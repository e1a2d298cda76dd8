package dev.weft.clj;

import clojure.lang.IExceptionInfo;
import clojure.lang.IPersistentMap;
import clojure.lang.PersistentArrayMap;

/**
 * The one error of weft's Clojure option checking: options that are not a map, an unknown
 * option, a bad value, or two options of which only one may be given.
 *
 * <p>It is an {@link IllegalArgumentException}, so code that catches that keeps working, and a
 * {@link IExceptionInfo}, so {@code ex-data} gives its data: {@code :weft/error} is
 * {@code :weft/invalid-option}, {@code :fn} the function that refused the options (e.g.
 * {@code "weft.scope/open"}), and, as the case may be, {@code :option}, {@code :value},
 * {@code :options} (what was given), {@code :unknown} (the unknown keys), {@code :known} (the
 * accepted ones) and {@code :did-you-mean} (for each unknown key, the closest known one, or nil).
 * The message names the problem and the fix.
 */
public final class InvalidOptionException extends IllegalArgumentException implements IExceptionInfo {

    private static final long serialVersionUID = 1L;

    private final transient IPersistentMap data;

    /** An error with {@code message} and {@code data} (a Clojure map; null is the empty map). */
    public InvalidOptionException(String message, IPersistentMap data) {
        super(message);
        this.data = data == null ? PersistentArrayMap.EMPTY : data;
    }

    /** The error's data, as {@code ex-data} returns it. */
    @Override
    public IPersistentMap getData() {
        return data;
    }
}
