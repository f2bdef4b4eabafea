#!/usr/bin/env bash
# `xz -T0` plain under `taskset -c X` against the same under `threadmap run --cpus X`,
# interleaved round by round (each round runs every variant once, in a rotated order), so all
# variants see the same machine state. Prints each variant's median wall time, the threads xz
# said it would use, and the median of the per-round ratios placed / plain.
#
# usage: placed_xz.sh THREADMAP_BIN INPUT [ROUNDS] [CPUS]
#   CPUS defaults to every CPU this script may run on. With OLD_PIN_LIB and OLD_PIN_CONFIG set,
#   a third variant runs xz with that library preloaded and that TM_PIN_CONFIG (a build of the
#   library from before a change, given the configuration `run --cpus CPUS` writes).
set -u
threadmap=$1 input=$2 rounds=${3:-5}
cpus=${4:-$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)}
xz_args=(-T0 -6 --block-size=1MiB -c "$input")
variants=(plain placed)
[ -n "${OLD_PIN_LIB:-}" ] && variants+=(before)

run_variant() {
  case $1 in
    plain) taskset -c "$cpus" xz -vv "${xz_args[@]}" ;;
    placed) "$threadmap" run --cpus "$cpus" -- xz -vv "${xz_args[@]}" ;;
    before) TM_PIN_CONFIG=$OLD_PIN_CONFIG LD_PRELOAD=$OLD_PIN_LIB xz -vv "${xz_args[@]}" ;;
  esac
}

dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
for ((r = 0; r < rounds; ++r)); do
  n=${#variants[@]}
  for ((k = 0; k < n; ++k)); do
    v=${variants[$(((k + r) % n))]}
    start=$(date +%s%N)
    run_variant "$v" 2>"$dir/err" >/dev/null
    end=$(date +%s%N)
    echo "$(((end - start) / 1000000))" >>"$dir/$v.ms"
    sed -n 's/^xz: Using up to \([0-9]*\) threads.*/\1/p' "$dir/err" | head -1 >"$dir/$v.threads"
    echo "$r" >>"$dir/$v.rounds"
  done
done
median() { sort -n "$1" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
echo "xz ${xz_args[*]}, CPUs $cpus, $rounds rounds interleaved"
for v in "${variants[@]}"; do
  echo "$v: median $(median "$dir/$v.ms") ms (runs: $(paste -sd' ' "$dir/$v.ms")), xz threads $(cat "$dir/$v.threads")"
done
for v in "${variants[@]}"; do
  [ "$v" = plain ] && continue
  paste "$dir/$v.ms" "$dir/plain.ms" | awk '{ printf "%.4f\n", $1 / $2 }' >"$dir/$v.ratio"
  echo "$v / plain: median of per-round ratios $(median "$dir/$v.ratio") (each: $(paste -sd' ' "$dir/$v.ratio"))"
done
