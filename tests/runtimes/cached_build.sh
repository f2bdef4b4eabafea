#!/usr/bin/env bash
# cached_build.sh OUT TOOLS SOURCE -- COMMAND...: builds OUT (one file) with COMMAND, through a
# content-addressed cache outside the build tree, so that a fresh clone or a new build directory
# on the same machine copies the runtimes' test programs instead of compiling them again (ccache
# serves only C and C++; javac, rustc and the go linker have no cache of their own that a new
# build tree finds).
#
# The key is the SOURCE's bytes, the version line of each of TOOLS (a comma-separated list of the
# compilers COMMAND runs: `TOOL --version`, or `go version`; cgo's C compiler too) and COMMAND
# with OUT's folder
# written as a placeholder (so two build trees share an entry). The cache is
# $THREADMAP_BUILD_CACHE, else $XDG_CACHE_HOME/threadmap-build, else ~/.cache/threadmap-build;
# where it is not writable (no HOME, read-only), COMMAND simply runs. A failed COMMAND stores
# nothing and fails the build as it would without the cache. Only OUT is kept: a COMMAND that
# writes other files too (javac for a source with nested classes) must not be built through it.
set -euo pipefail
out=$1 tools=$2 source=$3
shift 3
[ "$1" = "--" ] && shift

cache=${THREADMAP_BUILD_CACHE:-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/threadmap-build}
if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
  exec "$@"
fi

version_of() {
  case "$(basename "$1")" in
    go) "$1" version 2>/dev/null || true ;;
    *) "$1" --version 2>&1 | head -1 || true ;;
  esac
}
out_dir=$(dirname "$out") source_dir=$(dirname "$source")
key=$({
  sha256sum <"$source"
  IFS=, read -ra tool_list <<<"$tools"
  for tool in "${tool_list[@]}"; do version_of "$tool"; done
  args=("${@//"$out_dir"/@OUT@}")
  printf '%s\n' "${args[@]//"$source_dir"/@SRC@}"
} | sha256sum | cut -c1-32)
entry=$cache/$key-$(basename "$out")

if [ -f "$entry" ]; then
  touch "$entry"  # recently used: kept by the pruning below
  cp -p "$entry" "$out.tmp.$$" && mv -f "$out.tmp.$$" "$out"
  touch "$out"  # newer than its source, whatever the entry's age
  exit 0
fi
"$@"
# Entries unused for 30 days go (each source change leaves its old entry behind).
find "$cache" -maxdepth 1 -type f -mtime +30 -delete 2>/dev/null || true
# Stored under a temporary name first: two builds filling the same entry never see half a file.
cp -p "$out" "$entry.tmp.$$" 2>/dev/null && mv -f "$entry.tmp.$$" "$entry" || rm -f "$entry.tmp.$$"
