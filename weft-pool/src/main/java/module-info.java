/**
 * weft-pool: a resource pool built for virtual threads ({@code dev.weft.pool}): borrowers wait
 * parked, never pinned, with the pool's state as data and a limit that follows its wait times.
 *
 * <p>Exports its one package; on the class path the descriptor is ignored (doc/decisions/0107).
 */
module dev.weft.pool {
    // PoolLimit is an AdaptiveLimit and hands out a Limiter: weft-core's types in this API.
    requires transitive dev.weft.core;
    requires static org.jetbrains.annotations;

    exports dev.weft.pool;
}
