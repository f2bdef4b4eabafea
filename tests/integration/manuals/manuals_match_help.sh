#!/usr/bin/env bash
# Every subcommand `threadmap --help` lists has a man page, and every option each
# `threadmap SUB --help` prints appears in that page, in the bash completion for SUB and in the
# zsh completion; the pages format without groff warnings (when man is installed).
#   manuals_match_help.sh THREADMAP
set -uo pipefail
tm=$1
failed=0
problem() {
  echo "FAIL: $*"
  failed=$((failed + 1))
}
bash_completion=$("$tm" --help-completion bash) || problem "--help-completion bash failed"
zsh_completion=$("$tm" --help-completion zsh) || problem "--help-completion zsh failed"
bash -n <<<"$bash_completion" || problem "the bash completion does not parse"
main_page=$("$tm" --help-man) || problem "--help-man failed"
# Subcommands as --help lists them (the lines under "Subcommands:").
subs=$("$tm" --help | sed -n '/^Subcommands:/,$p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
[ -n "$subs" ] || problem "no subcommands in threadmap --help"
[ "$(echo "$subs")" = "$("$tm" --help-man --list)" ] || problem "--help-man --list differs from --help"
for sub in $subs; do
  grep -qF ".B $sub" <<<"$main_page" || problem "threadmap(1) does not list $sub"
  grep -qF "'$sub:" <<<"$zsh_completion" || problem "zsh completion does not offer $sub"
  page=$("$tm" --help-man "$sub") || { problem "--help-man $sub failed"; continue; }
  # The bash completion's branch for this subcommand.
  branch=$(sed -n "/^    $sub)\$/,/^      ;;\$/p" <<<"$bash_completion")
  [ -n "$branch" ] || problem "bash completion has no branch for $sub"
  zbranch=$(sed -n "/^        $sub)\$/,/&& ret=0 ;;\$/p" <<<"$zsh_completion")
  [ -n "$zbranch" ] || problem "zsh completion has no branch for $sub"
  options=$("$tm" "$sub" --help | grep -oE '^  (-[a-zA-Z],)?--[a-z0-9][a-z0-9-]*' |
    grep -oE -- '--[a-z0-9-]+')
  for opt in $options; do
    grep -qF -- "${opt//-/\\-}" <<<"$page" || problem "threadmap-$sub(1) lacks $opt"
    grep -qE -- "(^| |')$opt( |'|\\||\\))" <<<"$branch" || problem "bash completion of $sub lacks $opt"
    grep -qF -- "'$opt[" <<<"$zbranch" || problem "zsh completion lacks $opt ($sub)"
  done
  if command -v man >/dev/null; then
    warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l - <<<"$page" 2>&1 >/dev/null)
    [ -z "$warnings" ] || problem "threadmap-$sub(1) formats with warnings: $warnings"
  fi
done
echo "manuals: $(echo $subs | wc -w) subcommands checked, $failed problem(s)"
[ "$failed" = 0 ]
