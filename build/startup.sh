#!/usr/bin/env bash
# The start-up cost of weft's Clojure namespaces without and with core.async (issue 11), in fresh
# JVMs against the installed jars (run ./weft install, or mvn install, first). Alternating runs of
#   A: (time (require 'weft.thread 'weft.scope 'weft.context 'weft.pin))              weft-clj
#   B: (time (require 'weft.thread 'weft.scope 'weft.context 'weft.pin 'weft.async))  + weft-async
# each on the runtime classpath of its module (B's has core.async and its analyzer stack), and
# prints the median of the require times ("Elapsed time" of clojure.core/time) and of the whole
# process (JVM start and exit included), and B/A. Run it on an idle machine.
#
# Usage: build/startup.sh [RUNS]        RUNS per variant, default 10
# The local repository is MAVEN_OPTS' or MAVEN_ARGS' -Dmaven.repo.local, else ~/.m2/repository.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-10}
case $runs in ''|*[!0-9]*|0) echo "usage: build/startup.sh [RUNS] (RUNS a positive number; got '$runs')" >&2; exit 2 ;; esac
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
[ -x "$JAVA_HOME/bin/java" ] || { echo "startup: JAVA_HOME=$JAVA_HOME has no bin/java: set JAVA_HOME to a JDK 21 or newer" >&2; exit 1; }
export JAVA_HOME
repo=$HOME/.m2/repository
for arg in ${MAVEN_OPTS:-} ${MAVEN_ARGS:-}; do
  case $arg in -Dmaven.repo.local=*) repo=${arg#-Dmaven.repo.local=} ;; esac
done
version=$(sed -n '0,/<artifactId>weft-parent<\/artifactId>/d; s:.*<version>\(.*\)</version>.*:\1:p' "$ROOT/pom.xml" | head -n 1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The installed jar of MODULE and its runtime dependencies, as resolved from the local repository.
classpath() {
  local module=$1 jar="$repo/dev/weft/$1/$version/$1-$version.jar"
  [ -f "$jar" ] || { echo "startup: $jar is not installed: run ./weft install (or mvn install -DskipTests) first" >&2; exit 1; }
  "$ROOT/mvnw" -q -f "$ROOT/pom.xml" -pl "$module" dependency:build-classpath -DincludeScope=runtime \
      -Dmdep.outputFile="$work/$module.cp" >"$work/$module.log" 2>&1 \
    || { cat "$work/$module.log" >&2; echo "startup: could not resolve $module's classpath (log above)" >&2; exit 1; }
  echo "$jar:$(cat "$work/$module.cp")"
}
cp_clj=$(classpath weft-clj)
cp_async=$(classpath weft-async)
form_clj="(time (require 'weft.thread 'weft.scope 'weft.context 'weft.pin))"
form_async="(time (require 'weft.thread 'weft.scope 'weft.context 'weft.pin 'weft.async))"

# run CP FORM: prints "REQUIRE_MS PROCESS_MS" of one fresh JVM
run() {
  local t0 t1 out
  t0=$(date +%s%N)
  out=$("$JAVA_HOME/bin/java" -cp "$1" clojure.main -e "$2")
  t1=$(date +%s%N)
  echo "$(sed -n 's/^"Elapsed time: \([0-9.]*\) msecs"$/\1/p' <<<"$out") $(( (t1 - t0) / 1000000 ))"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo "weft $version, $("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1), $runs runs each, alternating"
for i in $(seq "$runs"); do
  run "$cp_clj" "$form_clj" >>"$work/a"
  run "$cp_async" "$form_async" >>"$work/b"
done
a_req=$(cut -d' ' -f1 "$work/a" | median) a_proc=$(cut -d' ' -f2 "$work/a" | median)
b_req=$(cut -d' ' -f1 "$work/b" | median) b_proc=$(cut -d' ' -f2 "$work/b" | median)
printf '%-34s require %8.1f ms   process %6.0f ms\n' "weft-clj (no core.async)" "$a_req" "$a_proc"
printf '%-34s require %8.1f ms   process %6.0f ms\n' "weft-clj + weft-async (core.async)" "$b_req" "$b_proc"
awk -v a="$a_req" -v b="$b_req" -v pa="$a_proc" -v pb="$b_proc" \
  'BEGIN { printf "with weft.async / without: require %.2fx, process %.2fx (medians)\n", b / a, pb / pa }'
