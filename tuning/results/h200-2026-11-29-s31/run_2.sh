#!/bin/bash
# s31 run 2: two quotient words a step, the window's pending words added before the chains and every chain into B
# (new2), and divrem 4096 capped at 72 registers (new2c), against the session-start build (fb3): correctness, then
# alternating times
set -u
cd build/s31 && tar xJf fb3.tar.xz && cd ../..
mkdir -p lib build/tuning build/tests generated
cp build/s31/new2/variants.txt generated/ && cp build/s31/new2/tests/* build/tests/ && cp build/s31/new2/lib/libmidint.so lib/ && cp build/s31/new2/measure build/tuning/
echo "== pytest"
timeout 300 python3 -m pytest -q -p no:cacheprovider -k "cuda and (divrem or mod_) and not shared" tests/test_variants.py 2>&1 | grep -E "^E |passed|failed|error" | head -20
echo "== patterns"
for b in 3072 4096 8192 16384 32768; do
  for p in random zero max one mersenne fermat pow2 near multiple single_bits mixed; do
    for op in divrem mod; do echo "$op $b 77 $p 11 device none"; echo "$op $b 33 $p 12 host none abits=1n"; done
  done
done | timeout 200 build/tests/check_batch --backend cuda 2>&1 | awk '{print $1}' | sort | uniq -c
printf 'divrem 4096 77 mixed 3 device none\nmod 4096 33 mersenne 4 host none\n' | LD_LIBRARY_PATH=build/s31/new2c/lib timeout 100 build/tests/check_batch --backend cuda 2>&1 | awk '{print "new2c", $1}'
echo "== sanitizer"
for c in "divrem_4096_u32_q16_i16_w8_cuda|divrem 4096 41 mersenne 3 device none" "mod_8192_u32_q32_i16_w8_cuda|mod 8192 20 random 4 host none"; do
  v=${c%%|*}; k=${c#*|}
  out=$(echo "$k" | timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/check_batch --backend cuda --variant $v 2>&1)
  echo "memcheck | $v | $k | rc=$? | $(echo "$out" | grep -E '^(ok|FAIL)' | head -1 | cut -c1-60) | $(echo "$out" | grep -E 'ERROR SUMMARY' | tail -1)"
done
echo "== timing"
for round in 1 2; do
  for t in fb3 new2 new2c; do
    d=build/s31/$t
    { echo "run divrem 3072 524288 default 5"; echo "run mod 3072 524288 default 5"; echo "run divrem 4096 524288 default 5"; echo "run mod 4096 524288 default 5"
      echo "run divrem 4096 262144 default 3 pattern=mersenne"
      echo "run divrem 8192 262144 default 5"; echo "run mod 8192 262144 default 5"; echo "run divrem 16384 65536 default 3"
    } | LD_LIBRARY_PATH=$d/lib timeout 120 $d/measure --backend cuda --tuning none | grep "^run" | sed "s/^/$t /"
  done
done
