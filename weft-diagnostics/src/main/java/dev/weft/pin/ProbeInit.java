package dev.weft.pin;

/**
 * The class {@link PinProbe} defines hidden copies of: its initializer blocks for the duration
 * the probe asked for, which pins the virtual thread that runs it.
 */
final class ProbeInit {

    static {
        PinProbe.blockInInitializer();
    }

    private ProbeInit() {}
}
