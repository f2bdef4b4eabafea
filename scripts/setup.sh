#!/usr/bin/env bash
# Installs what threadmap needs to build and test, when it is missing. Debian 12 / Ubuntu 22.04+
# (apt-get); on other distributions it prints the equivalent dnf/pacman command and stops.
# Needs root or sudo only when something must be installed.
set -euo pipefail

# clang, its fuzzer runtime and clang-format serve the checks in .ci/run (fuzz smoke test, format);
# ccache keeps compiled objects between builds (CMakeLists.txt uses it when it is installed).
# Open MPI and Slurm (with munge) are the real launchers the cluster tests start jobs under;
# Chromium renders the HTML report in the layout tests.
packages=(cmake ninja-build g++ gcc pkg-config hwloc libhwloc-dev libcli11-dev nlohmann-json3-dev
          libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev libcairo2-dev python3
          clang clang-format libclang-rt-14-dev ccache
          openmpi-bin libopenmpi-dev slurm-wlm munge chromium)

if ! command -v apt-get >/dev/null 2>&1; then
  echo "threadmap setup: no apt-get here. Install the equivalents, then build:" >&2
  echo "  dnf install cmake ninja-build gcc-c++ pkgconf hwloc hwloc-devel cli11-devel json-devel fmt-devel gtest-devel gmock-devel google-benchmark-devel cairo-devel clang clang-tools-extra compiler-rt ccache openmpi openmpi-devel slurm slurm-slurmctld slurm-slurmd munge chromium" >&2
  echo "  pacman -S cmake ninja gcc pkgconf hwloc cli11 nlohmann-json fmt gtest benchmark cairo clang compiler-rt ccache openmpi slurm-llnl munge chromium" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "threadmap setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "threadmap setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
