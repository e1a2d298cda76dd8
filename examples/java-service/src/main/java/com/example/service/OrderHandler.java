package com.example.service;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.weft.context.Context;
import dev.weft.context.ContextKey;
import dev.weft.limit.LimitExceededException;
import dev.weft.limit.Limiter;
import dev.weft.scope.Scope;
import dev.weft.scope.Subtask;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

/**
 * {@code GET /orders/<customer>}: looks up the customer and the stock of their basket at once, in
 * a weft {@link Scope}, with the request's id in a context key that both lookups (and anything
 * they call) can read. The inventory is a slow downstream: a {@link Limiter} lets at most a few
 * calls in at once and answers 503 when too many wait.
 */
public final class OrderHandler implements HttpHandler {

    /** The id of the request being served: the {@code X-Request-Id} header, or a new one. */
    public static final ContextKey<String> REQUEST_ID = ContextKey.of("request-id");

    /** The customer directory, a downstream. */
    public interface Customers {
        String name(String customer) throws Exception;
    }

    /** The inventory, a slow downstream: how many of the customer's basket are in stock. */
    public interface Inventory {
        int inStock(String customer) throws Exception;
    }

    private final Customers customers;
    private final Inventory inventory;
    private final Limiter inventoryLimit;

    /** A handler over the two downstreams; at most {@code inventoryCalls} inventory calls at once. */
    public OrderHandler(Customers customers, Inventory inventory, int inventoryCalls) {
        this.customers = customers;
        this.inventory = inventory;
        this.inventoryLimit = Limiter.builder("inventory", inventoryCalls)
                .maxWaiting(100)
                .maxWait(Duration.ofSeconds(1))
                .build();
    }

    /** The answer for one customer: both lookups run at once; the first failure cancels the other. */
    public String render(String customer) throws Exception {
        try (Scope scope = Scope.builder().name("orders").timeout(Duration.ofSeconds(2)).open()) {
            Subtask<String> name = scope.fork(() -> customers.name(customer));
            Subtask<Integer> stock = scope.fork(() -> inventoryLimit.call(() -> inventory.inStock(customer)));
            scope.join();
            return REQUEST_ID.get() + ": " + name.get() + " has " + stock.get() + " items in stock";
        }
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        String id = exchange.getRequestHeaders().getFirst("X-Request-Id");
        String requestId = id != null ? id : UUID.randomUUID().toString();
        String customer = exchange.getRequestURI().getPath().replaceFirst("^/orders/", "");
        int status;
        String body;
        try {
            body = Context.where(REQUEST_ID, requestId).call(() -> render(customer));
            status = 200;
        } catch (LimitExceededException e) {
            body = "busy, try again: " + e.getMessage();
            status = 503;
        } catch (Exception e) {
            body = "failed: " + e;
            status = 500;
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length);
        try (var out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
