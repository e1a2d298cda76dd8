# Tier "examples": weft the way its users get it. Installs weft into a scratch local Maven
# repository, builds and tests every project under examples/ against it (by coordinates, through
# the BOM, never through the reactor), and runs every README block (build/readme/run.sh). One line
# per example and one for the README blocks. Sourced by ./weft test (see doc/testing.md).
#
# Third-party artifacts come from the user's local repository, read-only, through Maven 3.9's
# maven.repo.local.tail, minus weft's own (dev/weft), so only weft is fresh and a weft artifact
# that the install left out cannot be found anywhere. Maven 3.9 is the launcher's (./mvnw's).
# Nothing else is installed.
tier_start=$SECONDS

# "passed failed" from the clojure.test summaries ("Ran N tests", "F failures, E errors") in log $1:
# a project that runs clojure.test itself writes no Surefire report to count.
clojure_test_counts() {
  awk '/^Ran [0-9]+ tests/ { n += $2 } /^[0-9]+ failures, [0-9]+ errors/ { bad += $1 + $3 }
       END { printf "%d %d\n", (n > bad ? n - bad : 0), bad }' "$1"
}
step() { say "examples: $1 ($((SECONDS - tier_start)) s)"; }

if ! version_at_least "$MVN_VERSION" 3.9; then
  test_fail "examples" "needs Maven 3.9 (maven.repo.local.tail); $MVN is $MVN_VERSION, because ./mvnw could not download $(wrapper_maven_version) (see above)"
  return 0
fi

