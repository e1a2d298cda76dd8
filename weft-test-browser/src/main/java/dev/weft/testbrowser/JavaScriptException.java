package dev.weft.testbrowser;

/** JavaScript evaluated with {@link Page#evaluate(String)} threw, or the promise it returned rejected. */
public final class JavaScriptException extends DevToolsException {

    /** An exception carrying the page's description of what was thrown. */
    public JavaScriptException(String message) {
        super(message, null);
    }
}
