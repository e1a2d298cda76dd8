package dev.weft.pool;

import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Test;

/**
 * Lincheck's model checker on the hand-off kernel's lock-free part (the model tier, which runs
 * every *LincheckTest: build/test/model.sh): borrowers claiming slots by the fast path and returns freeing them, every
 * interleaving of up to three threads explored; each operation must be linearizable against the
 * kernel run one operation at a time. The parked path (take) is left to HandOffStressTest: a
 * borrower that is not the head of the queue deliberately does not claim, which no sequential
 * specification of "borrow" allows (doc/testing.md).
 */
public class HandOffLincheckTest {

    private final HandOff<Integer> kernel = new HandOff<>("lincheck", 2, () -> {});
    /**
     * One slot: with two, the kernel may claim slot 1 while slot 0 is free (its scan passed slot
     * 0 while it was borrowed). Its contract is "a free slot", which a deterministic sequential
     * specification cannot express; the model checker found the difference at once (doc/testing.md).
     */
    private final Slot<Integer> slot = new Slot<>(null, 0, 0L, Slot.BORROWED);

    public HandOffLincheckTest() {
        kernel.add(slot);
    }

    /** The fast path: whether the slot was claimed. */
    @Operation
    public boolean borrow() {
        return kernel.poll() != null;
    }

    /** Returns the slot if it is borrowed (false if it was free). */
    @Operation
    public boolean giveBack() {
        return kernel.free(slot);
    }

    @Test
    void theFastPathIsLinearizable() {
        new ModelCheckingOptions()
                .iterations(20)
                .invocationsPerIteration(500)
                .threads(3)
                .actorsPerThread(3)
                .check(HandOffLincheckTest.class);
    }
}
