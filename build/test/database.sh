# Tier "database": the tests that need a real PostgreSQL (classes named *PostgresTest), once, on
# the build JDK. build/postgres.sh installs Debian's server if it is missing (or says how in one
# line), starts a private server on 127.0.0.1 at a free port, and the trap stops it by its PID and
# deletes its folder however the tests end. Sourced by ./weft test (see doc/testing.md).
pg_dir=$(mktemp -d /tmp/weft-pg.XXXXXX)
trap '"$ROOT/build/postgres.sh" stop "$pg_dir"' EXIT
if ! pg_line=$("$ROOT/build/postgres.sh" start "$pg_dir"); then
  test_fail "database, JDK $JDK_MAJOR" "PostgreSQL did not start (the line above says why)"
  exit 1
fi
pg_url=${pg_line#*url=}
say "PostgreSQL on 127.0.0.1 for the database tier: $pg_line"
marker=$(new_marker)
set +e
maven -q -pl weft-jdbc -am test-compile \
  && maven -pl weft-jdbc surefire:test -Dtest='*PostgresTest' -Dsurefire.failIfNoSpecifiedTests=false \
       -Dweft.pg.url="$pg_url" -Dweft.pg.dir="$pg_dir"
status=$?
set -e
read -r p f < <(count_tests "$marker" "$ROOT/weft-jdbc")
test_report "weft-jdbc on PostgreSQL, JDK $JDK_MAJOR" "$p" "$f"
rm -f "$marker"
if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
  test_fail "database, JDK $JDK_MAJOR" "the PostgreSQL tests did not run (exit $status; see the Maven output above)"
fi
