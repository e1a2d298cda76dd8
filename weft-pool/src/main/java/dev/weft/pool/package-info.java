/**
 * A pool of reusable resources made for virtual threads: {@link dev.weft.pool.Pool}.
 *
 * <p>Borrowers park in first-come, first-served order (no {@code synchronized}, no
 * {@code Thread.yield}, no spinning), resources are created and destroyed off the borrower's path
 * by the pool's own virtual threads, and {@link dev.weft.pool.Pool#stats()} reports the pool's
 * state and borrow waits as data. A {@link dev.weft.pool.Lease} is one borrow, for
 * try-with-resources. The JDBC {@code DataSource} over it lives in weft-jdbc.
 */
package dev.weft.pool;
