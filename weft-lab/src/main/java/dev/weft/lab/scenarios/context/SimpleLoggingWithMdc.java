package dev.weft.lab.scenarios.context;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.simple.SimpleServiceProvider;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The lab's SLF4J binding (slf4j-simple) with an MDC that keeps entries: SLF4J's own reference
 * adapter, {@link BasicMDCAdapter}. slf4j-simple's MDC is a no-op, so the context scenario's
 * {@code weft-context-mdc} variant would mirror its request id into nothing; its JVM selects this
 * provider ({@code -Dslf4j.provider}, in context.properties). Every other JVM of the lab keeps
 * slf4j-simple as it is.
 */
public final class SimpleLoggingWithMdc implements SLF4JServiceProvider {

    private final SimpleServiceProvider simple = new SimpleServiceProvider();
    private final MDCAdapter mdc = new BasicMDCAdapter();

    @Override
    public ILoggerFactory getLoggerFactory() {
        return simple.getLoggerFactory();
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return simple.getMarkerFactory();
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return simple.getRequestedApiVersion();
    }

    @Override
    public void initialize() {
        simple.initialize();
    }
}
