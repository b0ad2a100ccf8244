#!/bin/bash
# s33 run 5: the per-instance spike's first form (fast) against fast2 (the last digit, below 5, subtracted by integer
# products in the normalization instead of a second FP64 pass) and fast3 (fast2 with the modulus read after the
# product); midint mul at 1024 bits for the share; 2^22 instances, two rounds
set -u
S=build/s33/spike
for r in 1 2; do
  echo "== round $r"
  printf "run mul 1024 4194304 default 5\n" | LD_LIBRARY_PATH=build/s33/mul timeout 120 build/s33/mul/measure --backend cuda --tuning none 2>&1 | grep "^run"
  for v in fast fast2 fast3; do echo "== $v"; timeout 120 $S/school_f49_$v gpu 4194304 5; done
  timeout 120 $S/barrett_p2 gpu 4194304 5 | grep -E "modulus 0|gpu:"
done
