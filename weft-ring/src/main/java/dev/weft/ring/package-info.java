/**
 * The Java side of weft-ring, the Ring server of {@code weft.ring}: a Jetty 12 handler that calls
 * a Ring handler on a virtual thread per request ({@link dev.weft.ring.RingHandler}), and reading
 * Ring response maps ({@link dev.weft.ring.RingResponse}).
 *
 * <p>Clojure code uses {@code weft.ring/run-server} and {@code weft.ring/stop-server!}; Java code
 * may put a {@link dev.weft.ring.RingHandler} on a Jetty server of its own, giving the server's
 * thread pool {@link dev.weft.ring.RingHandler#virtualThreads()} as its virtual-threads executor.
 */
package dev.weft.ring;
