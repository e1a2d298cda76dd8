#!/usr/bin/env bash
# Runs every ```java, ```clojure and ```kotlin block of the Markdown files given (default: README.md,
# every module README and doc/*.md) as written, on the weft modules in the local Maven repository
# (install them first: ./weft install). Prints one line per block and "N passed, N failed" last;
# exits 1 when a block failed. Rules and fixtures: doc/readme-blocks.md.
#
#   build/readme/run.sh [FILE.md...]
#   build/readme/run.sh --classpath runtime|test   prints the classpath of every library module
#                                                  (runtime: what ./weft repl and jshell use)
#
# Environment: JAVA_HOME (a JDK 21+), MVN (default: the checkout's ./mvnw), MAVEN_OPTS (e.g. the local repository),
# WEFT_VERSION (default: the checkout's version).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
: "${JAVA_HOME:?set JAVA_HOME to a JDK 21 or newer}"
# JDK 23+ warns about sun.misc.Unsafe in Maven's and Clojure's libraries; harmless, so silence it.
quiet_unsafe=""
case $(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$JAVA_HOME/release" 2>/dev/null) in
  2[3-9]|[3-9][0-9]) quiet_unsafe="--sun-misc-unsafe-memory-access=allow" ;;
esac
export MAVEN_OPTS="${MAVEN_OPTS:-} $quiet_unsafe"
version=${WEFT_VERSION:-$(sed -n '0,/<artifactId>weft-parent<\/artifactId>/d; s:.*<version>\(.*\)</version>.*:\1:p' "$root/pom.xml" | head -n 1)}

# The library modules: every weft artifact the BOM pins, but weft-cli, a runnable jar with its
# dependencies (weft-core among them) inside, which is run, not put on a classpath, and
# weft-maven-plugin, which Maven runs.
libraries() {
  if [ -f "$root/weft-bom/pom.xml" ]; then
    sed -n '/<dependencyManagement>/,/<\/dependencyManagement>/ s:.*<artifactId>\(weft-[^<]*\)</artifactId>.*:\1:p' "$root/weft-bom/pom.xml"
  else   # before the BOM: the reactor's modules that are published
    sed -n 's:^ *<module>\(.*\)</module>.*:\1:p' "$root/pom.xml" | grep -v -x -e weft-lab -e weft-bench -e weft-test-browser -e weft-bom
  fi | grep -v -x -e weft-cli -e weft-maven-plugin
}

# Writes target/readme/pom.xml (pom.xml with a dependency per library module) and resolves its
# classpath for scope $1 into target/readme/$1.cp.
out="$root/target/readme"
resolve() {
  local scope=$1 deps="" m
  for m in $(libraries); do
    deps="$deps    <dependency><groupId>dev.weft</groupId><artifactId>$m</artifactId><version>\${weft.version}</version></dependency>\n"
  done
  mkdir -p "$out"
  sed "s|^ *<!-- WEFT MODULES:.*|$deps&|" "$here/pom.xml" > "$out/pom.xml"
  local goals="dependency:build-classpath"
  # test: the fixtures compiled, and the runner's profile (the Kotlin compiler)
  [ "$scope" = runtime ] || goals="compile $goals -Prunner"
  JAVA_HOME=$JAVA_HOME "${MVN:-$root/mvnw}" -B -q -Dstyle.color=never -f "$out/pom.xml" -Dweft.version="$version" -Dreadme.home="$here" \
    $goals -Dmdep.outputFile="$out/$scope.cp" -Dmdep.includeScope="$scope" > "$out/maven.log" 2>&1 \
    || { cat "$out/maven.log" >&2
         echo "weft: could not resolve weft $version's modules ($(libraries | paste -sd' ')) from the local Maven repository: install them first (./weft install)" >&2; exit 1; }
}

if [ "${1:-}" = --classpath ]; then
  case ${2:-} in runtime|test) ;; *) echo "usage: $0 --classpath runtime|test" >&2; exit 2 ;; esac
  resolve "$2"
  cat "$out/$2.cp"
  exit 0
fi

cd "$root"
if [ $# -eq 0 ]; then
  set -- README.md */README.md doc/*.md $(ls doc/guides/*.md 2>/dev/null)
fi
resolve test
# src/main/resources first: the runner and its fixtures as they are in the checkout.
exec "$JAVA_HOME/bin/java" $quiet_unsafe \
  -cp "$here/src/main/resources:$out/target/classes:$(cat "$out/test.cp")" \
  clojure.main -m readme.blocks "$@"
