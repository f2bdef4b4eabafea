#!/usr/bin/env bash
# Every subcommand `threadmap --help` lists has a man page, and every option each
# `threadmap SUB --help` prints appears in that page, in the bash completion for SUB and in the
# zsh completion; every fixed list of values (--help shows TEXT:{a,b,c}) is offered by both
# completions and listed on the page, and no option whose help names alternatives ("a|b",
# "a, b or c") lacks such a list; completing `run --policy sc` in bash gives scatter; the pages
# format without groff warnings (when man is installed).
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
    # The option's line of --help with its description (CLI11 puts a long one on the next lines).
    line=$("$tm" "$sub" --help | awk '/^  -/ { if (l) print l; l = $0; next }
      /^      / { if (l) l = l " " $0; next } { if (l) print l; l = "" } END { if (l) print l }' |
      grep -E -- "^  (-[a-zA-Z],)?$opt( |$)")
    values=$(sed -n 's/^[^{]*{\([^}]*\)}.*/\1/p' <<<"$line")
    if [ -z "$values" ]; then
      # Help text that names alternatives is a fixed list the completion should offer, except
      # where the alternatives are forms of a free value: CPU expressions (list, mask, all,
      # locations: see CPU EXPRESSIONS), or another option's values named in passing.
      case "$sub $opt" in
        *" --cpus" | "plan --ranks") continue ;;
      esac
      if grep -qE '\b[a-z][a-z-]+\|[a-z][a-z-]+\b|\b[a-z][a-z-]+, [a-z][a-z-]+,? or [a-z][a-z-]+\b' <<<"$line"; then
        problem "$sub $opt names alternatives but declares no fixed values: $line"
      fi
      continue
    fi
    vcase=$(grep -E -- "^        ([^)]*\|)?$opt(\|[^)]*)?\) " <<<"$branch")
    for v in ${values//,/ }; do
      word=${v%%[A-Z]*}  # bind:NODES -> bind:, K/N -> (a placeholder: nothing to offer)
      [ -n "$word" ] || continue
      grep -qE -- "[' ]$word[' ]" <<<"$vcase" || problem "bash completion of $sub $opt lacks $word"
      grep -F -- "'$opt[" <<<"$zbranch" | grep -qF -- "${word//:/\\:}" ||
        problem "zsh completion of $sub $opt lacks $word"
      grep -qF -- "${word//-/\\-}" <<<"$page" || problem "threadmap-$sub(1) does not list $word for $opt"
    done
  done
  if command -v man >/dev/null; then
    warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l - <<<"$page" 2>&1 >/dev/null)
    [ -z "$warnings" ] || problem "threadmap-$sub(1) formats with warnings: $warnings"
  fi
done
# The bash completion at work: COMP_WORDS as bash would split the command line.
complete_bash() {  # complete_bash WORD... : prints what <TAB> offers for the last word
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  compopt() { :; }  # only meaningful inside a real completion
  eval "$bash_completion"
  _threadmap
  echo "${COMPREPLY[*]}"
}
[ "$(complete_bash threadmap run --policy sc)" = scatter ] || problem "bash: run --policy sc does not complete to scatter"
[ "$(complete_bash threadmap run --mem bi)" = "bind:" ] || problem "bash: run --mem bi does not complete to bind:"
[ "$(complete_bash threadmap tune --candidates os,comp)" = "os,compact" ] ||
  problem "bash: tune --candidates os,comp gives '$(complete_bash threadmap tune --candidates os,comp)', not os,compact"
[ "$(complete_bash threadmap plan --export rank)" = rankfile ] || problem "bash: plan --export rank does not complete to rankfile"
[ "$(complete_bash threadmap latency --method two)" = two-lines ] || problem "bash: latency --method two does not complete"
[ "$(complete_bash threadmap plan --policy = spr)" = spread ] || problem "bash: plan --policy=spr does not complete to spread"
echo "manuals: $(echo $subs | wc -w) subcommands checked, $failed problem(s)"
[ "$failed" = 0 ]
