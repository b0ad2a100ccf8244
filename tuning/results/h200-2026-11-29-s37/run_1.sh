#!/bin/bash
# s37 run 1: divrem and mod at 8192 bits on 16 lanes of 11 limbs (l16: Q 16, bounded to 4 blocks) against the landed
# 8 lanes of 22 (xa: Q 32, 3 blocks); mulmod (mul then mod) beside mul. check_batch on l16 first, then 3 rounds
set -u
S=build/s36
for op in divrem mod mulmod; do
  for p in random max mixed near; do
    printf "$op 8192 600 $p 23 device none\n" | LD_LIBRARY_PATH=$S/l16 timeout 120 $S/l16/tests/check_batch --backend cuda 2>&1 | tail -1 | sed "s/^/l16 $op $p: /"
  done
done
printf "divrem 8192 200 mixed 5 device4 none\n" | LD_LIBRARY_PATH=$S/l16 timeout 200 compute-sanitizer --tool memcheck --print-limit 5 $S/l16/tests/check_batch --backend cuda 2>&1 | tail -1 | sed "s/^/memcheck: /"
printf "mod 8192 200 random 5 device none\n" | LD_LIBRARY_PATH=$S/l16 timeout 200 compute-sanitizer --tool racecheck --print-limit 5 $S/l16/tests/check_batch --backend cuda 2>&1 | tail -1 | sed "s/^/racecheck: /"
for r in 1 2 3; do
  for L in xa l16; do
    echo "== round $r $L"
    printf "run divrem 8192 262144 default 5\nrun mod 8192 262144 default 5\nrun mul 8192 262144 default 5\nrun mulmod 8192 262144 default 5\n" | LD_LIBRARY_PATH=$S/$L timeout 300 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk '{print $2, $3, $5, $7}' | tr '\n' ';'; echo
  done
done
