#!/usr/bin/env bash
# Docs equal the tool: every `threadmap ...` command line in README.md and docs/*.md (code blocks
# and indented command lines) that can run on any machine is run here, in order per file, in a
# scratch directory that sees the repository's tests/ and examples/ (so the documented paths
# resolve as they do in a checkout). Each must exit 0; where the doc shows the output of one
# that cannot vary (`$ threadmap ...` over a saved matrix or topology, followed by lines), every
# shown line must be in what the tool prints (whitespace compared collapsed; a line with "..."
# is a shortened one and is skipped). A command that cannot run here (another machine's file, a program of the reader's,
# a launcher, a running process, minutes of measuring that other tests cover) is listed with
# the reason, so what is and is not covered is in the log.
# Also: every tests/data/ or examples/ path the docs name exists, and the latency CSV header
# the doc gives is the one the tool writes and loads.
#   doc_commands.sh THREADMAP REPO_ROOT
set -uo pipefail
tm=$(realpath "$1") root=$(realpath "$2")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0 ran=0 skipped=0
problem() {
  echo "FAIL: $*"
  failed=$((failed + 1))
}
bin=$scratch/bin
mkdir -p "$bin"
ln -s "$tm" "$bin/threadmap"
[ -x "$(dirname "$tm")/threadmap-spawn" ] && ln -s "$(dirname "$tm")/threadmap-spawn" "$bin/"
export PATH=$bin:$PATH

# Why a command cannot run here, or "" when it can. $1: the command line (no "$ ").
why_not() {
  local line=$1 sub
  sub=$(awk '{print $2}' <<<"$line")
  case $line in
    *"./"* | *"--launcher"*) echo "runs a program of the reader's"; return ;;
    *mpirun* | *srun* | *salloc*) echo "needs a launcher"; return ;;
  esac
  # After --, a program every checkout has runs here (python3 on a script of tests/, our own
  # threadmap-spawn); anything else is the reader's.
  if [[ $line == *" -- "* ]]; then
    local prog=${line#* -- }
    case ${prog%% *} in
      python3 | threadmap-spawn | true | echo) ;;
      *) echo "runs a program of the reader's"; return ;;
    esac
  fi
  # A synopsis, not a command: optional parts in brackets, UPPERCASE placeholders, "...".
  if grep -qE '\[-|\b[A-Z]{2,}\b|\.\.\.|\|' <<<"$line"; then
    echo "a synopsis (placeholders)"
    return
  fi
  if grep -qE -- '--gpus|gpu:|nic:|pci:' <<<"$line" && ! grep -q -- '--topology' <<<"$line"; then
    echo "needs GPUs or NICs this machine lacks"
    return
  fi
  case $sub in
    topo | latency | plan | fleet | job | run | --help* | --version) ;;
    report | bench | tune) echo "minutes of measuring (tests/integration/$sub covers it)"; return ;;
    *) echo "'$sub' acts on a program or process of the reader's"; return ;;
  esac
  # Input files must exist (after the block's earlier commands wrote theirs).
  local prev="" word
  for word in $line; do
    case $prev in
      --topology | --load | --spec | --latency | --plan)
        # A relative path into a folder is a path of this repository: it must exist. A bare
        # name (server.xml) or an absolute path is the reader's.
        if [ ! -e "$word" ]; then
          case $word in
            /* | \$* | \"*) echo "needs $word (the reader's)" ;;
            */*) echo "MISSING: $word" ;;
            *) echo "needs $word (the reader's)" ;;
          esac
          return
        fi ;;
    esac
    prev=$word
  done
  if [ "$sub" = fleet ] || [ "$sub" = job ]; then
    local dir
    dir=$(awk '{print $3}' <<<"$line")
    [ -d "$dir" ] || { echo "needs $dir (reports of a fleet or job)"; return; }
  fi
  [ "$sub" = latency ] && ! grep -q -- '--load' <<<"$line" &&
    [ "$(nproc)" -lt 2 ] && { echo "measuring needs 2 CPUs"; return; }
  echo ""
}

# All whitespace, line ends included, as one space: the tool fills its prose to 100 columns
# where a doc shows the line whole.
squash() { tr -s ' \n' '  ' <<<"$1" | sed 's/^ //; s/ $//'; }

