#!/bin/bash
# s28 run 11: the thread per instance's gcd and modinv (lib_modgcd.j2: mg_apply, mg_cofactors) on the word sums of the
# lanes (new) against the committed build (prev), alternating; then the modular pytest of the CUDA variants, memcheck
set -u
cd build/s28
for t in prev new prev new; do
  echo "== $t"
  for b in 256 512 1024 2048 4096; do
    c=$(( (1 << 30) / (b * b / 256) )); [ $c -lt 131072 ] && c=131072; [ $c -gt 1048576 ] && c=1048576
    echo "run gcd $b $c default 5"; echo "run modinv $b $c default 5"
  done | $t/build/tuning/measure --backend cuda --tuning none | grep "^run"
done
cd ../..
N=build/s28/new
mkdir -p lib build/tuning build/tests generated
cp $N/gen/variants.txt generated/ && cp $N/build/tuning/measure build/tuning/ && cp $N/tests/* build/tests/ && cp $N/lib/libmidint.so lib/
echo "== pytest"
timeout 400 python3 -m pytest -q -p no:cacheprovider -k "cuda and (modinv or gcd or lanes)" tests/test_variants.py tests/test_python_modarith.py 2>&1 | grep -E "^E |passed|failed|error" | head -30
for c in "modinv 1024 40 random 3 device none" "gcd 2048 37 near 4 host none" "modinv 256 70 mixed 5 host none" "modinv 4096 20 random 6 device none"; do
  out=$(echo "$c" | timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/check_batch --backend cuda 2>&1)
  echo "memcheck | $c | rc=$? | $(echo "$out" | grep -E '^(ok|FAIL)' | head -1 | cut -c1-60) | $(echo "$out" | grep -E 'ERROR SUMMARY' | tail -1)"
done
