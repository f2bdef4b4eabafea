#!/usr/bin/env bash
# cached_build.sh's contract, with a stand-in compiler that counts its runs: a second build of the
# same source in another folder copies the first one's output; a changed source or compiler
# version compiles again; a failed compile stores nothing and fails; no usable cache still builds.
set -euo pipefail
script=$(dirname "$0")/cached_build.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export THREADMAP_BUILD_CACHE=$work/cache
runs=$work/runs
# The stand-in: `fakecc --version` prints $FAKE_VERSION; `fakecc OUT SRC` writes SRC's bytes
# reversed to OUT and counts a run; a source holding "fail" fails.
cat >"$work/fakecc" <<'CC'
#!/usr/bin/env bash
if [ "$1" = "--version" ]; then echo "fakecc ${FAKE_VERSION:-1}"; exit 0; fi
echo run >>"$RUNS"
grep -q fail "$2" && exit 1
rev "$2" >"$1"
CC
chmod +x "$work/fakecc"
export RUNS=$runs FAKE_VERSION=1
fail() { echo "cached_build_test: $*" >&2; exit 1; }
count() { wc -l <"$runs" 2>/dev/null || echo 0; }
build() {  # build CLONE: the source and output of one clone
  mkdir -p "$work/$1/src" "$work/$1/out"
  "$script" "$work/$1/out/prog" "$work/fakecc" "$work/$1/src/p.txt" -- \
    "$work/fakecc" "$work/$1/out/prog" "$work/$1/src/p.txt"
}
mkdir -p "$work/a/src" "$work/b/src" "$work/c/src" "$work/d/src"
echo "hello" >"$work/a/src/p.txt"
build a
[ "$(count)" = 1 ] || fail "the first build did not compile"
cp "$work/a/src/p.txt" "$work/b/src/p.txt"
build b
[ "$(count)" = 1 ] || fail "another clone's build of the same source compiled again"
cmp -s "$work/a/out/prog" "$work/b/out/prog" || fail "the copied output differs"
echo "changed" >"$work/b/src/p.txt"
build b
[ "$(count)" = 2 ] || fail "a changed source did not compile"
[ "$(rev "$work/b/out/prog")" = changed ] || fail "a changed source kept the old output"
FAKE_VERSION=2 build a
[ "$(count)" = 3 ] || fail "another compiler version did not compile"
echo "fail" >"$work/c/src/p.txt"
if build c 2>/dev/null; then fail "a failed compile succeeded"; fi
if build c 2>/dev/null; then fail "a failed compile was stored"; fi
[ "$(count)" = 5 ] || fail "a failed compile was not run again"
cp "$work/a/src/p.txt" "$work/d/src/p.txt"
THREADMAP_BUILD_CACHE=/proc/no-such-cache build d
[ "$(count)" = 6 ] || fail "with no usable cache, the compiler did not run"
[ -f "$work/d/out/prog" ] || fail "with no usable cache, nothing was built"
echo "cached_build_test: all passed"
