# Tier "unit": builds every module once with the launcher's JDK and runs every module's tests
# (JUnit through Surefire, clojure.test through weft's runner, each lab scenario once at a
# tiny size) on it, or on the runtime `--jdk` names (WEFT_TEST_JDK; classes are still compiled
# by the launcher's JDK with --release 21). One line per module. Sourced by ./weft test (see
# doc/testing.md).
test_java="$JAVA_HOME/bin/java" test_major=$JDK_MAJOR
if [ -n "$WEFT_TEST_JDK" ]; then
  home=$(resolve_runtime "$WEFT_TEST_JDK" fetch) || { test_fail "unit, JDK $WEFT_TEST_JDK" "no such runtime (see above)"; exit 1; }
  test_java="$home/bin/java" test_major=$(runtime_major "$home")
fi
clojure=$(sed -n 's:.*<clojure.version>\(.*\)</clojure.version>.*:\1:p' "$ROOT/pom.xml" | head -n 1)
marker=$(new_marker)
set +e
maven -fae install -Dweft.test.java="$test_java"
status=$?
set -e
[ "$status" -ne 0 ] || mark_built "$marker"
for m in $(modules); do
  read -r p f < <(count_tests "$marker" "$ROOT/$m")
  label="$m, JDK $test_major"
  [ ! -d "$ROOT/$m/src/test/clojure" ] || label="$label, Clojure ${clojure%.*}"
  if [ $((p + f)) -gt 0 ]; then test_report "$label" "$p" "$f"; fi
done
rm -f "$marker"
if [ "$status" -ne 0 ]; then
  test_fail "build, JDK $JDK_MAJOR" "Maven reported a failure: modules that depend on a failed one did not run their tests (see the Reactor Summary above)"
fi