# The local repository the build uses: -Dmaven.repo.local in MAVEN_OPTS or MAVEN_ARGS, else ~/.m2.
normal_repo=$HOME/.m2/repository
for arg in ${MAVEN_OPTS:-} ${MAVEN_ARGS:-}; do
  case $arg in -Dmaven.repo.local=*) normal_repo=${arg#-Dmaven.repo.local=} ;; esac
done
work="$ROOT/target/examples"
scratch="$work/m2"
tail_repo="$work/m2-tail"
rm -rf "$scratch/dev/weft" "$tail_repo"
mkdir -p "$scratch" "$tail_repo"
for entry in "$normal_repo"/*; do
  [ -e "$entry" ] && [ "$(basename "$entry")" != dev ] && ln -s "$entry" "$tail_repo/"
done
if [ -d "$normal_repo/dev" ]; then
  mkdir "$tail_repo/dev"
  for entry in "$normal_repo"/dev/*; do
    [ "$(basename "$entry")" != weft ] && ln -s "$entry" "$tail_repo/dev/"
  done
fi
# The scratch repository wins over any other setting of the run (MAVEN_ARGS comes before the
# command line's own -D, MAVEN_OPTS before the JVM's).
MAVEN_ARGS=$(printf '%s ' ${MAVEN_ARGS:-} | sed 's/-Dmaven\.repo\.local=[^ ]*//g')
export MAVEN_ARGS
export MAVEN_OPTS="${MAVEN_OPTS:-} -Dmaven.repo.local=$scratch -Dmaven.repo.local.tail=$tail_repo"
version=$(sed -n '0,/<artifactId>weft-parent<\/artifactId>/d; s:.*<version>\(.*\)</version>.*:\1:p' "$ROOT/pom.xml" | head -n 1)
step "installing weft $version into $scratch with $("$MVN" -v 2>/dev/null | head -n 1)"

installed=0
if declare -F cmd_install >/dev/null; then
  (cmd_install) > "$work/install.log" 2>&1 && installed=1
else
  maven -q install -DskipTests > "$work/install.log" 2>&1 && installed=1
fi
if [ "$installed" = 0 ]; then
  tail -n 40 "$work/install.log"
  test_fail "examples: install" "weft did not install into the scratch repository (log: $work/install.log)"
  return 0
fi

# Every README block, on the installed modules.
step "running the README blocks"
set +e
WEFT_VERSION=$version MVN=$MVN "$ROOT/build/readme/run.sh" 2>&1 | tee "$work/readme-blocks.log" | grep -v '^ok '
set -e
read -r p f < <(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$work/readme-blocks.log" | tail -n 1)
if [ -n "${p:-}" ]; then
  test_report "README blocks, JDK $JDK_MAJOR" "$p" "$f"
else
  test_fail "README blocks, JDK $JDK_MAJOR" "the runner did not finish (log: $work/readme-blocks.log)"
fi

# The README's Install section as a new user follows it: its whole-POM block and its first test,
# pasted into an empty folder, then `mvn test`, with Maven 3.9 and, because the README says it
# works too, with Debian's Maven 3.8.7 when it is on PATH (it has no maven.repo.local.tail: it
# reads the scratch repository alone and downloads the rest, as a user's would).
readme_install() {   # LABEL MVN_BINARY MAVEN_OPTS
  local dir="$work/readme-install" log="$work/readme-install-$1.log" marker status p f
  "$ROOT/build/readme/install-project.sh" "$dir" "$ROOT/README.md" \
    || { test_fail "README install, $1" "the README's Install blocks could not be extracted (see above)"; return 0; }
  step "building the README's Install project with $1"
  marker=$(new_marker)
  set +e
  (cd "$dir" && MAVEN_OPTS=$3 JAVA_HOME=$JAVA_HOME "$2" -B -Dstyle.color=never test) > "$log" 2>&1
  status=$?
  set -e
  read -r p f < <(count_tests "$marker" "$dir")
  rm -f "$marker"
  if [ $((p + f)) -eq 0 ]; then
    grep -E '^\[ERROR\]' "$log" | head -n 10
    test_fail "README install, $1, JDK $JDK_MAJOR" "mvn test ran no test (exit $status; log: $log)"
  else
    [ "$status" -eq 0 ] || say "README install, $1: mvn test failed (log: $log)"
    test_report "README install, $1, JDK $JDK_MAJOR" "$p" "$f"
  fi
}
readme_install "Maven $(maven_version "$MVN")" "$MVN" "${MAVEN_OPTS:-}"
if command -v /usr/bin/mvn >/dev/null 2>&1 && [[ $(maven_version /usr/bin/mvn) == 3.8.* ]]; then
  readme_install "Maven $(maven_version /usr/bin/mvn)" /usr/bin/mvn \
    "$(printf '%s ' ${MAVEN_OPTS:-} | sed 's/-Dmaven\.repo\.local\.tail=[^ ]*//g')"
fi

# The README's Leiningen lines as a user pastes them into a new project (`lein new` gives it
# Clojure; the README's lines add weft), with one test of weft.scope and weft.pin, run by Debian's
# Leiningen on the build JDK with `-base` (its :base profile pulls nREPL from Clojars, which is
# not needed for `lein test`) against the scratch repository, Maven Central only.
readme_lein() {
  local dir="$work/readme-lein" log="$work/readme-lein.log" deps status p f
  if ! ensure_debian_package leiningen "the README's Leiningen lines are built as written" have_command lein; then
    test_fail "README Leiningen, JDK $JDK_MAJOR" "no Leiningen, and installing Debian's leiningen failed (see above)"
    return 0
  fi
  deps=$({ "$ROOT/build/readme/block.sh" edn ":dependencies" "$ROOT/README.md" || true; } | sed -e 's/^ *:dependencies *\[//' -e '$ s/\] *$//')
  if [ -z "$deps" ]; then
    test_fail "README Leiningen, JDK $JDK_MAJOR" "README.md has no edn block with :dependencies"
    return 0
  fi
  rm -rf "$dir"
  mkdir -p "$dir/test/first"
  cat > "$dir/project.clj" <<EOF
(defproject first "0.1.0-SNAPSHOT"
  :dependencies [[org.clojure/clojure "1.12.6"]
                 $deps]
  :local-repo "$scratch"
  :repositories ^:replace [["central" {:url "https://repo1.maven.org/maven2/" :snapshots false}]])
EOF
  cat > "$dir/test/first/core_test.clj" <<'EOF'
(ns first.core-test
  (:require [clojure.test :refer [deftest is]]
            [weft.pin :refer [no-pins?]]
            [weft.scope :as s]))

(deftest pmap-runs-on-virtual-threads
  (is (= [true true true] (s/pmap (fn [_] (.isVirtual (Thread/currentThread))) (range 3)))))

(deftest sleeping-does-not-pin
  (is (no-pins? (Thread/sleep 5))))
EOF
  step "running the README's Leiningen lines with $(lein version 2>/dev/null | head -n 1)"
  set +e
  (cd "$dir" && JAVA_HOME=$JAVA_HOME JAVA_CMD="$JAVA_HOME/bin/java" LEIN_JAVA_CMD="$JAVA_HOME/bin/java" lein with-profile -base test) > "$log" 2>&1
  status=$?
  set -e
  read -r p f < <(clojure_test_counts "$log")
  if [ $((p + f)) -eq 0 ]; then
    tail -n 15 "$log"
    test_fail "README Leiningen, JDK $JDK_MAJOR" "lein test ran no test (exit $status; log: $log)"
  else
    test_report "README Leiningen, JDK $JDK_MAJOR" "$p" "$f"
  fi
}
readme_lein

# Every example project, built and tested as its user would: mvn verify on its own POM.
for pom in "$ROOT"/examples/*/pom.xml; do
  [ -f "$pom" ] || continue
  dir=$(dirname "$pom")
  rm -rf "$dir/target"            # built from nothing, as on a fresh clone
  name="examples/$(basename "$dir")"
  # An example that needs another JDK names its feature version in .java-version (jenv's file):
  # kotlin-coroutines builds with the Kotlin 2.0 compiler, which does not run on JDK 25. Found
  # or fetched as the matrix tier's JDK 21 is.
  java_home=$JAVA_HOME jdk_major=$JDK_MAJOR
  if [ -f "$dir/.java-version" ] && [ "$(tr -d '[:space:]' < "$dir/.java-version")" != "$JDK_MAJOR" ]; then
    jdk_major=$(tr -d '[:space:]' < "$dir/.java-version")
    java_home=$(resolve_runtime "$jdk_major" fetch) \
      || { test_fail "$name, JDK $jdk_major" "no JDK $jdk_major to build it with (see above)"; continue; }
  fi
  # Maven then runs on that JDK and downloads the example's plugins with it. A fetched runtime
  # trusts only its own CA list, which lacks a machine's own CA (a TLS-inspecting proxy, as on
  # the CI machines): it uses the trust store of the JDK that built weft, which reached Maven
  # Central already.
  maven_opts=${MAVEN_OPTS:-}
  if [ "$java_home" != "$JAVA_HOME" ] && [ -f "$JAVA_HOME/lib/security/cacerts" ]; then
    maven_opts="$maven_opts -Djavax.net.ssl.trustStore=$(readlink -f "$JAVA_HOME/lib/security/cacerts")"
  fi
  step "building and testing $name on JDK $jdk_major"
  marker=$(new_marker)
  set +e
  MAVEN_OPTS=$maven_opts JAVA_HOME=$java_home JDK_MAJOR=$jdk_major MAVEN_POM=$pom maven -Dweft.version="$version" verify > "$work/$(basename "$dir").log" 2>&1
  status=$?
  set -e
  log="$work/$(basename "$dir").log"
  read -r p f < <(count_tests "$marker" "$dir")
  rm -f "$marker"
  if [ $((p + f)) -eq 0 ]; then   # clojure.test run by the project itself: its own summary lines
    read -r p f < <(clojure_test_counts "$log")
  fi
  if [ "$status" -ne 0 ]; then
    grep -E '^\[ERROR\] (Failed to execute|Tests run:.*Fail|  [A-Za-z]|[a-zA-Z.]+(Error|Exception)|Non-resolvable)|^(FAIL|ERROR) in|^(expected|  actual):' "$log" | head -n 15
    if [ "$f" -gt 0 ]; then
      say "$name: mvn verify failed (log: $log)"
      test_report "$name, JDK $jdk_major" "$p" "$f"
    else
      test_fail "$name, JDK $jdk_major" "mvn verify failed, no test failed: the build itself did (log: $log)"
    fi
  elif [ $((p + f)) -eq 0 ]; then
    test_fail "$name, JDK $jdk_major" "built, but ran no test (log: $log)"
  else
    test_report "$name, JDK $jdk_major" "$p" "$f"
  fi
done

# weft-maven-plugin's example fails its build where the audit says so: at release 21 its
# synchronized socket read is an error (the build above, at release 25, passed with it as info).
plugin_example="$ROOT/examples/maven-plugin-audit"
if [ -f "$plugin_example/pom.xml" ]; then
  step "building examples/maven-plugin-audit at release 21 (the audit must fail it)"
  rm -rf "$plugin_example/target"
  log="$work/maven-plugin-audit-21.log"
  set +e
  MAVEN_POM=$plugin_example/pom.xml maven -Dweft.version="$version" -Dmaven.compiler.release=21 verify > "$log" 2>&1
  status=$?
  set -e
  rm -rf "$plugin_example/target"
  if [ "$status" -ne 0 ] && grep -q 'LineClient.ask .*\[synchronized-blocking\]' "$log" \
     && grep -q 'weft audit: 3 errors, 0 warnings, 0 info at target JDK 21' "$log"; then
    test_report "examples/maven-plugin-audit at release 21 fails on the audit, JDK $JDK_MAJOR" 1 0
  else
    grep -E '^\[ERROR\]|weft audit' "$log" | head -n 10
    say "examples/maven-plugin-audit at release 21: the build should have failed on the audit's error (exit $status; log: $log)"
    test_report "examples/maven-plugin-audit at release 21 fails on the audit, JDK $JDK_MAJOR" 0 1
  fi
fi

# examples/clojure-deps: a deps.edn project, its classpath resolved by tools.deps from Maven Central
# (the Clojure CLI cannot be installed here; build/tools-deps/pom.xml), weft from the scratch
# repository, anything else from the user's (minus weft) as a file:// repository. Its README's
# deps.edn block must be the deps.edn the test uses, and its weft coordinates those of the top
# README's deps.edn block.
deps_dir="$ROOT/examples/clojure-deps"
if [ -f "$deps_dir/deps.edn" ]; then
  name="examples/clojure-deps"
  step "resolving and testing $name with tools.deps on JDK $JDK_MAJOR"
  log="$work/clojure-deps.log"
  readme_deps=$(awk '/^```edn/ { if (seen) exit; on = 1; next } /^```/ { if (on) { on = 0; seen = 1 } next } on' "$deps_dir/README.md")
  set +e
  weft_coords() { grep -o 'dev\.weft/[a-z-]* *{:mvn/version "[^"]*"}' | tr -s ' ' | sort; }
  top_deps=$("$ROOT/build/readme/block.sh" edn ":deps" "$ROOT/README.md" | weft_coords)
  if [ "$readme_deps" != "$(cat "$deps_dir/deps.edn")" ]; then
    test_fail "$name, JDK $JDK_MAJOR" "its README's first edn block is not its deps.edn: the README must show what the test uses"
  elif [ -z "$top_deps" ] || [ "$top_deps" != "$(weft_coords < "$deps_dir/deps.edn")" ]; then
    test_fail "$name, JDK $JDK_MAJOR" "its deps.edn does not name the weft modules of README.md's deps.edn block: keep them the same"
  elif ! MAVEN_POM="$ROOT/build/tools-deps/pom.xml" maven -q dependency:build-classpath -Dmdep.outputFile="$work/tools-deps.cp" > "$log" 2>&1; then
    test_fail "$name, JDK $JDK_MAJOR" "tools.deps could not be resolved from Maven Central (log: $log)"
  else
    TOOLS_DEPS_CP=$(cat "$work/tools-deps.cp") M2=$scratch M2_TAIL=$tail_repo "$deps_dir/test.sh" >> "$log" 2>&1
    status=$?
    read -r p f < <(clojure_test_counts "$log")
    if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
      tail -n 20 "$log"
      test_fail "$name, JDK $JDK_MAJOR" "tools.deps or the test JVM failed, no test did (log: $log)"
    elif [ $((p + f)) -eq 0 ]; then
      test_fail "$name, JDK $JDK_MAJOR" "ran no test (log: $log)"
    else
      test_report "$name, JDK $JDK_MAJOR" "$p" "$f"
    fi
  fi
  set -e
  rm -rf "$deps_dir/.cpcache"
fi
step "done"
