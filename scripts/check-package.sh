#!/usr/bin/env bash
# Builds the .deb the way a distribution would (prefix /usr, no tests or benchmarks), unpacks it
# into a scratch root with `dpkg -x` and checks it: the file list (binary, libraries, preload
# libraries, headers, CMake and pkg-config files, a man page per subcommand, bash and zsh
# completion), the dependencies, that the unpacked `threadmap` runs and finds its own preload
# libraries relative to itself, and that the man pages format cleanly. lintian runs when it is
# installed (its findings are printed, not fatal); so does the .rpm when rpmbuild is.
#   scripts/check-package.sh [BUILD_DIR]      (default: build-package)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-package}

fail() {
  echo "check-package: $*" >&2
  exit 1
}
for tool in cmake cpack dpkg dpkg-deb; do
  command -v "$tool" >/dev/null || fail "needs $tool"
done

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi

echo "== configure and build $build (prefix /usr, no tests, no benchmarks)"
cmake -S . -B "$build" "${generator[@]}" "${launcher[@]}" -DCMAKE_INSTALL_PREFIX=/usr \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTHREADMAP_BUILD_TESTS=OFF -DTHREADMAP_BUILD_BENCH=OFF \
  >/dev/null
cmake --build "$build"

echo "== cpack -G DEB"
rm -f "$build"/threadmap_*.deb
(cd "$build" && cpack -G DEB >/dev/null)
debs=("$build"/threadmap_*.deb)
[ -f "${debs[0]}" ] || fail "cpack wrote no threadmap_*.deb in $build"
deb=${debs[0]}
echo "package: $deb ($(du -k "$deb" | cut -f1) KiB)"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg -x "$deb" "$root"
(cd "$root" && find . -type f -o -type l | sed 's|^\./|/|' | sort) >"$root.files"
trap 'rm -rf "$root" "$root.files"' EXIT

