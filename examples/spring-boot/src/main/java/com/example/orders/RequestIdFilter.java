package com.example.orders;

import dev.weft.context.Context;
import dev.weft.context.ContextKey;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.UUID;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Binds the request's id (its {@code X-Request-Id}, or a new one) to the context key
 * {@link #REQUEST_ID} for the request's handling: every task the handler forks through weft (a
 * scope, a weft executor, {@code Context.wrap}) sees it too, and the response carries it back.
 */
@Component
public class RequestIdFilter extends OncePerRequestFilter {

    /** The id of the request being served. */
    public static final ContextKey<String> REQUEST_ID = ContextKey.of("request-id");

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String id = request.getHeader("X-Request-Id");
        if (id == null || id.isBlank()) {
            id = UUID.randomUUID().toString();
        }
        response.setHeader("X-Request-Id", id);
        try {
            Context.where(REQUEST_ID, id).call(() -> {
                chain.doFilter(request, response);
                return null;
            });
        } catch (IOException | ServletException | RuntimeException e) {
            throw e;
        } catch (Exception e) {                 // doFilter throws only the two above
            throw new ServletException(e);
        }
    }
}
