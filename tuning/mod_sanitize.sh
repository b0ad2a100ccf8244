#!/usr/bin/env bash
# mod_sanitize.sh — compute-sanitizer memcheck and racecheck on the modular kernels and the device-side check kernel
# (every device call runs it), through check_batch at 256 and 1024 bits; run on the GPU machine after make.
set -u
n=0; bad=0
for tool in memcheck racecheck; do
  for bits in 256 1024; do
    for c in "divrem $bits 130 mixed 1 device none" "mod $bits 130 mixed 2 device none abits=1n" \
             "mulmod $bits 130 mixed 3 device none" "powm $bits 40 mixed 4 device none ebits=64" \
             "powm $bits 40 mixed 5 device none ebits=64,secret=1" "gcd $bits 130 mixed 6 device none" \
             "modinv $bits 130 mixed 7 device none"; do
      [ $tool = racecheck ] && [ $bits = 1024 ] && continue
      out=$(echo "$c" | timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/check_batch --backend cuda 2>&1)
      rc=$?; n=$((n+1))
      summary=$(echo "$out" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tail -1)
      res=$(echo "$out" | grep -E "^(ok|FAIL)" | head -1 | cut -c1-60)
      echo "$tool | $c | rc=$rc | $res | $summary"
      [ $rc -ne 0 ] && bad=$((bad+1))
    done
  done
done
echo "sanitizer runs: $n, nonzero exits: $bad"
