#!/usr/bin/env bash
# Runs this project's tests as `clojure -M:test` would, without the Clojure CLI: tools.deps (from
# Maven Central) turns deps.edn into a classpath and JVM options, then java runs clojure.test.
#
#   TOOLS_DEPS_CP  classpath of org.clojure/tools.deps 0.31.1646 and tools.deps.cli 0.31.162
#                  (e.g. mvn -f build/tools-deps/pom.xml dependency:build-classpath in weft's checkout)
#   JAVA_HOME      a JDK 21 or newer (else the java on PATH)
#   M2             the local Maven repository weft is installed in (default ~/.m2/repository)
#   M2_TAIL        optional: another local repository to read anything else from (a file:// repository)
set -euo pipefail
cd "$(dirname "$0")"
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
config="{:mvn/local-repo \"${M2:-$HOME/.m2/repository}\"${M2_TAIL:+ :mvn/repos {\"tail\" {:url \"file://$M2_TAIL\"}}}}"
rm -rf .cpcache && mkdir .cpcache
"$java" -cp "${TOOLS_DEPS_CP:?set TOOLS_DEPS_CP to the classpath of tools.deps and tools.deps.cli}" \
  clojure.main -m clojure.tools.deps.script.make-classpath2 \
  --config-project deps.edn --config-data "$config" -A:test \
  --cp-file .cpcache/test.cp --jvm-file .cpcache/test.jvm --main-file .cpcache/test.main --manifest-file .cpcache/test.manifest --basis-file .cpcache/test.basis
jvm_opts=()
[ ! -s .cpcache/test.jvm ] || read -r -a jvm_opts < .cpcache/test.jvm
"$java" "${jvm_opts[@]}" -cp "$(cat .cpcache/test.cp)" clojure.main -e "
(require 'clojure.test 'example.fanout-test)
(let [{:keys [fail error]} (clojure.test/run-tests 'example.fanout-test)]
  (shutdown-agents)
  (System/exit (if (zero? (+ fail error)) 0 1)))"
