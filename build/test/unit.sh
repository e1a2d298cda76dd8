# Tier "unit": builds every module once with the launcher's JDK and runs every module's tests
# on it (JUnit through Surefire, clojure.test through weft's runner, each lab scenario once at a
# tiny size). One line per module. Sourced by ./weft test (see doc/testing.md).
marker=$(new_marker)
set +e
maven -fae install
status=$?
set -e
[ "$status" -ne 0 ] || mark_built "$marker"
for m in $(modules); do
  read -r p f < <(count_tests "$marker" "$ROOT/$m")
  if [ $((p + f)) -gt 0 ]; then test_report "$m, JDK $JDK_MAJOR" "$p" "$f"; fi
done
rm -f "$marker"
if [ "$status" -ne 0 ]; then
  test_fail "build, JDK $JDK_MAJOR" "Maven reported a failure: modules that depend on a failed one did not run their tests (see the Reactor Summary above)"
fi
