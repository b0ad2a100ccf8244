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
# test files that read neither the build nor generated/ (the generator's, the templates' harnesses and models, the
# layering check): the main run has them (about a minute of CI's two cores here)
independent=(test_expr_gen test_expr_lanes_plan test_expr_linear test_expr_ntt_plan test_expr_parse test_generator
             test_lanes_karatsuba test_lanes_plan test_modarith_lib test_moddiv_fast test_moddiv_qhat3
             test_moddiv_rows test_modgcd_fast test_modlanes_ct test_modlanes_f52_model test_owner_plan
             test_runtime_layering test_sqr_classical test_sqr_plan)
args="$(python3 -c 'import xdist' 2>/dev/null && printf -- '-n %s' "$(nproc)")"
for t in "${same[@]}"; do args="$args --deselect $t"; done
for f in "${independent[@]}"; do args="$args --ignore tests/$f.py"; done
git ls-files --cached --others --exclude-standard | tar cf - -T - | (cd "$work" && tar xf -)
cd "$work"
git init -q && git add -A   # tests that copy the tree list its files through git
for sizes in "$@"; do
    echo "== test-sizes: make gen SIZES=$sizes"
    make gen SIZES="$sizes"
    cuda="NO_CUDA=1"
    [ "${MIDINT_SIZES_CUDA:-}" != 1 ] || cuda=""
    make $cuda
    echo "== test-sizes: SIZES=$sizes generated and built at ${SECONDS} s"
    make test $cuda PYTEST_ARGS="$args"
done
