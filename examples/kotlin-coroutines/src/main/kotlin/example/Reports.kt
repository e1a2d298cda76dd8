package example

import dev.weft.kotlin.Virtual
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext

/** A blocking data source, as JDBC or a blocking HTTP client is. */
fun interface Rows {
    /** Blocks until the row [id] is read. */
    fun load(id: Int): String
}

/**
 * Builds reports from a blocking [Rows] source: each load runs in `withContext(Dispatchers.Virtual)`,
 * so a blocked call parks a virtual thread instead of holding one of `Dispatchers.IO`'s 64 threads.
 */
class Reports(private val rows: Rows) {

    /** Loads every row of [ids] at once; the result is in the order of [ids]. */
    suspend fun report(ids: List<Int>): List<String> = coroutineScope {
        ids.map { id -> async { withContext(Dispatchers.Virtual) { rows.load(id) } } }.awaitAll()
    }
}

fun main() = runBlocking {
    val reports = Reports { id -> Thread.sleep(1000); "row $id" }     // a slow, blocking source
    val rows = reports.report((1..1_000).toList())                    // about 1 s, not 1,000
    println("${rows.size} rows, the last: ${rows.last()}")
}
