# Sourced by the option checks (futex_table_slots.sh, once_wakes.sh) after they set `lib` (the
# cache library), `prog` (a test program) and `probe` (its argument that prints one value).
# check NAME EXPECTED [VAR=value...]: runs "$prog $probe" preloaded with those variables set and
# compares what it prints with EXPECTED; a mismatch prints FAIL and sets status to 1.
status=0
check() {
  name=$1 want=$2
  shift 2
  got=$(env "$@" LD_PRELOAD="$lib" "$prog" "$probe")
  if [ "$got" = "$want" ]; then echo "ok $name ($got)"; else
    echo "FAIL $name: printed $got, expected $want"; status=1; fi
}
