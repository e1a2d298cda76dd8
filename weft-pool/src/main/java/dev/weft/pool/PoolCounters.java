package dev.weft.pool;

import java.util.concurrent.atomic.LongAdder;

/** A pool's history, counted without a lock (striped where the borrow path counts). */
final class PoolCounters {
    final LongAdder created = new LongAdder();
    final LongAdder destroyed = new LongAdder();
    final LongAdder timeouts = new LongAdder();
    final LongAdder createFailures = new LongAdder();
    final LongAdder leaks = new LongAdder();
    /** Every successful borrow's wait: its count is the number of borrows. */
    final WaitHistogram waits = new WaitHistogram();
}
