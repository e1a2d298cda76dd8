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
for m in $(modules); do
  read -r p f < <(count_tests "$marker" "$ROOT/$m")
  if [ $((p + f)) -gt 0 ]; then test_report "$m stress (${seconds} s per test), JDK $JDK_MAJOR" "$p" "$f"; fi
done
rm -f "$marker"
if [ "$status" -ne 0 ]; then
  test_fail "stress, JDK $JDK_MAJOR" "Maven reported a failure (exit $status; see its output above)"
fi
