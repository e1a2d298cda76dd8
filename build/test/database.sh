# Tier "database": the tests that need a real PostgreSQL (classes named *PostgresTest), once, on
# the build JDK; then the audit judged against the runtime (weft-audit's *DatabaseTest: old and
# newer JDBC drivers on PostgreSQL and on MariaDB, build/mariadb.sh, run on JDK 21 under JFR). build/postgres.sh installs Debian's server if it is missing (or says how in one
# line), starts a private server on 127.0.0.1 at a free port, and the trap stops it by its PID and
# deletes its folder however the tests end. Sourced by ./weft test (see doc/testing.md).
pg_dir=$(mktemp -d /tmp/weft-pg.XXXXXX)
my_dir=$(mktemp -d /tmp/weft-my.XXXXXX)
trap '"$ROOT/build/postgres.sh" stop "$pg_dir"; "$ROOT/build/mariadb.sh" stop "$my_dir"' EXIT
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

# The audit against the runtime: pgjdbc and Connector/J, an old and a newer version each, run from
# virtual threads on JDK 21 (fetched if missing) under JFR; every site they pin on must be reported.
# MariaDB is started like PostgreSQL (build/mariadb.sh: private folder, 127.0.0.1, a free port,
# stopped by its PID by the trap above).
if ! my_line=$("$ROOT/build/mariadb.sh" start "$my_dir"); then
  test_fail "audit against pinning drivers, JDK 21" "MariaDB did not start (the line above says why)"
elif ! jdk21=$(resolve_runtime 21 fetch); then
  test_fail "audit against pinning drivers, JDK 21" "no JDK 21 runtime (the line above says why)"
else
  say "MariaDB on 127.0.0.1 for the database tier: $my_line"
  marker=$(new_marker)
  set +e
  maven -q -pl weft-audit -am -Pdrivers test-compile \
    && maven -pl weft-audit surefire:test -Dtest='*DatabaseTest' -Dsurefire.failIfNoSpecifiedTests=false \
         -Dweft.pg.url="$pg_url" -Dweft.mysql.url="${my_line#*url=}" -Dweft.jdk21.home="$jdk21" \
         -Dweft.drivers.dir="$ROOT/weft-audit/target/drivers"
  status=$?
  set -e
  read -r p f < <(count_tests "$marker" "$ROOT/weft-audit")
  test_report "weft-audit against pinning drivers (PostgreSQL, MariaDB), JDK 21" "$p" "$f"
  rm -f "$marker"
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
    test_fail "audit against pinning drivers, JDK 21" "the driver tests did not run (exit $status; see the Maven output above)"
  fi
fi
