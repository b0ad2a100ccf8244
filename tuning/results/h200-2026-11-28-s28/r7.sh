#!/bin/bash
# s28 run 7: divrem and mod on lanes with each lane's words in parts of 16 (own chains, carry words pending into the
# part above): Q 16 / 32 / 64 at 4096 and 8192 bits against the session-start build; every variant against GMP
set -u
cd build/s28
for t in base new new; do
  echo "== $t"
  { echo "run divrem 4096 524288 divrem_4096_u32_q16_i16_w8_cuda 5"
    if [ $t = new ]; then
      for q in q32_i32_w4 q64_i64_w2; do echo "run divrem 4096 524288 divrem_4096_u32_${q}_cuda 5"; done
      for q in q32_i32_w4 q64_i64_w2; do echo "run mod 4096 524288 mod_4096_u32_${q}_cuda 5"; done
      for q in q16_i8_w16 q32_i16_w8 q64_i32_w4; do echo "run divrem 8192 262144 divrem_8192_u32_${q}_cuda 5"; done
    fi
    echo "run mod 4096 524288 mod_4096_u32_q16_i16_w8_cuda 5"
  } | $t/build/tuning/measure --backend cuda --tuning none | grep "^run"
done
cd ../..
N=build/s28/new
mkdir -p lib build/tuning build/tests generated
cp $N/gen/variants.txt generated/ && cp $N/build/tuning/measure build/tuning/ && cp $N/tests/* build/tests/ && cp $N/lib/libmidint.so lib/
echo "== pytest"
timeout 400 python3 -m pytest -q -p no:cacheprovider -k "cuda and (divrem or mod_ or test_mod)" tests/test_variants.py tests/test_python_modarith.py 2>&1 | grep -E "^E |passed|failed|error" | head -30
for c in "divrem_4096_u32_q32_i32_w4_cuda|divrem 4096 40 random 3 device none" "divrem_8192_u32_q64_i32_w4_cuda|divrem 8192 20 near 4 host none" "mod_4096_u32_q64_i64_w2_cuda|mod 4096 33 mersenne 5 host none"; do
  v=${c%%|*}; k=${c#*|}
  out=$(echo "$k" | timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/check_batch --backend cuda --variant $v 2>&1)
  echo "memcheck | $v | $k | rc=$? | $(echo "$out" | grep -E '^(ok|FAIL)' | head -1 | cut -c1-60) | $(echo "$out" | grep -E 'ERROR SUMMARY' | tail -1)"
done
