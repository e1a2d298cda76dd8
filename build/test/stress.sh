# Tier "stress": the stress and interleaving tests, classes named *StressTest (excluded from every
# other run by the parent pom), once, on the build JDK. Each test repeats randomized rounds for
# WEFT_STRESS_SECONDS (default 20) and then stops; adding one is naming a class *StressTest in any
# module. Only with ./weft test --stress or --tier stress. Sourced by ./weft test (see doc/testing.md).
seconds=${WEFT_STRESS_SECONDS:-20}
marker=$(new_marker)
set +e
maven -q install -DskipTests \
  && maven surefire:test -Dtest='*StressTest' -Dsurefire.failIfNoSpecifiedTests=false \
       -Dweft.test.excludedGroups= -Dweft.stress.seconds="$seconds"
status=$?
set -e
stress_label() { echo "$1 stress (${seconds} s per test), JDK $JDK_MAJOR"; }
report_modules "$marker" stress_label $(modules)
rm -f "$marker"
if [ "$status" -ne 0 ]; then
  test_fail "stress, JDK $JDK_MAJOR" "Maven reported a failure (exit $status; see its output above)"
fi
