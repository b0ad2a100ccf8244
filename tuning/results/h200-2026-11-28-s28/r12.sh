#!/bin/bash
# s28 run 12: modinv's exact division for even moduli with each digit's shifts by a literal (the first digit peeled:
# one funnel shift a word) = new, against 248dcd4 (prev), alternating; the modinv/gcd lanes tests; memcheck
set -u
cd build/s28
for t in prev new prev new; do
  echo "== $t"
  for b in 2048 4096 8192; do
    c=131072; [ $b -le 2048 ] && c=262144
    echo "run modinv $b $c default 5"; echo "run modinv $b $c default 5 modulus=odd"
  done | $t/build/tuning/measure --backend cuda --tuning none | grep "^run"
done
cd ../..
N=build/s28/new
mkdir -p lib build/tuning build/tests generated
cp $N/gen/variants.txt generated/ && cp $N/build/tuning/measure build/tuning/ && cp $N/tests/* build/tests/ && cp $N/lib/libmidint.so lib/
echo "== pytest"
timeout 400 python3 -m pytest -q -p no:cacheprovider -k "cuda and (modinv or gcd or lanes)" tests/test_variants.py tests/test_python_modarith.py 2>&1 | grep -E "^E |passed|failed|error" | head -30
for c in "modinv 4096 40 random 3 device none" "modinv 2048 37 near 4 host none" "modinv 8192 12 mixed 5 host none"; do
  for tool in memcheck racecheck; do
    out=$(echo "$c" | timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/check_batch --backend cuda 2>&1)
    echo "$tool | $c | rc=$? | $(echo "$out" | grep -E '^(ok|FAIL)' | head -1 | cut -c1-60) | $(echo "$out" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)"
  done
done
