#!/usr/bin/env bash
# Writes the project a new user makes from README.md's Install section into folder $1: the
# README's whole-POM ```xml block as pom.xml and its first test (the ```java block declaring
# FirstPinTest) as src/test/java/FirstPinTest.java, both exactly as written. The examples tier
# (build/test/examples.sh) then builds it with `mvn test`, as the README tells the user to.
#
#   build/readme/install-project.sh DIR [README.md]
set -euo pipefail
dir=${1:?usage: install-project.sh DIR [README.md]}
readme=${2:-"$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/README.md"}

# The body of the first fenced block in language $1 whose text contains $2.
block() { "$(dirname "${BASH_SOURCE[0]}")/block.sh" "$1" "$2" "$readme"; }

rm -rf "$dir"
mkdir -p "$dir/src/test/java"
block xml '<project' > "$dir/pom.xml" \
  || { echo "install-project: $readme has no \`\`\`xml block that is a whole POM (<project ...>)" >&2; exit 1; }
block java 'class FirstPinTest' > "$dir/src/test/java/FirstPinTest.java" \
  || { echo "install-project: $readme has no \`\`\`java block declaring FirstPinTest" >&2; exit 1; }
