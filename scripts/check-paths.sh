#!/usr/bin/env bash
# Checks that no tracked file refers to a path outside the repository: a fresh clone must hold
# everything a reader is pointed to. Fails on a relative path into the workspace folder beside
# the repository (the parent directory's "shared") and on absolute paths under the development
# machine's work folder. Examples of a user's own paths (`/usr/lib/...`) are fine: not ours.
#
# Also checks that every relative link in a tracked Markdown file (`[text](path)`,
# `[text](path#anchor)`) names a file that exists, and an anchor that one of its headings makes
# (GitHub's rule: lower case, punctuation dropped, spaces to '-').
#
# Exit status: 0 when every reference holds, 1 otherwise (each hit printed on stderr as
# file:line:text).
set -euo pipefail
cd "$(dirname "$0")/.."

# The patterns are built from pieces so that this file does not contain them either.
up='\.\./'"shared"
abs='(^|[^[:alnum:]_.~/-])/'"work"'(/|[^[:alnum:]_-]|$)'

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files() { git ls-files -z; }
else
  files() { find . -path ./.git -prune -o -type f -print0; }
fi
status=0
hits=$(files | xargs -0 grep -nIE -- "$up|$abs" 2>/dev/null | grep -v '^scripts/check-paths.sh:' || true)
if [ -n "$hits" ]; then
  echo "check-paths: tracked files refer to paths outside the repository (a fresh clone lacks them):" >&2
  echo "$hits" >&2
  status=1
fi

slugs() {  # the anchors GitHub makes for the headings of Markdown file $1
  grep -E '^#{1,6} ' "$1" | sed -E 's/^#+ +//' | tr '[:upper:]' '[:lower:]' \
    | sed -E 's/[^a-z0-9 _-]//g; s/ /-/g'
}
while IFS= read -r -d '' md; do
  case "$md" in *.md) ;; *) continue ;; esac
  [ -f "$md" ] || continue  # tracked but deleted in the work tree
  dir=$(dirname "$md")
  while IFS=: read -r line link; do
    case "$link" in http://* | https://* | mailto:* | "#"*) continue ;; esac
    target=${link%%#*}
    anchor=${link#"$target"}
    anchor=${anchor#\#}
    path="$dir/$target"
    if [ ! -e "$path" ]; then
      echo "check-paths: $md:$line: link to $link: no such file" >&2
      status=1
    elif [ -n "$anchor" ] && [ -f "$path" ] && ! slugs "$path" | grep -qxF -- "$anchor"; then
      echo "check-paths: $md:$line: link to $link: $target has no heading with that anchor" >&2
      status=1
    fi
  done < <(grep -noE '\]\([^) ]+\)' "$md" | sed -E 's/^([0-9]+):\]\((.*)\)$/\1:\2/')
done < <(files)

[ $status -eq 0 ] && echo "check-paths: no tracked file refers to a path outside the repository; every Markdown link resolves"
exit $status
