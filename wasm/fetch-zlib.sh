#!/bin/sh
# fetch-zlib.sh - obtains zlib's source for the build, without committing it.
#
# Usage: wasm/fetch-zlib.sh OUTDIR
# Downloads Debian's source package `zlib` with `apt-get source
# --download-only` through a private apt configuration kept beside OUTDIR
# (its own sources.list with one deb-src line for this machine's Debian
# release and mirror, its own lists and cache), so the machine's apt setup is
# never modified. The upstream tarball is unpacked into OUTDIR; apt has
# already checked it against the signed Sources index. A user who has zlib
# source elsewhere passes ZLIB_SRC=dir to make instead.
set -eu

out=$1
top=$(dirname "$out")/apt
mkdir -p "$top/lists/partial" "$top/cache/archives/partial" "$top/dl"
top=$(cd "$top" && pwd)

# The release codename and mirror of this machine, with safe fallbacks.
suite=""
if [ -r /etc/os-release ]; then
  suite=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release | tr -d '"')
fi
[ -n "$suite" ] || suite=bookworm
mirror=""
if [ -r /etc/apt/sources.list.d/debian.sources ]; then
  mirror=$(awk '$1 == "URIs:" && $2 !~ /security/ { print $2; exit }' \
    /etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$mirror" ] && [ -r /etc/apt/sources.list ]; then
  mirror=$(awk '$1 == "deb" && $0 !~ /security/ {
    for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' \
    /etc/apt/sources.list)
fi
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
opt=""
[ -r "$keyring" ] && opt="[signed-by=$keyring] "
echo "deb-src ${opt}$mirror $suite main" >"$top/sources.list"

set -- -q -o "Dir::Etc::SourceList=$top/sources.list" \
  -o Dir::Etc::SourceParts=/dev/null \
  -o "Dir::State::Lists=$top/lists" -o "Dir::Cache=$top/cache" \
  -o APT::Sandbox::User=root
if ! ls "$top"/lists/*Sources* >/dev/null 2>&1; then
  apt-get "$@" update >&2
fi
(cd "$top/dl" && apt-get "$@" source --download-only zlib >&2)
tarball=$(ls "$top"/dl/zlib_*.orig.tar.* | head -n 1)
rm -rf "$out.tmp"
mkdir -p "$out.tmp"
tar -xf "$tarball" -C "$out.tmp" --strip-components=1
rm -rf "$out"
mv "$out.tmp" "$out"
echo "fetch-zlib.sh: $(basename "$tarball") -> $out" >&2