# run_doc FILE: runs FILE's command lines in order in a fresh directory.
run_doc() {
  local file=$1 work line shown cmd reason out status
  work=$scratch/$(basename "$file" .md)
  mkdir -p "$work"
  ln -s "$root/tests" "$work/tests"
  ln -s "$root/examples" "$work/examples"
  # Command lines with the lines shown under them: "CMD\x1fSHOWN1\x1eSHOWN2..." one per line.
  python3 - "$file" >"$work/.commands" <<'EOF'
import re, sys
text = open(sys.argv[1]).read().splitlines()
fence = False
i = 0
while i < len(text):
    line = text[i]
    if line.strip().startswith("```"):
        fence = not fence
        i += 1
        continue
    body = line.strip() if fence else (line[4:] if line.startswith("    ") else "")
    sample = body.startswith("$ threadmap ")
    if body.startswith("threadmap ") or sample:
        cmd = body[2:] if sample else body
        cmd = re.split(r"\s{2,}#", cmd)[0].strip()
        shown = []
        if sample and fence:
            j = i + 1
            while j < len(text) and text[j].strip() and not text[j].startswith("$ ") \
                    and not text[j].strip().startswith("```"):
                shown.append(text[j])
                j += 1
        print(cmd + "\x1f" + "\x1e".join(shown))
    i += 1
EOF
  while IFS=$'\x1f' read -r cmd shown; do
    [ -n "$cmd" ] || continue
    # A sequence of commands on one line ("threadmap ps 4242 ; threadmap pin ...") is skipped.
    if grep -q ';' <<<"$cmd"; then
      echo "not run ($file): $cmd: several commands on a line"
      skipped=$((skipped + 1))
      continue
    fi
    reason=$(cd "$work" && why_not "$cmd")
    if [[ $reason == MISSING:* ]]; then
      problem "$file: '$cmd' names ${reason#MISSING: }, which is not in this repository"
      continue
    fi
    if [ -n "$reason" ]; then
      echo "not run ($file): $cmd: $reason"
      skipped=$((skipped + 1))
      continue
    fi
    ran=$((ran + 1))
    out=$(cd "$work" && timeout 120 bash -c "$cmd" 2>&1)
    status=$?
    # The machine is too small for the example (it names CPUs or needs more than there are):
    # said by the tool itself, so listed, not failed.
    if [ "$status" != 0 ] && grep -qE 'CPUs? but only [0-9]+ (is|are) available|does not exist on this machine' <<<"$out"; then
      echo "not run ($file): $cmd: this machine is too small for it ($(grep -m1 '^threadmap: ' <<<"$out"))"
      ran=$((ran - 1))
      skipped=$((skipped + 1))
      continue
    fi
    [ "$status" = 0 ] || { problem "$file: '$cmd' exited $status: $(head -3 <<<"$out")"; continue; }
    # Shown output is compared where it cannot vary: a saved matrix or topology analysed, a
    # manual page. A measurement's figures (a pid, a rate) differ run to run.
    grep -qE -- '--load|--topology|^threadmap --help' <<<"$cmd" || continue
    local flat
    flat=$(squash "$out")
    while IFS= read -r -d $'\x1e' want || [ -n "$want" ]; do
      want=${want%$'\n'}
      [ -n "$(squash "$want")" ] || continue
      grep -qF -- "..." <<<"$want" && continue
      grep -qF -- "$(squash "$want")" <<<"$flat" ||
        problem "$file: '$cmd' does not print the line the doc shows: $(squash "$want")"
      want=""
    done <<<"$shown"
  done <"$work/.commands"
}

for doc in "$root/README.md" "$root"/docs/*.md; do run_doc "$doc"; done

# Paths the docs name in this repository exist.
for doc in "$root/README.md" "$root"/docs/*.md; do
  for path in $(grep -oE '(^|[ `(])(tests/data|examples)/[A-Za-z0-9_./-]+' "$doc" | sed 's/^[ `(]//' | sort -u); do
    path=${path%.}
    [ -e "$root/$path" ] || problem "$(basename "$doc") names $path, which does not exist"
  done
done

# The latency CSV header as docs/latency.md gives it is what the tool writes, and it loads back.
header=$(grep -oE 'header `[^`]*`' "$root/docs/latency.md" | head -1 | sed 's/header `//; s/`$//')
written=$("$tm" latency --load "$root/tests/data/latency/Apple_M1_Pro.csv" --csv - | head -1)
[ "${written#"${header%...}"}" != "$written" ] ||
  problem "docs/latency.md gives the CSV header '$header'; the tool writes '$written'"
if ! "$tm" latency --load "$root/tests/data/latency/Apple_M1_Pro.csv" --csv "$scratch/back.csv" \
  >/dev/null || ! "$tm" latency --load "$scratch/back.csv" >/dev/null; then
  problem "a CSV the tool wrote does not load back"
fi
echo "doc commands: $ran run, $skipped not runnable here (listed above), $failed problem(s)"
[ "$failed" = 0 ]
