#!/usr/bin/env bash
# r3.sh — after the expr_mod slot fix: the CUDA modular-expression tests (crt_h at 256-4096 bits), the RSA example's
# test, compute-sanitizer on crt_h at 2048 bits, the example at 262144 messages against the host-API chain, pipes3 v2
set -u
N=build/s27/new
mkdir -p lib build/tuning build/tests build/examples generated
cp $N/variants.txt generated/ && cp $N/measure build/tuning/ && cp $N/tests/* build/tests/ && cp $N/libmidint.so lib/
cp $N/rsa_crt $N/rsa_crt_old build/examples/
echo "== pytest"
timeout 400 python3 -m pytest -q -p no:cacheprovider -k "cuda or crt" tests/test_expr_mod.py tests/test_rsa_crt.py 2>&1 | grep -E "^E |passed|failed" | head -20 | tee $OUT/pytest.log
timeout 300 python3 -m pytest -q -p no:cacheprovider -k "cuda and crt" tests/test_variants.py tests/test_expr.py 2>&1 | tail -2 | tee -a $OUT/pytest.log
echo "== sanitizer"
for c in "crth 2048 40 mixed 4 device none" "crth 1024 40 mixed 5 host none" "crtm 1024 40 mixed 6 device none"; do
  for tool in memcheck racecheck; do
    out=$(echo "$c" | timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/check_expr --backend cuda 2>&1)
    echo "$tool | $c | rc=$? | $(echo "$out" | grep -E '^(ok|FAIL)' | head -1 | cut -c1-60) | $(echo "$out" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)"
  done
done | tee $OUT/sanitizer.log
echo "== rsa"
for r in 1 2; do
  build/examples/rsa_crt 262144 16 2>&1 | tail -1 | sed "s/^/new r$r: /"
  build/examples/rsa_crt_old 262144 16 2>&1 | tail -1 | sed "s/^/old r$r: /"
done | tee $OUT/rsa.txt
echo "== pipes3"; build/s27/spike/pipes3 | tee $OUT/pipes3.txt
