#!/usr/bin/env bash
# Prints the body of the first fenced ```LANG block of a Markdown FILE whose text contains TEXT,
# exactly as written; exits 1 when there is none. The examples tier uses it to build what a user
# pastes from README.md (the Install POM and first test, the Leiningen and deps.edn lines).
#
#   build/readme/block.sh LANG TEXT FILE
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 LANG TEXT FILE" >&2; exit 2; }
awk -v lang="$1" -v want="$2" '
  !open && $0 ~ "^```" lang "[ \t]*$" { open = 1; body = ""; next }
  open && /^```[ \t]*$/ { open = 0; if (index(body, want)) { printf "%s", body; found = 1; exit } next }
  open { body = body $0 "\n" }
  END { exit found ? 0 : 1 }' "$3"
