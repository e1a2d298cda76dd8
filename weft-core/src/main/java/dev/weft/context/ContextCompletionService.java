package dev.weft.context;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletionService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** A completion service that runs every submitted task with the keys bound where it was submitted. */
final class ContextCompletionService<V> implements CompletionService<V> {

    private final CompletionService<V> delegate;

    ContextCompletionService(CompletionService<V> delegate) {
        this.delegate = delegate;
    }

    @Override
    public Future<V> submit(Callable<V> task) {
        return delegate.submit(Context.wrap(task));
    }

    @Override
    public Future<V> submit(Runnable task, V result) {
        return delegate.submit(Context.wrap(task), result);
    }

    @Override
    public Future<V> take() throws InterruptedException {
        return delegate.take();
    }

    @Override
    public Future<V> poll() {
        return delegate.poll();
    }

    @Override
    public Future<V> poll(long timeout, TimeUnit unit) throws InterruptedException {
        return delegate.poll(timeout, unit);
    }

    @Override
    public String toString() {
        return "Context.wrap(" + delegate + ")";
    }
}
