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
clojure=$(sed -n 's:^-Dclojure.version=\(.*\)$:\1:p' "$ROOT/.mvn/maven.config" | head -n 1)   # the build's Clojure
marker=$(new_marker)
set +e
maven -fae install -Dweft.test.java="$test_java"
status=$?
set -e
[ "$status" -ne 0 ] || mark_built "$marker"
# "weft-clj, JDK 25, Clojure 1.12": a module with Clojure tests names the Clojure they ran on
unit_label() {
  local label="$1, JDK $test_major"
  [ ! -d "$ROOT/$1/src/test/clojure" ] || label="$label, Clojure ${clojure%.*}"
  echo "$label"
}
report_modules "$marker" unit_label $(modules)
rm -f "$marker"
if [ "$status" -ne 0 ]; then
  test_fail "build, JDK $JDK_MAJOR" "Maven reported a failure: modules that depend on a failed one did not run their tests (see the Reactor Summary above)"
fi

# weft passes its own audit: every library jar, at target JDK 21 (the oldest weft supports, where
# synchronized and Object.wait pin), through the runnable weft-cli jar as a user runs it.
# ProbeInit.<clinit> blocks on purpose: it is the pin probe (PinProbe), the one exclusion.
cli=$(cli_jar)
audit_jars=()
for m in $(modules); do
  case $m in weft-lab|weft-bench|weft-cli|weft-test-browser|weft-bom) continue ;; esac
  for j in "$ROOT/$m"/target/"$m"-*.jar; do
    case $j in *-sources.jar|*-javadoc.jar|*-tests.jar|*/original-*) ;; *) [ -f "$j" ] && audit_jars+=("$j") ;; esac
  done
done
if [ -z "$cli" ] || [ ${#audit_jars[@]} -eq 0 ]; then
  test_fail "weft's own jars, audit at target JDK 21" "the build made no weft-cli jar or library jars to audit"
elif "$JAVA_HOME/bin/java" -jar "$cli" audit "${audit_jars[@]}" --target-jdk 21 --fail-on error \
     --exclude 'dev.weft.pin.ProbeInit.<clinit>=the pin probe blocks in its class initializer on purpose'; then
  test_report "weft's own jars, audit at target JDK 21" 1 0
else
  test_fail "weft's own jars, audit at target JDK 21" "errors above (fix them, or suppress with a reason: --exclude or --baseline)"
fi
