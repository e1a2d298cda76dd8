package dev.weft.lab.scenarios.pinning;

/**
 * A class whose initializer does the scenario's 10 ms of blocking I/O. Blocking inside
 * {@code <clinit>} pins the virtual thread to its carrier on every JDK so far (the VM runs the
 * initializer under a native frame). The scenario defines a fresh hidden copy of this class per
 * task, so every task runs the initializer once.
 */
final class IoInClassInit {

    static final long RESULT;

    static {
        PinningScenario.simulateIo();
        RESULT = PinningScenario.computeResult();
    }

    private IoInClassInit() {}
}
