package dev.weft.ring;

import java.util.concurrent.atomic.LongAdder;

/**
 * A server's admission counts: requests let in, shed, and dropped for a client that had gone or a
 * deadline that had passed. Kept by the server rather than read from its limiter, because a
 * limiter may be shared with other servers and entry points (decision 0900).
 */
final class Admission {

    private final LongAdder admitted = new LongAdder();
    private final LongAdder shed = new LongAdder();
    private final LongAdder dropped = new LongAdder();

    void admit() {
        admitted.increment();
    }

    void reject() {
        shed.increment();
    }

    void drop() {
        dropped.increment();
    }

    long admitted() {
        return admitted.sum();
    }

    long shed() {
        return shed.sum();
    }

    long dropped() {
        return dropped.sum();
    }
}
