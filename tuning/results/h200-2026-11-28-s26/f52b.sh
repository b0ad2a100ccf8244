#!/usr/bin/env bash
# f52b.sh — with powm_shared built: test_variants' CUDA powm and shared-modulus cases, compute-sanitizer on powm_shared,
# its rate, and the 512-bit constant-time series again
set -u
N=build/s26/f52
mkdir -p lib build/tuning build/tests generated
cp $N/variants.txt generated/ && cp $N/measure build/tuning/ && cp $N/tests/* build/tests/ && cp $N/lib/libmidint.so lib/
echo "== pytest"
timeout 300 python3 -m pytest -q -p no:cacheprovider -k "cuda and (powm or shared)" tests/test_variants.py 2>&1 | tee $OUT/pytest_powm_shared.log | tail -3
echo "== sanitizer"
for c in "powm_shared 512 40 mixed 4 device none ebits=64" "powm_shared 2048 40 mixed 5 device none ebits=64,secret=1"; do
  for tool in memcheck racecheck; do
    out=$(echo "$c" | timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/check_batch --backend cuda 2>&1)
    echo "$tool | $c | rc=$? | $(echo "$out" | grep -E '^(ok|FAIL)' | head -1 | cut -c1-50) | $(echo "$out" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)"
  done
done | tee $OUT/sanitizer_shared.log
M="build/tuning/measure --backend cuda --tuning none"
echo "== rates and constant time"
{ echo "run powm_shared 2048 131072 default 3 ebits=512,modulus=odd"; echo "run powm_shared 512 2097152 default 3 ebits=512,modulus=odd"
  for p in zero max zero max zero max; do echo "run powm 512 262144 default 5 ebits=512,secret=1,pattern=$p"; done; } | \
  $M 2>&1 | grep "^run" | tee $OUT/shared_ct.txt
