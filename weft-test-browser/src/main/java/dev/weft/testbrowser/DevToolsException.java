package dev.weft.testbrowser;

/** A DevTools command failed, timed out, or the connection to Chromium broke. */
public class DevToolsException extends RuntimeException {

    /** An exception with {@code message} and its {@code cause} (may be null). */
    public DevToolsException(String message, Throwable cause) {
        super(message, cause);
    }
}
