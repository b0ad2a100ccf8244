#!/bin/bash
# s36 run 3: the FP64 division on lanes with two steps a turn (S into T, T into S: no moves), 32-bit limb reads and the
# estimate's max by a comparison (fd2), bounded to 5 or 6 blocks an SM at 4096 bits (fd2r5, fd2r6; 4 / 5 at 3072, 3 / 4
# at 8192): check_batch on a few patterns, then rates beside base and fd, 2 rounds
set -u
S=build/s36
for L in fd2 fd2r5 fd2r6; do
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
  for L in base fd fd2 fd2r5 fd2r6; do
    echo "== round $r $L"
    printf "run divrem 3072 524288 default 5\nrun mod 3072 524288 default 5\nrun divrem 4096 524288 default 5\nrun mod 4096 524288 default 5\nrun divrem 8192 262144 default 5\nrun mod 8192 262144 default 5\n" | LD_LIBRARY_PATH=$S/$L timeout 300 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror" | awk '{print $2, $3, $7}' | tr '\n' ' '; echo
  done
done
