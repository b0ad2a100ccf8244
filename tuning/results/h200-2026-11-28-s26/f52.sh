#!/usr/bin/env bash
# f52.sh — the FP64 Montgomery powm in the library: CUDA tests, compute-sanitizer, rates against the integer lanes
# (base = the session's start), constant-time zero/max exponents
set -u
N=build/s26/f52; B=build/s26/base
mkdir -p lib build/tuning build/tests generated
cp $N/variants.txt generated/ && cp $N/measure build/tuning/ && cp $N/tests/* build/tests/ && cp $N/lib/libmidint.so lib/
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
echo "== pytest"
timeout 200 python3 -m pytest -q -p no:cacheprovider -k "cuda and (powm_ or _shared_)" tests/test_variants.py 2>&1 | tee $OUT/pytest_powm.log | tail -3
echo "== sanitizer"
for c in "powm 512 40 mixed 4 device none ebits=64" "powm 512 40 mixed 5 device none ebits=64,secret=1" \
         "powm 2048 40 mixed 4 device none ebits=64" "powm 2048 40 mixed 5 device none ebits=64,secret=1" \
         "powm 4096 20 mixed 6 device none ebits=64"; do
  for tool in memcheck racecheck; do
    out=$(echo "$c" | timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/check_batch --backend cuda 2>&1)
    echo "$tool | $c | rc=$? | $(echo "$out" | grep -E '^(ok|FAIL)' | head -1 | cut -c1-50) | $(echo "$out" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)"
  done
done | tee $OUT/sanitizer.log
echo "== rates"
M="build/tuning/measure --backend cuda --tuning none"
lines() { echo "run powm 512 2097152 default 3 ebits=512"; echo "run powm 1024 524288 default 3 ebits=512"
          echo "run powm 2048 131072 default 3 ebits=512"; echo "run powm 4096 32768 default 3 ebits=512"
          echo "run powm 1024 262144 default 3 ebits=1024"; echo "run powm 2048 65536 default 3 ebits=512,secret=1"; }
for round in 1 2; do
  for lib in f52 base; do
    cp build/s26/$lib/lib/libmidint.so lib/
    lines | $M 2>&1 | grep "^run" | sed "s/^/$lib r$round /"
  done
done | tee $OUT/rates.txt
cp $N/lib/libmidint.so lib/
echo "== constant time (2048 and 512 bits, full-width exponents, all-zero against all-one)"
for b in 512 2048; do for p in zero max zero max; do echo "run powm $b 65536 default 3 ebits=$b,secret=1,pattern=$p"; done; done | \
  $M 2>&1 | grep "^run" | tee $OUT/ct.txt
