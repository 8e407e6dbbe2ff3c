#!/usr/bin/env bash
# Installs the Debian packages pto_sim needs (when missing) and builds it.
# Usage: scripts/setup.sh [build-dir]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${1:-build}"

packages=(
  cmake ninja-build g++ pkg-config python3
  libsystemc-dev libprotobuf-dev protobuf-compiler libabsl-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev libbenchmark-dev libeigen3-dev nlohmann-json3-dev libcli11-dev
  python3-torch python3-numpy python3-protobuf
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  if [[ $(id -u) -ne 0 ]]; then sudo=sudo; else sudo=; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Debian's interpreter by name: a python3 earlier on PATH (a pyenv shim) may not
# see Debian's python3-torch.
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPTO_PYTHON=/usr/bin/python3 >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
