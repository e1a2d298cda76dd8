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
     * No {@code @NoPins} here, on purpose: H2 2.x's {@code JdbcConnection} and Spring's
     * {@code DefaultJdbcClient} take contended monitors when two forks query at once, and on JDK
     * 25 those pinned ("Freeze or preempt failed (2)", contended monitor enter), which
     * {@code @NoPins} reports with their stacks. A driver without such monitors (pgjdbc 42.6+)
     * does not.
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
