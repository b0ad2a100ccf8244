#!/usr/bin/env bash
# r2.sh — pipes3 (the FP64 split's rate alone), the failing CUDA case of test_expr_mod in full, and gcd / modinv at
# 2048 and 4096 bits with the GPU filled
set -u
N=build/s27/new
mkdir -p lib build/tuning build/tests build/examples generated
cp $N/variants.txt generated/ && cp $N/measure build/tuning/ && cp $N/tests/* build/tests/ && cp $N/libmidint.so lib/
echo "== pipes3"; build/s27/spike/pipes3 | tee $OUT/pipes3.txt
echo "== expr_mod"
timeout 300 python3 -m pytest -q -p no:cacheprovider -x -k "cuda" tests/test_expr_mod.py 2>&1 | grep -E "^E |FAIL|passed|failed" | head -40 | tee $OUT/expr_mod.log
echo "== cells"
M="build/tuning/measure --backend cuda --tuning none"
for r in 1 2; do
  printf "run gcd 2048 262144 default 3\nrun modinv 2048 262144 default 3\nrun gcd 4096 65536 default 3\nrun modinv 4096 65536 default 3\nrun modinv 4096 131072 default 3\n" | $M 2>&1 | grep "^run" | sed "s/^/r$r /"
done | tee $OUT/cells2.txt
