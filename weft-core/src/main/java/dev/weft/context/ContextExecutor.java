package dev.weft.context;

import java.util.concurrent.Executor;

/** An executor that runs each task with the keys bound where {@code execute} was called. */
final class ContextExecutor implements Executor {

    private final Executor delegate;

    ContextExecutor(Executor delegate) {
        this.delegate = delegate;
    }

    @Override
    public void execute(Runnable task) {
        delegate.execute(Context.wrap(task));
    }

    @Override
    public String toString() {
        return "Context.wrap(" + delegate + ")";
    }
}
