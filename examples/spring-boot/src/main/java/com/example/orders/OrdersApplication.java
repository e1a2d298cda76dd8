package com.example.orders;

import dev.weft.jdbc.WeftDataSource;
import dev.weft.micrometer.WeftPinMetrics;
import dev.weft.micrometer.WeftPoolMetrics;
import dev.weft.micrometer.WeftSchedulerMetrics;
import dev.weft.pin.PinMonitor;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot service on virtual threads ({@code spring.threads.virtual.enabled=true}) with
 * weft: weft-jdbc's pool as the DataSource, the pin monitor running for the application's life
 * with its pins in Micrometer, and the scheduler's figures as gauges. Actuator shows them at
 * {@code /actuator/metrics/weft.pins} and {@code /actuator/metrics/weft.pool.in.use}.
 */
@SpringBootApplication
public class OrdersApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrdersApplication.class, args);
    }

    /** The DataSource Spring's JDBC support uses; closed (its connections too) with the context. */
    @Bean(destroyMethod = "close")
    WeftDataSource dataSource(@Value("${orders.db.url}") String url, @Value("${orders.db.max-size}") int maxSize) {
        return WeftDataSource.builder("orders", url)
                .maxSize(maxSize)
                .maxWait(Duration.ofSeconds(2))          // a borrower waits at most this, then fails
                .build();
    }

    /** The pool's figures (in use, idle, waiting, wait p99 ...) as Micrometer meters. */
    @Bean
    WeftPoolMetrics poolMetrics(WeftDataSource dataSource) {
        return new WeftPoolMetrics(dataSource.pool());
    }

    /** Pins as the timer {@code weft.pins}, tagged by reason. */
    @Bean
    WeftPinMetrics pinMetrics() {
        return new WeftPinMetrics();
    }

    /** Carriers, mounted and queued virtual threads, live platform threads. */
    @Bean
    WeftSchedulerMetrics schedulerMetrics() {
        return new WeftSchedulerMetrics();
    }

    /** Watches for pinned virtual threads while the application runs; stopped with it. */
    @Bean(destroyMethod = "close")
    PinMonitor pinMonitor(WeftPinMetrics pins) {
        return PinMonitor.builder()
                .threshold(Duration.ofMillis(20))
                .summaryEvery(Duration.ofMinutes(1))
                .onPin(pins)
                .start();
    }
}
