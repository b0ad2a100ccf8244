#!/usr/bin/env bash
# test-sizes.sh — build and test a copy of the tree generated for other sizes, so every test keeps passing (or
# skips with its reason) for any SIZES a user gives `make gen`. Usage: tools/test-sizes.sh SIZES [SIZES ...]
# (OpenCL only: the tests' dependence on the sizes does not depend on the backend).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: $0 SIZES [SIZES ...]   e.g. $0 1536,65536" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/midint-sizes.XXXXXX")
trap 'rm -rf "$work"' EXIT
git ls-files --cached --others --exclude-standard | tar cf - -T - | (cd "$work" && tar xf -)
cd "$work"
git init -q && git add -A   # tests that copy the tree list its files through git
for sizes in "$@"; do
    echo "== test-sizes: make gen SIZES=$sizes"
    make gen SIZES="$sizes"
    make NO_CUDA=1
    make test NO_CUDA=1
done