echo "== file list"
# Multiarch: the libraries sit in one directory (usr/lib/x86_64-linux-gnu on Debian, usr/lib64 on
# Fedora); that is the one the binary must search.
libdir=$(find "$root/usr" -name 'libthreadmap.so.0*' -printf '%h\n' | head -1)
[ -n "$libdir" ] || fail "no libthreadmap.so.0 in the package"
lib=${libdir#"$root"/}
missing=0
expect() {  # expect DESCRIPTION GLOB (relative to the root; must match at least one file)
  local matches
  matches=$(compgen -G "$root/$2" || true)
  if [ -z "$matches" ]; then
    echo "  MISSING: $1 ($2)"
    missing=$((missing + 1))
  else
    echo "  ok: $1: $(echo "$matches" | head -1 | sed "s|^$root||")"
  fi
}
expect "binary" "usr/bin/threadmap"
expect "spawn helper (bench spawn)" "usr/bin/threadmap-spawn"
expect "library" "$lib/libthreadmap.so.0*"
expect "library (link name)" "$lib/libthreadmap.so"
expect "pin preload" "$lib/libthreadmap-pin.so"
expect "cache preload" "$lib/libthreadmap-cache.so"
expect "C header" "usr/include/threadmap/threadmap.h"
expect "C++ headers" "usr/include/threadmap/*.hpp"
expect "generated version header" "usr/include/threadmap/version.hpp"
expect "pkg-config file" "$lib/pkgconfig/threadmap.pc"
expect "CMake package" "$lib/cmake/threadmap/threadmapConfig.cmake"
expect "CMake targets" "$lib/cmake/threadmap/threadmapTargets.cmake"
expect "man page threadmap(1)" "usr/share/man/man1/threadmap.1*"
expect "bash completion" "usr/share/bash-completion/completions/threadmap"
expect "zsh completion" "usr/share/zsh/vendor-completions/_threadmap"
expect "copyright" "usr/share/doc/threadmap/copyright"
expect "README" "usr/share/doc/threadmap/README.md"
expect "documents" "usr/share/doc/threadmap/docs/run-and-watch.md"
export LD_LIBRARY_PATH=$libdir
tm=$root/usr/bin/threadmap
# One man page per subcommand the installed binary has.
subs=$("$tm" --help-man --list)
for sub in $subs; do expect "man page threadmap-$sub(1)" "usr/share/man/man1/threadmap-$sub.1*"; done
stray=$(grep -vE '^/usr/(bin|lib|include|share/(man|doc|bash-completion|zsh))/' "$root.files" || true)
[ -z "$stray" ] || { echo "  files outside the expected places:"; echo "$stray" | sed 's/^/    /'; missing=$((missing + 1)); }
echo "  $(wc -l <"$root.files") files:"
sed 's/^/    /' "$root.files"
[ "$missing" = 0 ] || fail "$missing expected file(s) missing or misplaced"

echo "== control"
depends=$(dpkg-deb -f "$deb" Depends)
echo "  Depends: $depends"
for dep in libhwloc libcairo libfmt libc6; do
  grep -q "$dep" <<<"$depends" || fail "Depends lacks $dep"
done
recommends=$(dpkg-deb -f "$deb" Recommends)
echo "  Recommends: $recommends"
grep -q "bash-completion" <<<"$recommends" || fail "Recommends lacks bash-completion"

echo "== the unpacked threadmap runs"
"$tm" --version
"$tm" topo --summary
# The preload must come from the unpacked package (found relative to the binary), not from a
# build tree or a system install.
preload=$("$tm" run --thread-cache -- sh -c 'echo "$LD_PRELOAD"')
echo "  run --thread-cache: LD_PRELOAD=$preload"
[[ "$preload" == "$libdir/libthreadmap-cache.so"* ]] || fail "the preload is not the package's ($libdir)"
"$tm" run --thread-cache -- true
"$tm" run --cpus 0 -- true
echo "  run --thread-cache -- true: ok"

echo "== a program built against the unpacked package (CMake package and pkg-config)"
# Both files locate the prefix from their own place, so the scratch root works as a prefix.
cmake -S tests/consumer -B "$root/consumer" "${generator[@]}" -DCMAKE_PREFIX_PATH="$root/usr" \
  -DCMAKE_LIBRARY_ARCHITECTURE="$(basename "$libdir")" >/dev/null
cmake --build "$root/consumer" >/dev/null
"$root/consumer/consumer_cpp" >/dev/null
"$root/consumer/consumer_c" >/dev/null
echo "  consumer_cpp and consumer_c built and ran"

echo "== man pages and completion"
if command -v man >/dev/null; then
  for page in "$root"/usr/share/man/man1/*; do
    # Warnings from groff (bad requests, unknown escapes) go to stderr; any is a failure.
    warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null || true)
    [ -z "$warnings" ] || fail "$(basename "$page"): $warnings"
  done
  echo "  $(ls "$root"/usr/share/man/man1 | wc -l) man pages format without warnings"
  # Every document a page's SEE ALSO names is in the package.
  for page in "$root"/usr/share/man/man1/*; do
    for doc in $(zcat -f "$page" | grep -o '/usr/share/doc/threadmap/[^ ]*' | tr -d '\\'); do
      [ -f "$root$doc" ] || fail "$(basename "$page") names $doc, which the package lacks"
    done
  done
  echo "  every document the pages name is installed"
else
  echo "  man not installed: formatting not checked"
fi
bash -n "$root/usr/share/bash-completion/completions/threadmap"
if command -v zsh >/dev/null; then zsh -n "$root/usr/share/zsh/vendor-completions/_threadmap"; fi
echo "  completion scripts parse"

echo "== lintian"
if command -v lintian >/dev/null; then
  # Findings are reported, not fatal: E: lines are the ones to fix.
  lintian --tag-display-limit 0 "$deb" | tee "$root.lintian" || true
  echo "  lintian: $(grep -c '^E:' "$root.lintian" || true) error(s), $(grep -c '^W:' "$root.lintian" || true) warning(s)"
  rm -f "$root.lintian"
else
  echo "  lintian not installed: skipped"
fi

echo "== rpm"
if command -v rpmbuild >/dev/null; then
  (cd "$build" && cpack -G RPM >/dev/null)
  rpm -qlp "$build"/threadmap-*.rpm | grep -c . | sed 's/^/  files in the .rpm: /'
else
  echo "  rpmbuild not installed: no .rpm"
fi
echo "check-package: ok"
