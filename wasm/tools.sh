#!/bin/sh
# tools.sh - installs missing build and test tools: Debian packages, and the
# npm packages a folder pins.
#
# Usage: wasm/tools.sh CHECK:PACKAGE...
#        wasm/tools.sh --npm DIR...
# CHECK is a command name looked up on PATH, or an absolute file path that
# must exist. Every package whose check fails is installed with one
# `apt-get install -y` (through sudo when not root); when that fails, the
# package lists may be stale, so `apt-get update` runs once and the install
# is retried. With --npm, each DIR has a package.json pinning exact versions
# and its package-lock.json: `npm ci` installs them there unless `npm ls`
# finds every one installed at its pinned version. Prints nothing when
# nothing is missing, so `make` stays quiet. With TOOLS_DRY_RUN=1 in the
# environment it prints what it would install and installs nothing.
#
# Installs hold a lock (flock on a file in the temporary directory), so the
# instances that `make -j` starts side by side take turns instead of failing
# on apt's or npm's own locks.
set -eu

dry=${TOOLS_DRY_RUN:-}

# Runs "$@" holding the install lock, or only says what it would run.
install() {
  echo "tools.sh: ${dry:+would run: }$*" >&2
  [ -n "$dry" ] && return 0
  (
    flock 9
    "$@" >&2
  ) 9>"${TMPDIR:-/tmp}/memsandbox-tools.lock"
}

if [ "${1:-}" = --npm ]; then
  shift
  for dir in "$@"; do
    npm ls --prefix "$dir" >/dev/null 2>&1 && continue
    install npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
  done
  exit 0
fi

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
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
if ! install $sudo apt-get install -y -q $missing; then
  install $sudo apt-get update -q
  install $sudo apt-get install -y -q $missing
fi
