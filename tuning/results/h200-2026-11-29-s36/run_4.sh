#!/bin/bash
# s36 run 4: the dividend staged in shared memory (its words once, coalesced; nx from them; the limbs below the window
# built from them, L at a time from the top), bounded to 5 (fd3r5) or 4 (fd3r4) blocks an SM at 4096 bits; checks, rates
# beside base and fd2r5, 2 rounds
set -u
S=build/s36
for L in fd3r5 fd3r4; do
  for b in 3072 4096 8192; do
    for op in divrem mod; do
      for p in random max near mixed; do
        printf "$op $b 700 $p 5 device none\n" | LD_LIBRARY_PATH=$S/$L timeout 60 $S/$L/tests/check_batch --backend cuda 2>&1 | tail -1 | grep -v "^ok" | sed "s/^/$L $op $b $p: /"
      done
    done
  done
done
echo "checks done"
for r in 1 2; do
  for L in base fd fd3r5 fd3r4; do
    echo "== round $r $L"
    printf "run divrem 3072 524288 default 5\nrun mod 3072 524288 default 5\nrun divrem 4096 524288 default 5\nrun mod 4096 524288 default 5\nrun divrem 8192 262144 default 5\nrun mod 8192 262144 default 5\n" | LD_LIBRARY_PATH=$S/$L timeout 300 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk '{print $2, $3, $7}' | tr '\n' ' '; echo
  done
done
