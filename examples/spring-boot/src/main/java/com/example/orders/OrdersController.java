package com.example.orders;

import dev.weft.scope.Scope;
import dev.weft.scope.Subtask;
import java.time.Duration;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * One endpoint that fans out: the customer's order count and total come from two queries run
 * at once in a weft scope, each on its own virtual thread with its own pooled connection, both
 * seeing the request's id.
 */
@RestController
public class OrdersController {

    private final JdbcClient jdbc;

    OrdersController(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Who is asking: the request id as a task forked from the handler sees it. */
    @GetMapping("/whoami")
    Map<String, Object> whoami() throws Exception {
        try (Scope scope = Scope.builder().name("whoami").open()) {
            Subtask<String> requestId = scope.fork(RequestIdFilter.REQUEST_ID::get);
            scope.join();
            return Map.of("request_id", requestId.get(), "virtual", Thread.currentThread().isVirtual());
        }
    }

    @GetMapping("/customers/{id}/summary")
    Map<String, Object> summary(@PathVariable("id") long id) throws Exception {
        try (Scope scope = Scope.builder().name("summary").timeout(Duration.ofSeconds(2)).open()) {
            Subtask<Long> count = scope.fork(() -> jdbc.sql("select count(*) from orders where customer = ?")
                    .param(id).query(Long.class).single());
            Subtask<Long> total = scope.fork(() -> jdbc.sql("select coalesce(sum(total), 0) from orders where customer = ?")
                    .param(id).query(Long.class).single());
            Subtask<String> requestId = scope.fork(RequestIdFilter.REQUEST_ID::get);
            scope.join();
            return Map.of("customer", id, "orders", count.get(), "total", total.get(),
                    "request_id", requestId.get(), "virtual", Thread.currentThread().isVirtual());
        }
    }
}
