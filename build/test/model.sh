# Tier "model": Lincheck's model checker over the thread-free cores of weft's concurrency
# protocols (classes named *LincheckTest, excluded from every other run by the parent pom), once,
# on the build JDK, in the default run: the scope's state, thread container and sweep
# (ScopeCoreLincheckTest), the Limiter's two gates (LimiterLincheckTest) and the pool's hand-off
# claim and return (weft-pool's HandOffLincheckTest). Each explores a
# bounded number of scenarios and interleavings (-Dweft.model.iterations, default 30 scenarios of
# 1,000 interleavings each), so its length does not depend on the machine's speed, only its time.
# Sourced by ./weft test (see doc/testing.md).
marker=$(new_marker)
set +e
maven -q -pl weft-core,weft-pool -am test-compile \
  && maven -pl weft-core,weft-pool surefire:test -Dtest='*LincheckTest' -Dsurefire.failIfNoSpecifiedTests=false
status=$?
set -e
read -r p f < <(count_tests "$marker" "$ROOT/weft-core")
test_report "weft-core model checks (Lincheck), JDK $JDK_MAJOR" "$p" "$f"
read -r p2 f2 < <(count_tests "$marker" "$ROOT/weft-pool")    # the pool's hand-off kernel (HandOffLincheckTest)
test_report "weft-pool model checks (Lincheck), JDK $JDK_MAJOR" "$p2" "$f2"
f=$((f + f2))
rm -f "$marker"
if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
  test_fail "model, JDK $JDK_MAJOR" "the model checks did not run (exit $status; see the Maven output above)"
fi
