#!/bin/sh
# tools.sh - installs missing build tools from Debian packages.
#
# Usage: wasm/tools.sh CHECK:PACKAGE...
# CHECK is a command name looked up on PATH, or an absolute file path that
# must exist. Every package whose check fails is installed with one
# `apt-get install -y` (through sudo when not root); when that fails, the
# package lists may be stale, so `apt-get update` runs once and the install
# is retried. Prints nothing when nothing is missing, so `make` stays quiet.
set -eu

missing=""
for pair in "$@"; do
  check=${pair%%:*}
  pkg=${pair#*:}
  case $check in
    /*) [ -e "$check" ] && continue ;;
    *) command -v "$check" >/dev/null 2>&1 && continue ;;
  esac
  case " $missing " in
    *" $pkg "*) ;;
    *) missing="$missing $pkg" ;;
  esac
done
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "tools.sh: missing:$missing (no apt-get here; install them by hand)" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  sudo=sudo
fi
echo "tools.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
if ! $sudo apt-get install -y -q $missing >&2; then
  $sudo apt-get update -q >&2
  $sudo apt-get install -y -q $missing >&2
fi
