package dev.weft.lab;

import java.util.Locale;

/** How big a lab run is. */
public enum Mode {
    /** Tiny sizes that only prove every scenario runs and reports the right shape; figures mean nothing. */
    SMOKE,
    /** The default: sizes chosen so the whole lab finishes within 3 minutes on a 2-core machine. */
    QUICK,
    /** The articles' original sizes. */
    FULL;

    /** The lower-case name written to {@code results.json}. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The mode named {@code name} (any case). */
    public static Mode parse(String name) {
        return valueOf(name.strip().toUpperCase(Locale.ROOT));
    }
}
