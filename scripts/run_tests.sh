#!/usr/bin/env bash
# README command 2: set up, build, and run the whole test suite (without the
# `heavy` label: `ctest --test-dir build -L heavy` runs those).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
ctest --test-dir build --output-on-failure -j"$(nproc)" -LE heavy
