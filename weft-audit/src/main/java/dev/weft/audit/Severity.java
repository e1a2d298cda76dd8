package dev.weft.audit;

import java.util.Locale;

/** How much a finding matters, most severe first. */
public enum Severity {
    /** Pins or blocks carriers on the target JDK: fix it before running on virtual threads. */
    ERROR("error"),
    /** Can pin or waste carriers depending on what runs: review it. */
    WARNING("warning"),
    /** Costs something with many virtual threads, or pinned only on older JDKs: worth knowing. */
    INFO("note");

    private final String sarifLevel;

    Severity(String sarifLevel) {
        this.sarifLevel = sarifLevel;
    }

    /** The SARIF 2.1.0 {@code level}: {@code error}, {@code warning} or {@code note}. */
    public String sarifLevel() {
        return sarifLevel;
    }

    /** True when this severity is {@code other} or more severe. */
    public boolean atLeast(Severity other) {
        return compareTo(other) <= 0;
    }

    /**
     * The severity named {@code name}: {@code error}, {@code warning} or {@code info}, any case.
     *
     * @throws IllegalArgumentException naming the accepted values
     */
    public static Severity parse(String name) {
        return switch (name.strip().toLowerCase(Locale.ROOT)) {
            case "error" -> ERROR;
            case "warning" -> WARNING;
            case "info" -> INFO;
            default ->
                throw new IllegalArgumentException("unknown severity \"" + name + "\"; use error, warning or info");
        };
    }

    /** The lower-case name: {@code error}, {@code warning} or {@code info}. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
