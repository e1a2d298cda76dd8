#!/usr/bin/env bash
# The public Java (and Kotlin) API of one module, as javap prints it, compared with the dump
# committed in <module>/api/<artifact>.api; run by Maven in the verify phase of every module (see
# the parent pom). There is no earlier release to compare with, so the committed dump is the
# baseline (decision 0104): a change to the public API fails the build until the dump is updated
# on purpose with
#   mvn -q verify -DskipTests -Dweft.api.update=true
# A module with a descriptor (module-info.java, decision 0107) has as its API the packages it exports
# to everyone: the dump starts with the descriptor as javap prints it, then the public types of
# those packages only. A package exported to named weft modules alone (dev.weft.*.internal) is
# not in it. A module without one (Clojure, Kotlin: an automatic module exports every package)
# has every public type in it.
# Usage: check.sh JAVAP MODULE_DIR ARTIFACT_ID UPDATE(true|false)
set -euo pipefail
javap=$1 dir=$2 name=$3 update=${4:-false}
case "$name" in
  weft-parent|weft-bom|weft-lab|weft-bench|weft-test-browser) exit 0 ;;   # not libraries
esac
classes="$dir/target/classes"
[ -d "$classes/dev" ] || exit 0
mapfile -t names < <(cd "$classes" && find dev -name '*.class' ! -name 'module-info.class' ! -name 'package-info.class' \
  | sed 's/\.class$//; s#/#.#g' | LC_ALL=C sort)
descriptor=
if [ -f "$classes/module-info.class" ]; then
  # Without the module's version (Maven's --module-version), which ./weft version changes.
  descriptor=$("$javap" "$classes/module-info.class" | grep -v '^Compiled from' | sed 's/^module \([^@ ]*\)@[^ ]* {$/module \1 {/')
  # The packages exported to every module ("exports p;", not "exports p to m, ...;").
  exported=" $(printf '%s\n' "$descriptor" | sed -n 's/^ *exports \([A-Za-z0-9_.]*\);$/\1/p' | tr '\n' ' ')"
  kept=()
  for n in "${names[@]}"; do
    [[ "$exported" == *" ${n%.*} "* ]] && kept+=("$n")
  done
  names=("${kept[@]}")
fi
[ "${#names[@]}" -gt 0 ] || exit 0
# Only public types: javap -public still prints the header of a non-public class.
dump=$("$javap" -public -cp "$classes" "${names[@]}" | awk '
  /^Compiled from/ { next }
  /^[a-z]/ { keep = ($0 ~ /^public /) }
  keep { print }')
if [ -n "$descriptor" ]; then
  dump=$(printf '%s\n%s' "$descriptor" "$dump")
fi
file="$dir/api/$name.api"
if [ "$update" = true ]; then
  mkdir -p "$dir/api"
  printf '%s\n' "$dump" > "$file"
  echo "api: wrote $file"
  exit 0
fi
if [ ! -f "$file" ]; then
  echo "api: $name has no API dump ($file). Create it with: mvn -q verify -DskipTests -Dweft.api.update=true" >&2
  exit 1
fi
if ! diff -u "$file" <(printf '%s\n' "$dump") >&2; then
  echo "api: the public API of $name changed (diff above: - the committed dump, + the code). If the change" \
       "is intended, update the dump with: mvn -q verify -DskipTests -Dweft.api.update=true, and commit $file" >&2
  exit 1
fi
