#!/bin/bash
# s35 run 8: mulmod's product columns with the high parts chained on the FP64 pipe (ch: lib_fp64_columns.j2's
# columns_chained, four FP64 operations a limb product and no integer add, against three and two) against the
# committed library (als): check_batch at 256-1024 bits, then rates at 2^27 words, 3 rounds
set -u
S=build/s35
for b in 256 384 512 1024; do
  printf "mulmod $b 3000 mixed 5 device none\nmulmod $b 3000 max 6 device none\nmulmod $b 3000 random 7 device none\n" | LD_LIBRARY_PATH=$S/ch timeout 120 $S/ch/tests/check_batch --backend cuda 2>&1 | tail -3 | sed "s/^/ch check: /"
done
for r in 1 2 3; do
  for L in als ch; do
    echo "== round $r $L"
    printf "run mulmod 256 16777216 default 5\nrun mulmod 384 11184810 default 5\nrun mulmod 512 8388608 default 5\nrun mulmod 1024 4194304 default 5\n" | LD_LIBRARY_PATH=$S/$L timeout 300 $S/$L/tuning/measure --backend cuda --tuning none 2>&1 | grep -E "^run|rror"
  done
done
