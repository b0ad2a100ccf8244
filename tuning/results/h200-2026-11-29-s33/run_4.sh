#!/bin/bash
# s33 run 4: the per-instance spike with moduli below 2^1000 taken by a shift and a second pass (school_f49), against
# its first form (school_f49_fast: moduli of 1001-1024 bits only) and the shared Barrett p2; short moduli in none, one
# in 64 and every instance; 2^22 instances, two rounds
set -u
S=build/s33/spike
for r in 1 2; do
  echo "== round $r"
  timeout 120 $S/school_f49_fast gpu 4194304 5
  for e in 0 64 1; do timeout 120 $S/school_f49 gpu 4194304 5 $e; done
  timeout 120 $S/barrett_p2 gpu 4194304 5 | grep -E "modulus 0|gpu:"
done
