#!/bin/bash
# s28 run 9: gl_steps' search for the top word in two levels (groups of 8 words) against the committed build (prev),
# alternating; modinv and gcd lanes variants against GMP and Python; memcheck
set -u
cd build/s28
for t in prev new prev new; do
  echo "== $t"
  for v in modinv_2048_u32_q32_i64_w2_cuda modinv_3072_u32_q48_i64_w2_cuda modinv_4096_u32_q64_i64_w2_cuda modinv_8192_u32_q64_i32_w4_cuda gcd_3072_u32_q48_i64_w2_cuda gcd_4096_u32_q64_i64_w2_cuda gcd_8192_u32_q64_i32_w4_cuda; do
    op=${v%%_*}; b=$(echo $v | cut -d_ -f2); c=131072; [ $b -le 2048 ] && c=262144
    echo "run $op $b $c $v 5"
  done | $t/build/tuning/measure --backend cuda --tuning none | grep "^run"
done
cd ../..
N=build/s28/new
mkdir -p lib build/tuning build/tests generated
cp $N/gen/variants.txt generated/ && cp $N/build/tuning/measure build/tuning/ && cp $N/tests/* build/tests/ && cp $N/lib/libmidint.so lib/
echo "== pytest"
timeout 400 python3 -m pytest -q -p no:cacheprovider -k "cuda and (modinv or gcd or lanes)" tests/test_variants.py tests/test_python_modarith.py 2>&1 | grep -E "^E |passed|failed|error" | head -30
for c in "modinv_4096_u32_q64_i64_w2_cuda|modinv 4096 40 random 3 device none" "gcd_3072_u32_q48_i64_w2_cuda|gcd 3072 37 near 4 host none" "gcd_8192_u32_q64_i32_w4_cuda|gcd 8192 9 mixed 5 device none"; do
  v=${c%%|*}; k=${c#*|}
  out=$(echo "$k" | timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/check_batch --backend cuda --variant $v 2>&1)
  echo "memcheck | $v | $k | rc=$? | $(echo "$out" | grep -E '^(ok|FAIL)' | head -1 | cut -c1-60) | $(echo "$out" | grep -E 'ERROR SUMMARY' | tail -1)"
done
