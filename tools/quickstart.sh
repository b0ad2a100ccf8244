#!/usr/bin/env bash
# quickstart.sh — from a fresh Debian machine: install dependencies, generate the default sizes, build, run the example.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
make gen
make
make example
