#!/usr/bin/env bash
# Checks that no tracked file refers to a path outside the repository: a fresh clone must hold
# everything a reader is pointed to. Fails on `../shared` (the workspace beside the repository)
# and on absolute paths under /work (a development machine's layout). Examples of a user's own
# paths (`/shared/fleet/%h`, `/usr/lib/...`) are fine: they are not ours.
#
# Exit status: 0 when no tracked file has such a reference, 1 otherwise (each hit printed on
# stderr as file:line:text).
set -euo pipefail
cd "$(dirname "$0")/.."

# The patterns are spelled in two halves so that this file does not match itself.
up='\.\./'"shared"
abs='(^|[^[:alnum:]_.~/-])/'"work"'(/|[^[:alnum:]_-]|$)'

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files() { git ls-files -z; }
else
  files() { find . -path ./.git -prune -o -type f -print0; }
fi
hits=$(files | xargs -0 grep -nIE -- "$up|$abs" 2>/dev/null || true)
if [ -n "$hits" ]; then
  echo "check-paths: tracked files refer to paths outside the repository (a fresh clone lacks them):" >&2
  echo "$hits" >&2
  exit 1
fi
echo "check-paths: no tracked file refers to a path outside the repository"
