#!/usr/bin/env bash
# test-sizes.sh — build and test a copy of the tree generated for other sizes, so every test keeps passing (or
# skips with its reason) for any SIZES a user gives `make gen`. Usage: tools/test-sizes.sh SIZES [SIZES ...]
# (OpenCL only: the tests' dependence on the sizes does not depend on the backend; MIDINT_SIZES_CUDA=1 also compiles
# the copy's CUDA units where nvcc is found, as CI does with CUDA_PTX_ONLY=1: its check of the CUDA kernels).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: $0 SIZES [SIZES ...]   e.g. $0 1536,65536" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/midint-sizes.XXXXXX")
trap 'rm -rf "$work"' EXIT
# tests that build a copy of the tree with sizes of their own (or none): their result cannot depend on SIZES, and the
# main run has them (about a minute of CPU); the rest run as `make test` would
same=(tests/test_expr.py::test_mix_expression_in_a_tree_copy tests/test_expr_mod.py::test_modp_expression_in_a_tree_copy
      tests/test_op_table.py::test_a_new_row_flows_to_registry_header_library_python_and_driver
      tests/test_ntt.py::test_pruned_ntt_choices_are_exact)
args="$(python3 -c 'import xdist' 2>/dev/null && printf -- '-n %s' "$(nproc)")"
for t in "${same[@]}"; do args="$args --deselect $t"; done
git ls-files --cached --others --exclude-standard | tar cf - -T - | (cd "$work" && tar xf -)
cd "$work"
git init -q && git add -A   # tests that copy the tree list its files through git
for sizes in "$@"; do
    echo "== test-sizes: make gen SIZES=$sizes"
    make gen SIZES="$sizes"
    cuda="NO_CUDA=1"
    [ "${MIDINT_SIZES_CUDA:-}" != 1 ] || cuda=""
    make $cuda
    make test $cuda PYTEST_ARGS="$args"
done
