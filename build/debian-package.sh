#!/usr/bin/env bash
# Installs a Debian package the build needs when what it provides is missing: PostgreSQL's server
# (build/postgres.sh), Chromium (the browser tier), h2load (./weft test and ./weft lab). One place
# decides how: apt-get as root (CI's fresh Debian machine), through `sudo -n` otherwise (never a
# password prompt), with no service started by the package (policy-rc.d), and one line when it
# cannot, naming the command to run by hand.
#
#   . build/debian-package.sh
#   ensure_debian_package PACKAGE WHY CHECK [ARGS...]
#       runs CHECK ARGS...; when it fails, installs PACKAGE (saying so in one line, with WHY),
#       then runs CHECK again. Returns 0 when CHECK succeeds in the end, else 1 after one line
#       saying how to install PACKAGE by hand (the apt-get log is /tmp/weft-apt-PACKAGE.log).
#   have_command NAME...
#       succeeds when one of the NAMEs is a command on the PATH (a CHECK for the usual case)
#
#   build/debian-package.sh PACKAGE WHY COMMAND...   the same from a shell: checks have_command COMMAND...
#
# Installing from Debian's archive needs nothing but apt-get: the package list is refreshed first
# (a fresh machine has none).

have_command() {
  local name
  for name in "$@"; do
    command -v "$name" >/dev/null 2>&1 && return 0
  done
  return 1
}

ensure_debian_package() {
  local package=$1 why=$2
  shift 2
  "$@" && return 0
  local sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1 || ! sudo -n true 2>/dev/null; then
      echo "weft: $package is not installed ($why); install it: sudo apt-get install $package (Debian/Ubuntu)" >&2
      return 1
    fi
    sudo_cmd="sudo -n"
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "weft: $package is not installed ($why), and this is not a Debian-like system (no apt-get): install it with your system's package manager" >&2
    return 1
  fi
  echo "weft: installing Debian's $package with apt-get ($why)" >&2
  # Keep the package from starting a service of its own (policy-rc.d: 101 = action forbidden).
  local policy=/usr/sbin/policy-rc.d made_policy="" status=0 log="/tmp/weft-apt-$package.log"
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo_cmd tee "$policy" >/dev/null && $sudo_cmd chmod +x "$policy" && made_policy=1
  fi
  { $sudo_cmd apt-get update -qq \
      && $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$package"; } \
    >"$log" 2>&1 || status=$?
  [ -z "$made_policy" ] || $sudo_cmd rm -f "$policy"
  if [ "$status" -ne 0 ] || ! "$@"; then
    echo "weft: installing $package with apt-get failed (log: $log); install it by hand: apt-get install $package" >&2
    return 1
  fi
  return 0
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  [ $# -ge 3 ] || { echo "usage: $0 PACKAGE WHY COMMAND..." >&2; exit 2; }
  package=$1 why=$2
  shift 2
  ensure_debian_package "$package" "$why" have_command "$@" || exit 3
fi
