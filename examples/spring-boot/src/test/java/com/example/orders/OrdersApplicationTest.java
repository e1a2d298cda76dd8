package com.example.orders;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.junit.NoPins;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The service over real HTTP on a random port: the endpoint answers from the database through
 * weft-jdbc on virtual threads with the request's id, Actuator shows weft's meters, and neither
 * pins a carrier ({@code @NoPins} records every pin in the JVM while each test's body runs).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OrdersApplicationTest {

    @Value("${local.server.port}")
    int port;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("X-Request-Id", "r-42").build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    @NoPins
    void contextReachesForkedTasksWithoutPinning() throws Exception {
        HttpResponse<String> response = get("/whoami");
        assertEquals(200, response.statusCode(), response.body());
        assertTrue(response.body().contains("\"request_id\":\"r-42\""), response.body());
        assertTrue(response.body().contains("\"virtual\":true"), response.body());
    }

    /**
     * No {@code @NoPins} here, on purpose. Two forks query H2 at once, and the first use of an H2
     * class by both makes one wait for the other's class initializer ("Waited for initialization
     * of org.h2.value.ValueToObjectConverter by another thread"): JDK 25 still pins a virtual
     * thread that waits for a class initializer, and {@code @NoPins} counts that pin (a project can
     * avoid it by initializing such classes before it forks). The contended monitor enters
     * "Freeze or preempt failed (2)" around the JVM's class loading are not counted (decision
     * 0206, rule 4).
     */
    @Test
    void summaryFansOutOnVirtualThreadsWithTheRequestId() throws Exception {
        HttpResponse<String> response = get("/customers/7/summary");
        assertEquals(200, response.statusCode(), response.body());
        String body = response.body();
        assertTrue(body.contains("\"orders\":2"), body);
        assertTrue(body.contains("\"total\":42"), body);
        assertTrue(body.contains("\"request_id\":\"r-42\""), body);
        assertTrue(body.contains("\"virtual\":true"), body);
        assertEquals("r-42", response.headers().firstValue("X-Request-Id").orElse(null));
    }

    @Test
    void actuatorShowsWeftMeters() throws Exception {
        get("/customers/8/summary");
        HttpResponse<String> pool = get("/actuator/metrics/weft.pool.borrows");
        assertEquals(200, pool.statusCode(), pool.body());
        assertTrue(pool.body().contains("\"pool\""), pool.body());
        HttpResponse<String> scheduler = get("/actuator/metrics/weft.scheduler.parallelism");
        assertEquals(200, scheduler.statusCode(), scheduler.body());
    }
}
