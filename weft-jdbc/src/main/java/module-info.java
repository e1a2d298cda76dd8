/**
 * weft-jdbc: {@code dev.weft.jdbc.WeftDataSource}, a JDBC {@code DataSource} on weft-pool whose
 * borrowers wait parked on virtual threads.
 *
 * <p>Exports its one package; on the class path the descriptor is ignored (doc/decisions/0107).
 */
module dev.weft.jdbc {
    requires transitive java.sql;
    // WeftDataSource.pool() and stats() return weft-pool's types.
    requires transitive dev.weft.pool;
    requires static org.jetbrains.annotations;

    exports dev.weft.jdbc;
}
