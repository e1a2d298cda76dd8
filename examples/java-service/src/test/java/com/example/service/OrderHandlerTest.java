package com.example.service;

import static com.example.service.OrderHandler.REQUEST_ID;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.context.Context;
import dev.weft.junit.NoPins;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

@NoPins     // every test fails if its code pinned a virtual thread
class OrderHandlerTest {

    @Test
    void theRequestIdReachesBothLookups() throws Exception {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        OrderHandler handler = new OrderHandler(
                customer -> { seen.add("customers " + REQUEST_ID.get()); return "Ann"; },
                customer -> { seen.add("inventory " + REQUEST_ID.get()); return 3; },
                4);

        String page = Context.where(REQUEST_ID, "r-1").call(() -> handler.render("ann"));

        assertEquals("r-1: Ann has 3 items in stock", page);
        assertEquals(Set.of("customers r-1", "inventory r-1"), seen);
    }

    @Test
    void theLookupsRunAtOnce() throws Exception {
        CountDownLatch both = new CountDownLatch(2);     // each lookup waits for the other to start
        OrderHandler handler = new OrderHandler(
                customer -> { both.countDown(); assertTrue(both.await(10, TimeUnit.SECONDS)); return "Ann"; },
                customer -> { both.countDown(); assertTrue(both.await(10, TimeUnit.SECONDS)); return 3; },
                4);

        assertEquals("r-2: Ann has 3 items in stock",
                Context.where(REQUEST_ID, "r-2").call(() -> handler.render("ann")));
    }

    @Test
    void noMoreThanTheLimitCallTheInventoryAtOnce() throws Exception {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        OrderHandler handler = new OrderHandler(
                customer -> customer,
                customer -> {
                    most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    try {
                        Thread.sleep(5);
                        return 1;
                    } finally {
                        inside.decrementAndGet();
                    }
                },
                4);

        // One request first: 20 virtual threads that load the same classes at once contend for the
        // class loader's lock, and that wait pins (a JDK effect @NoPins reports, not the handler's).
        Context.where(REQUEST_ID, "warm-up").call(() -> handler.render("c"));
        try (ExecutorService requests = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<String>> pages = new java.util.ArrayList<>();
            for (int i = 0; i < 20; i++) {
                String id = "r-" + i;
                pages.add(requests.submit(() -> Context.where(REQUEST_ID, id).call(() -> handler.render("c"))));
            }
            for (int i = 0; i < 20; i++) {
                assertEquals("r-" + i + ": c has 1 items in stock", pages.get(i).get());
            }
        }
        assertTrue(most.get() <= 4, "at most 4 inventory calls at once, saw " + most.get());
    }
}
