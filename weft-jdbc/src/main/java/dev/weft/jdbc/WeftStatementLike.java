package dev.weft.jdbc;

import java.sql.Statement;

/** What the three generated statement wrappers share, for their result sets and their connection. */
interface WeftStatementLike {

    /** The connection wrapper that made this statement. */
    WeftConnection connection();

    /** This wrapper, as the Statement a result set's getStatement() answers. */
    Statement asStatement();

    /** The driver's statement under this wrapper. */
    Statement delegateStatement();
}
