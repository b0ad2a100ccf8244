#!/bin/bash
# s28 run 6: modinv and gcd lanes variants (every Q, P in shared rows) against GMP and Python; memcheck and racecheck;
# the cells at each variant the rules now pick
set -u
N=build/s28/new
mkdir -p lib build/tuning build/tests generated
cp $N/gen/variants.txt generated/ && cp $N/build/tuning/measure build/tuning/ && cp $N/tests/* build/tests/ && cp $N/lib/libmidint.so lib/
echo "== pytest"
timeout 420 python3 -m pytest -q -p no:cacheprovider -k "cuda and (modinv or gcd or lanes)" tests/test_variants.py tests/test_python_modarith.py 2>&1 | grep -E "^E |passed|failed|error" | head -30
echo "== sanitizer"
for c in "modinv_4096_u32_q64_i64_w2_cuda|modinv 4096 40 random 3 device none" "modinv_3072_u32_q48_i64_w2_cuda|modinv 3072 37 near 4 host none" "modinv_8192_u32_q64_i32_w4_cuda|modinv 8192 9 random 5 device none" "modinv_1536_u32_q12_i32_w4_cuda|modinv 1536 33 mixed 6 host none"; do
  v=${c%%|*}; k=${c#*|}
  for tool in memcheck racecheck; do
    out=$(echo "$k" | timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/check_batch --backend cuda --variant $v 2>&1)
    echo "$tool | $v | $k | rc=$? | $(echo "$out" | grep -E '^(ok|FAIL)' | head -1 | cut -c1-60) | $(echo "$out" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)"
  done
done
echo "== cells"
for v in modinv_1536_u32_q24_i64_w2_cuda modinv_2048_u32_q32_i64_w2_cuda modinv_3072_u32_q48_i64_w2_cuda modinv_4096_u32_q64_i64_w2_cuda modinv_8192_u32_q64_i32_w4_cuda gcd_3072_u32_q48_i64_w2_cuda gcd_4096_u32_q64_i64_w2_cuda gcd_8192_u32_q64_i32_w4_cuda; do
  op=${v%%_*}; b=$(echo $v | cut -d_ -f2); c=131072; [ $b -le 2048 ] && c=262144
  echo "run $op $b $c $v 5"; echo "run $op $b $c $v 5"
done | build/tuning/measure --backend cuda --tuning none | grep "^run"
