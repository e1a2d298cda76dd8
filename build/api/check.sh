#!/usr/bin/env bash
# The public Java (and Kotlin) API of one module, as javap prints it, compared with the dump
# committed in <module>/api/<artifact>.api; run by Maven in the verify phase of every module (see
# the parent pom). There is no earlier release to compare with, so the committed dump is the
# baseline (decision 0104): a change to the public API fails the build until the dump is updated
# on purpose with
#   mvn -q verify -DskipTests -Dweft.api.update=true
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
[ "${#names[@]}" -gt 0 ] || exit 0
# Only public types: javap -public still prints the header of a non-public class.
dump=$("$javap" -public -cp "$classes" "${names[@]}" | awk '
  /^Compiled from/ { next }
  /^[a-z]/ { keep = ($0 ~ /^public /) }
  keep { print }')
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
