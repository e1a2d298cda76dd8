# Tier "browser": the tests that drive a real headless Chromium (JUnit tag "browser", which the
# default test run leaves out): weft-test-browser's own harness test, the lab's report rendered
# as people see it, and weft-ring's WebSocket talking to a real browser. Runs once, on the launcher's JDK (the build JDK, 25). Sourced by ./weft test
# (see doc/testing.md). A fresh machine has no Chromium: Debian's package is installed here.
if [ -z "${WEFT_CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  say "installing Debian's chromium package with apt-get (the browser tests drive it)"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  if ! { $sudo_cmd apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium >/dev/null; }; then
    test_fail "browser, JDK $JDK_MAJOR" "no Chromium, and apt-get install chromium failed: install it, or set WEFT_CHROMIUM to a Chromium binary"
    return 0
  fi
fi
ensure_built
marker=$(new_marker)
set +e
maven -pl weft-test-browser,weft-lab,weft-ring surefire:test -Dgroups=browser -Dweft.test.excludedGroups=none
status=$?
set -e
failed=0
for m in weft-test-browser weft-lab weft-ring; do
  read -r p f < <(count_tests "$marker" "$ROOT/$m")
  if [ $((p + f)) -gt 0 ]; then test_report "$m (browser), JDK $JDK_MAJOR" "$p" "$f"; fi
  failed=$((failed + f))
done
rm -f "$marker"
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  test_fail "browser, JDK $JDK_MAJOR" "Maven failed before the browser tests reported (see above)"
fi
