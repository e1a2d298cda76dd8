# Tier "browser": the tests that drive a real headless Chromium (JUnit tag "browser", which the
# default test run leaves out): weft-test-browser's own harness test, the documentation site
# (./weft docs, built first), the lab's report rendered
# as people see it, and weft-ring's WebSocket talking to a real browser. Runs once, on the launcher's JDK (the build JDK, 25). Sourced by ./weft test
# (see doc/testing.md). A fresh machine has no Chromium: Debian's package is installed here
# (build/debian-package.sh, which the launcher sources).
if [ -z "${WEFT_CHROMIUM:-}" ] \
   && ! ensure_debian_package chromium "the browser tests drive it" have_command chromium chromium-browser; then
  test_fail "browser, JDK $JDK_MAJOR" "no Chromium, and installing Debian's chromium failed (see above): install it, or set WEFT_CHROMIUM to a Chromium binary"
  return 0
fi
ensure_built
# The documentation site the docs test opens (weft-test-browser's DocsSiteTest): built here, as a
# reader builds it, with ./weft docs.
docs_start=$SECONDS
if (cmd_docs) > "$ROOT/target/docs-build.log" 2>&1; then
  say "browser: ./weft docs built target/docs in $((SECONDS - docs_start)) s"
else
  tail -n 30 "$ROOT/target/docs-build.log"
  test_fail "docs site, JDK $JDK_MAJOR" "./weft docs failed (log: target/docs-build.log)"
fi
marker=$(new_marker)
set +e
maven -pl weft-test-browser,weft-lab,weft-ring surefire:test -Dgroups=browser -Dweft.test.excludedGroups=none
status=$?
set -e
browser_label() { echo "$1 (browser), JDK $JDK_MAJOR"; }
report_modules "$marker" browser_label weft-test-browser weft-lab weft-ring
rm -f "$marker"
if [ "$status" -ne 0 ] && [ "$MODULES_FAILED" -eq 0 ]; then
  test_fail "browser, JDK $JDK_MAJOR" "Maven failed before the browser tests reported (see above)"
fi
