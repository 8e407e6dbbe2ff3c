#!/usr/bin/env bash
# README command 1: set up, build, and simulate a bundled trace.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
exec build/sim/pto_sim --config configs/ascend.yaml --trace build/traces/gated.pb --out out/gated
