package dev.weft.testbrowser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The documentation site that {@code ./weft docs} builds (target/docs), opened as a reader opens
 * it: from the file system, in a real headless Chromium, with no network. Every page of the site's
 * own (the Markdown pages, the folder listings, the API index and the Clojure API), and the front
 * page of every Javadoc and KDoc set, loads with no console error; every link between them
 * resolves to a file of the site, and every {@code #anchor} to an element of its page. The front
 * page's screenshot is kept in target/browser/docs-index.png. The browser tier runs
 * {@code ./weft docs} before this test (build/test/browser.sh).
 */
@Tag("browser")
class DocsSiteTest {

    private static final Path SITE = Path.of(System.getProperty("weft.docs.dir", "../target/docs"))
            .toAbsolutePath()
            .normalize();

    @Test
    void everyPageLoadsCleanAndEveryInternalLinkResolves() throws Exception {
        Path index = SITE.resolve("index.html");
        assertTrue(Files.isRegularFile(index), "no documentation site at " + SITE + ": build it with ./weft docs");
        List<String> problems = new ArrayList<>();
        Set<Path> seen = new LinkedHashSet<>();
        Deque<Path> todo = new ArrayDeque<>(List.of(index));
        try (Chromium chromium = Chromium.start();
                Page page = chromium.newPage()) {
            page.viewport(1200, 900);
            while (!todo.isEmpty()) {
                Path html = todo.removeFirst();
                if (!seen.add(html)) {
                    continue;
                }
                int errorsBefore = page.consoleErrors().size(); // the page keeps every page's errors
                page.open(html.toUri().toString());
                if (html.equals(index)) {
                    page.screenshot(Path.of("target/browser/docs-index.png"));
                }
                if (crawled(html)) { // a Javadoc or KDoc set: its front page loads; its own links are the tool's
                    @SuppressWarnings("unchecked")
                    List<String> hrefs = (List<String>)
                            page.evaluate("Array.from(document.querySelectorAll('a[href]')).map(a => a.href)");
                    for (String href : hrefs) {
                        checkLink(html, href, todo, problems);
                    }
                }
                // A page may print console errors after its load event (a late script): wait a little.
                page.evaluate("new Promise(r => setTimeout(r, 20))");
                List<String> errors = page.consoleErrors();
                for (String error : errors.subList(errorsBefore, errors.size())) {
                    problems.add(SITE.relativize(html) + ": console: " + error);
                }
            }
        }
        assertTrue(seen.size() > 20, "the site has only " + seen.size() + " pages: " + seen);
        assertEquals(List.of(), problems.stream().distinct().toList(), "dead links or console errors in " + SITE);
    }

    /** A page whose links this test follows: the site's own pages, not a Javadoc or KDoc set. */
    private static boolean crawled(Path html) {
        Path rel = SITE.relativize(html);
        return !(rel.startsWith("api/java") || rel.startsWith("api/kotlin"));
    }

    private static void checkLink(Path from, String href, Deque<Path> todo, List<String> problems) throws Exception {
        URI uri = URI.create(href);
        if (!"file".equals(uri.getScheme())) {
            return; // http(s) links leave the site; not checked offline
        }
        Path target = Path.of(new URI(uri.getScheme(), uri.getAuthority(), uri.getPath(), null, null));
        String where =
                SITE.relativize(from) + ": link to " + (target.startsWith(SITE) ? SITE.relativize(target) : target);
        if (!target.startsWith(SITE)) {
            problems.add(where + " leaves the site");
            return;
        }
        if (!Files.exists(target)) {
            problems.add(where + " is dead");
            return;
        }
        if (Files.isDirectory(target)) {
            problems.add(where + " names a folder (no index page)");
            return;
        }
        String fragment = uri.getFragment();
        if (fragment != null && !fragment.isEmpty() && target.toString().endsWith(".html")) {
            String text = Files.readString(target);
            if (!text.contains("id=\"" + fragment + "\"") && !text.contains("name=\"" + fragment + "\"")) {
                problems.add(where + "#" + fragment + ": no such anchor");
            }
        }
        if (target.toString().endsWith(".html")) {
            todo.add(target);
        }
    }
}
