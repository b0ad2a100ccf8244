#!/usr/bin/env bash
# r7.sh — the modular expressions on CUDA after the slot fix: mac, modp (tests/expressions), crt_h at 256-4096 bits,
# every variant forced against GMP (test_expr_mod), compute-sanitizer on the largest, the RSA example once more
set -u
N=build/s27/new
mkdir -p lib build/tuning build/tests build/examples generated
cp $N/variants.txt generated/ && cp $N/measure build/tuning/ && cp $N/tests/* build/tests/ && cp $N/libmidint.so lib/
cp $N/rsa_crt build/examples/
echo "== pytest"
timeout 500 python3 -m pytest -q -p no:cacheprovider -k "cuda" tests/test_expr_mod.py tests/test_rsa_crt.py 2>&1 | grep -E "^E |passed|failed" | head -30 | tee $OUT/pytest.log
echo "== sanitizer"
for c in "mac 4096 20 mixed 4 device none" "modp 2048 20 mixed 5 host none" "crth 4096 20 mixed 6 device none" "modp 4096 10 mixed 7 device none"; do
  out=$(echo "$c" | timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/check_expr --backend cuda 2>&1)
  echo "memcheck | $c | rc=$? | $(echo "$out" | grep -E '^(ok|FAIL)' | head -1 | cut -c1-70) | $(echo "$out" | grep -E 'ERROR SUMMARY' | tail -1)"
done | tee $OUT/sanitizer.log
echo "== rsa"; build/examples/rsa_crt 262144 16 2>&1 | tail -1 | tee $OUT/rsa.txt
